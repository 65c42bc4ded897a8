// Sparse x dense matrix multiply: C = alpha * A * B + beta * C, A in CSR (m x n),
// B dense (n x k), C dense (m x k). SpMV is the case k = 1.
//
// Algorithms (kernels/spmm/, one file each, all tested against `Reference`):
//  - Reference:   sequential, obviously correct.
//  - RowParallel: one contiguous range of equal row count per worker (a static schedule).
//  - MergePath:   equal shares of rows + nonzeros by diagonal search (Merrill & Garland,
//                 SC'16), rows spanning two shares fixed up afterwards.
//  - Lssm:        long-row splitting and short-row merging: rows longer than the block
//                 size are split into blocks handled by different workers, runs of
//                 short rows are merged into units of about one block; units are
//                 handed out through an atomic counter.
//  - LssmTeam:    the LSSM units shaped for wide devices: one unit per team, its slice of
//                 A staged in team scratch, vector lanes across k (large k) or across the
//                 nonzeros with a reduction (small k); runs on every backend with the
//                 profile's team_size, team_vector and team_scratch_bytes.
// RowParallel, MergePath and Lssm share one register-tiled micro-kernel over the k
// columns: they differ in how the rows are scheduled, so comparing them measures that.
//  - Auto:        chooses among the above from the row-length statistics, k and the
//                 device profile (rule documented in kernels/spmm/auto.cpp).
//
// The plan (row classification, unit boundaries, split rows) is computed once per
// matrix and reused across calls (inspector-executor, like mkl_sparse_optimize).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mimd/context.hpp"
#include "mimd/csr.hpp"
#include "mimd/tuning.hpp"

namespace mimd {

enum class SpmmAlgorithm { Reference, RowParallel, MergePath, Lssm, LssmTeam, Auto };

/// "reference", "row_parallel", "merge_path", "lssm", "lssm_team", "auto".
const char* to_string(SpmmAlgorithm a) noexcept;
/// Inverse of to_string. @throws InvalidArgument listing the valid names
SpmmAlgorithm spmm_algorithm_from_string(const std::string& name);
/// Every algorithm except Auto, in declaration order (what tests loop over).
std::vector<SpmmAlgorithm> spmm_algorithms();
/// What Auto runs where the profile's rule (TuningProfile::auto_rule) has no row for the
/// call, and for every call under the derived defaults (no rule): LSSM, whose units are
/// balanced whatever the row lengths (kernels/spmm/auto.cpp gives the measurements).
constexpr SpmmAlgorithm kAutoFallback = SpmmAlgorithm::Lssm;

/// Choices for a plan. An option left empty takes its value from the context's tuning
/// profile (TuningProfile::spmm_*), or from Auto's rule where it decides.
struct SpmmOptions {
  SpmmAlgorithm algorithm = SpmmAlgorithm::Auto;
  /// LSSM and LSSM team: nonzeros per unit (>= 1); rows longer are split, runs of shorter rows
  /// merged. Empty: lssm_default_block's choice from the profile's spmm_block_nnz, m, nnz and k.
  std::optional<int> block_nnz;
  /// LSSM (team): stage a unit's slice of A in team scratch memory. Empty:
  /// spmm_use_scratch. Team LSSM stages only when the slice fits team_scratch_bytes.
  std::optional<bool> use_scratch;
  /// LSSM (team): how the partial sums of a split row are combined. Empty: spmm_combine.
  std::optional<SplitCombine> combine;
};

/// Matrices on the default execution space's memory, 32-bit columns, 64-bit offsets.
template <class Scalar>
using Csr = CsrMatrix<Scalar, std::int32_t, std::int64_t, DefaultMemorySpace>;
template <class Scalar, class Layout>
using DenseConst = Kokkos::View<const Scalar**, Layout, DefaultMemorySpace>;
template <class Scalar, class Layout>
using Dense = Kokkos::View<Scalar**, Layout, DefaultMemorySpace>;

/// A reusable SpMM plan for one matrix. Cheap to copy (shared state).
/// Supported instantiations: Scalar in {float, double}, Layout in
/// {Kokkos::LayoutLeft, Kokkos::LayoutRight}.
///
/// Threads: each plan owns its work counters and buffers, so distinct plans may be
/// applied from several host threads at once where the Kokkos backend accepts launches
/// from several threads (Kokkos 4 OpenMP, which serialises them per instance). Kokkos
/// 3.4 OpenMP and Kokkos 4 Threads accept parallel launches only from the thread that
/// initialised Kokkos (reductions and team launches from another thread throw): there,
/// make every call from that thread, or go through the C API (mimd.h), which runs all
/// calls on one dispatch thread.
template <class Scalar, class Layout>
class SpmmPlan {
 public:
  /// Validates A (mimd::validate: offsets, every column index in [0, ncols), values;
  /// O(nnz), once per plan, never in apply()) and inspects it (row classification,
  /// units) for the chosen algorithm.
  /// @param k_hint  expected number of columns of B (guides Auto and the k tiling);
  ///                apply() accepts any k
  /// @throws InvalidMatrix naming the first broken position (row, index, value)
  /// @throws InvalidArgument for block_nnz < 1 or a combine that is no SplitCombine value
  SpmmPlan(const ExecutionContext& ctx, const Csr<Scalar>& a, int k_hint = 1,
           const SpmmOptions& options = {});

  /// C = alpha * A * B + beta * C with the matrix the plan was made for: the same
  /// row_map and entries arrays (the values may change between calls).
  /// beta = 0 overwrites C, NaN and Inf included. alpha = 0 only scales C.
  /// Where the plan's algorithm does not run as itself (the result is the same up to
  /// rounding): a call within the serial threshold for its k (spmm_serial_work_field) runs
  /// every algorithm but the reference as one row loop in the calling thread, and
  /// LayoutLeft from k = spmm_left_split_min_k splits the columns of B and C between the
  /// workers, below it (spmm_left_blocks_pct) the rows into one share a worker, each from
  /// its own copy of the rows of B it reads.
  /// Not to be called concurrently on one plan (it keeps a work buffer).
  /// @throws DimensionMismatch giving every extent when B or C do not fit A
  /// @throws InvalidArgument when `a` is not the matrix the plan was made for
  void apply(Scalar alpha, const Csr<Scalar>& a, const DenseConst<Scalar, Layout>& b, Scalar beta,
             const Dense<Scalar, Layout>& c) const;

  /// The same on raw dense arrays of k columns with leading dimensions: element (i, t)
  /// of B is b[i * ldb + t] (LayoutRight) or b[i + t * ldb] (LayoutLeft), likewise C.
  /// The arrays must be accessible from the default execution space.
  /// @throws InvalidArgument for another matrix, negative k, a too small ld
  ///         (LayoutRight: >= k; LayoutLeft: >= n for B, >= m for C) or null arrays
  void apply(Scalar alpha, const Csr<Scalar>& a, std::int64_t k, const Scalar* b, std::int64_t ldb,
             Scalar beta, Scalar* c, std::int64_t ldc) const;

  SpmmAlgorithm algorithm() const;  ///< the resolved algorithm (never Auto)
  int block_nnz() const;            ///< LSSM (team) block size in use (0 for others)
  bool uses_scratch() const;
  SplitCombine combine() const;
  std::int64_t num_units() const;  ///< work units of the plan (LSSM (team), merge path)
  std::int64_t num_split_rows() const;
  double inspect_seconds() const;  ///< wall time of the inspection
  /// One line: the algorithm and what its plan holds (block, units, split rows, ...), the k
  /// tile and SIMD width, for LayoutLeft the strategy and its knobs, the serial thresholds
  /// (serial_work=K1/K8/K32/K128, one per class of k: spmm_serial_work_class).
  /// Two plans of one matrix described alike run the same code.
  std::string describe() const;
  /// What a call with k columns runs: describe(), unless the call is small enough to run in
  /// the calling thread (spmm_serial_work_field), where every algorithm but the
  /// reference runs the same row loop: then "serial" with what that loop depends on (k
  /// tile, SIMD width, LayoutLeft's strategy); for LSSM on row-major operands, how this
  /// call hands its units out (TuningProfile::spmm_static_work) instead of the threshold.
  /// Two plans of one matrix whose calls of k columns are described alike run the same
  /// code for them.
  std::string describe(std::int64_t k) const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

/// One-shot C = alpha * A * B + beta * C (builds a plan and applies it once).
/// Same preconditions and errors as SpmmPlan::apply.
template <class Scalar, class Layout>
void spmm(const ExecutionContext& ctx, Scalar alpha, const Csr<Scalar>& a,
          const DenseConst<Scalar, Layout>& b, Scalar beta, const Dense<Scalar, Layout>& c,
          const SpmmOptions& options = {});

enum class DenseLayout { RowMajor, ColMajor };

/// The same on plain host arrays (for callers that hold raw CSR and dense arrays).
/// Requires a host-accessible default memory space (the arrays are wrapped, not copied).
/// @param row_map  m + 1 offsets; col_idx, values: row_map[m] entries
/// @param b        n x k, leading dimension ldb (>= k row-major, >= n column-major)
/// @param c        m x k, leading dimension ldc
/// The scalar arguments (m, n, k, ldb, ldc) are checked before any array is read; the
/// CSR arrays are validated before B is read (as by SpmmPlan).
/// @throws InvalidArgument for null pointers, negative sizes or too small ld
/// @throws InvalidMatrix for broken CSR arrays, e.g. a column index outside [0, n):
///         where() == "entries[j] (row i)", the message gives the column
template <class Scalar>
void spmm(const ExecutionContext& ctx, DenseLayout layout, std::int64_t m, std::int64_t n,
          std::int64_t k, Scalar alpha, const std::int64_t* row_map, const std::int32_t* col_idx,
          const Scalar* values, const Scalar* b, std::int64_t ldb, Scalar beta, Scalar* c,
          std::int64_t ldc, const SpmmOptions& options = {});

}  // namespace mimd
