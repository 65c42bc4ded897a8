// The SpMM kernels' signatures, declared once (as Ginkgo's GKO_DECLARE_* do): each
// MIMD_SPMM_DECLARE_* macro is the one spelling of a kernel's signature; this header
// declares the templates from it, and the algorithm's file instantiates it for every
// supported (value type, layout) pair with MIMD_SPMM_INSTANTIATE. Adding a value type
// or a layout is one line in MIMD_FOR_EACH_SCALAR or MIMD_FOR_EACH_LAYOUT.
//
// Algorithms (one file each; how each works is told at the top of its file):
//  - reference.cpp:    sequential, obviously correct; every other one is tested against it.
//  - row_parallel.cpp: static ranges of whole rows, one per worker.
//  - merge_path.cpp:   equal shares of the merge path of rows and nonzeros.
//  - lssm.cpp:         long-row splitting, short-row merging, dynamic units.
//  - lssm_team.cpp:    the same units, one per team of threads and vector lanes (GPU-shaped).
//  - auto.cpp:         the rule that picks one of them.
// row_parallel, merge_path and lssm compute rows with the same register-tiled
// micro-kernel (common.hpp): they differ in how the work is scheduled, nothing else.
#pragma once

#include <cstdint>
#include <memory>

#include "core/team.hpp"
#include "mimd/csr.hpp"
#include "mimd/spmm.hpp"
#include "mimd/tuning.hpp"
#include "spmm/common.hpp"

/// Calls M(Scalar, X) for every value type the kernels are compiled for.
#define MIMD_FOR_EACH_SCALAR(M, X) \
  M(float, X)                      \
  M(double, X)

/// Calls M(S, Layout); for every dense layout of the interface.
#define MIMD_FOR_EACH_LAYOUT(S, M) \
  M(S, Kokkos::LayoutLeft);        \
  M(S, Kokkos::LayoutRight);

/// Calls M(S, Layout); for every layout the kernels run on: the interface's, and
/// LeftPackedB (column-major C with B packed row-major, common.hpp).
#define MIMD_FOR_EACH_KERNEL_LAYOUT(S, M) \
  MIMD_FOR_EACH_LAYOUT(S, M)              \
  M(S, LeftPackedB);

/// Calls M(Scalar, Layout); for every supported pair (the product of the two lists).
#define MIMD_FOR_EACH_SCALAR_LAYOUT(M) MIMD_FOR_EACH_SCALAR(MIMD_FOR_EACH_LAYOUT, M)

/// Explicit instantiation, for every value type and kernel layout, of the kernel whose
/// signature DECLARE(Scalar, Layout) spells.
#define MIMD_SPMM_INSTANTIATE(DECLARE) \
  MIMD_FOR_EACH_SCALAR(MIMD_FOR_EACH_KERNEL_LAYOUT, template DECLARE)

namespace mimd::spmm_detail {

// ---- reference ---------------------------------------------------------------------------

#define MIMD_SPMM_DECLARE_REFERENCE(S, L) void reference_apply(const Operands<S, L>& op)
template <class S, class L>
MIMD_SPMM_DECLARE_REFERENCE(S, L);

// ---- row_parallel ------------------------------------------------------------------------

#define MIMD_SPMM_DECLARE_ROW_PARALLEL(S, L) void row_parallel_apply(const Operands<S, L>& op)
template <class S, class L>
MIMD_SPMM_DECLARE_ROW_PARALLEL(S, L);

// ---- merge_path --------------------------------------------------------------------------

struct MergePathPlan {
  std::int64_t nshares = 0;
  /// nshares + 1 path coordinates: share s covers rows [start_row(s), start_row(s+1)]
  /// and nonzeros [start_nz(s), start_nz(s+1)).
  Kokkos::View<std::int64_t*, DefaultMemorySpace> start_row, start_nz;
};

/// @param row_map  the m + 1 offsets, on the host
MergePathPlan merge_path_inspect(const std::int64_t* row_map, std::int64_t m, std::int64_t nshares);

/// `work` is grown to nshares * k scalars when smaller (kept for the next call).
#define MIMD_SPMM_DECLARE_MERGE_PATH(S, L)                                   \
  void merge_path_apply(const MergePathPlan& plan, const Operands<S, L>& op, \
                        Kokkos::View<S*, DefaultMemorySpace>& work)
template <class S, class L>
MIMD_SPMM_DECLARE_MERGE_PATH(S, L);

// ---- lssm --------------------------------------------------------------------------------

struct LssmPlan {
  int block = 0;
  bool scratch = false;
  SplitCombine combine = SplitCombine::TwoPass;
  int workers = 1;
  std::int64_t nunits = 0;
  std::int64_t nsplit_rows = 0;
  std::int64_t nslots = 0;  ///< split chunks (each a slot of the TwoPass buffer)
  /// Nonzeros of the largest unit: what scratch staging must hold (a merged unit may
  /// exceed `block` by parts of its first and last rows).
  std::int64_t max_unit_nnz = 0;
  /// TuningProfile::spmm_static_work: calls within it (within_work) run each worker's range
  /// of units in order, without the counters.
  std::int64_t static_work = 0;
  /// nunits + 1 entries: unit u covers rows [unit_row(u), unit_row(u + 1)) when merged,
  /// or one piece of row unit_row(u) when split.
  Kokkos::View<std::int32_t*, DefaultMemorySpace> unit_row;
  /// nunits + 1 entries: unit u covers nonzeros [unit_nz(u), unit_nz(u + 1)).
  Kokkos::View<std::int64_t*, DefaultMemorySpace> unit_nz;
  Kokkos::View<std::int32_t*, DefaultMemorySpace> unit_slot;   ///< -1: merged rows
  Kokkos::View<std::int32_t*, DefaultMemorySpace> split_row;   ///< the split rows
  Kokkos::View<std::int64_t*, DefaultMemorySpace> split_slot;  ///< nsplit_rows + 1 slot offsets
  Kokkos::View<std::int32_t*, DefaultMemorySpace> slot_split;  ///< slot -> its split row's index
  /// TwoPass: chunks of each split row finished in the running call (zero between calls).
  Kokkos::View<std::int32_t*, DefaultMemorySpace> split_done;
  /// Unit counters: worker w owns the units [w * nunits / workers, (w + 1) * nunits /
  /// workers) and takes them in order through its own counter (one cache line each:
  /// uncontended while it works alone, and neighbouring rows stay on one core); a
  /// worker whose range is exhausted steals from the others' counters. Two sets are
  /// used alternately: a call counts in set `parity`, and each worker zeroes its own
  /// counter of the other set for the next call, so no launch is spent on resetting.
  Kokkos::View<std::int64_t*, DefaultMemorySpace> counter;
  std::shared_ptr<int> parity;
};

/// A plan's split rows as raw pointers, for the kernels (capturing a View costs a
/// reference-count update per launch, which shows on small matrices).
struct SplitRows {
  const std::int32_t* row;         ///< split row s
  const std::int64_t* slot;        ///< its slots [slot[s], slot[s + 1])
  const std::int32_t* slot_split;  ///< slot -> s
  std::int32_t* done;              ///< chunks of s finished in this call
};
inline SplitRows split_rows(const LssmPlan& plan) {
  return {plan.split_row.data(), plan.split_slot.data(), plan.slot_split.data(),
          plan.split_done.data()};
}

/// The block size LSSM uses when none is given: the profile's spmm_block_nnz, halved
/// while that leaves fewer than spmm_units_per_thread units per thread, but not below
/// max(spmm_block_floor, spmm_block_floor_work / k) nonzeros: a unit must carry enough work (block
/// * k multiply-adds) to pay for its hand-out, or tiny matrices run slower on more threads.
/// Then evened out: the weight (nnz + m) divided into a multiple of `threads` units.
int lssm_default_block(std::int64_t m, std::int64_t nnz, std::int64_t k,
                       const TuningProfile& profile, int threads);

/// @param row_map    the m + 1 offsets, on the host
/// @param block      nonzeros per unit, >= 1
/// @param row_align  merged units begin at multiples of it (>= 1) except after a split
///                   row: kLeftRowGroup for column-major C, whose units then write whole
///                   cache lines of every column (and full groups of its store)
LssmPlan lssm_inspect(const std::int64_t* row_map, std::int64_t m, int block, bool scratch,
                      SplitCombine combine, int workers, int row_align = 1);

/// `work` is grown to nslots * k scalars (TwoPass) when smaller (kept for the next call).
/// Calls on one plan must not overlap (the counters and `work` are shared).
#define MIMD_SPMM_DECLARE_LSSM(S, L)                              \
  void lssm_apply(const LssmPlan& plan, const Operands<S, L>& op, \
                  Kokkos::View<S*, DefaultMemorySpace>& work)
template <class S, class L>
MIMD_SPMM_DECLARE_LSSM(S, L);

/// What an LSSM call does before its units run: grows `work` to nslots * k scalars
/// (TwoPass) when smaller, or sets C's split rows to beta * C (Atomic, whose units then
/// add into them).
#define MIMD_SPMM_DECLARE_LSSM_PREPARE(S, L)                                   \
  void lssm_prepare_split_rows(const LssmPlan& plan, const Operands<S, L>& op, \
                               Kokkos::View<S*, DefaultMemorySpace>& work)
template <class S, class L>
MIMD_SPMM_DECLARE_LSSM_PREPARE(S, L);

// ---- lssm_team ---------------------------------------------------------------------------

using core_detail::TeamShape;

/// The LSSM plan's units, one per team (same plan as lssm_apply, counters unused).
#define MIMD_SPMM_DECLARE_LSSM_TEAM(S, L)                                                      \
  void lssm_team_apply(const LssmPlan& plan, const TeamShape& shape, const Operands<S, L>& op, \
                       Kokkos::View<S*, DefaultMemorySpace>& work)
template <class S, class L>
MIMD_SPMM_DECLARE_LSSM_TEAM(S, L);

// ---- auto --------------------------------------------------------------------------------

struct AutoChoice {
  SpmmAlgorithm algorithm = SpmmAlgorithm::Lssm;
  int block_nnz = 0;  ///< LSSM block size (0 when another algorithm is chosen)
};

/// What Auto's rule reads of a matrix and the call.
struct MatrixFeatures {
  std::int64_t m = 0, nnz = 0, k = 1;
  std::int64_t max_row = 0;  ///< longest row
  double cv = 0;             ///< coefficient of variation of the row lengths (0 when m = 0)
  double imbalance = 1;      ///< row_split_imbalance over the threads
};

/// @param row_map  the m + 1 offsets, on the host
/// @param threads  the workers the kernels run on
MatrixFeatures matrix_features(const std::int64_t* row_map, std::int64_t m, std::int64_t k,
                               int threads);

/// The algorithm (and LSSM block) for a matrix at k columns: the profile's auto_rule
/// (TuningProfile::AutoRule), LSSM when it has no matching row.
AutoChoice choose_algorithm(const MatrixFeatures& f, const TuningProfile& profile, int threads);

}  // namespace mimd::spmm_detail
