// LSSM SpMM: long-row splitting and short-row merging.
//
// The inspector cuts the rows into units of about `block` nonzeros:
//  - a row longer than `block` is split into ceil(len / block) chunks of equal size,
//    each a unit of its own, whose partial sums are combined afterwards, either by
//    atomic adds into C (SplitCombine::Atomic, C's split rows scaled by beta first) or
//    through a buffer and a combine pass per split row (SplitCombine::TwoPass, no
//    atomics on C; the pass is run by the chunk of the row that finishes last, inside
//    the same launch);
//  - runs of consecutive short rows are merged into one unit while the unit's weight
//    (nonzeros + one per row, for the write of the row of C) stays within `block`.
// So every unit carries similar work, whatever the row-length distribution.
// The executor launches one worker per hardware thread (one team of one thread with
// scratch); each worker takes the units of its own contiguous range through an atomic
// counter, then steals units from the other ranges through theirs until none is left:
// dynamic scheduling without the runtime's per-chunk overhead, and without giving up
// the locality of contiguous rows (which matters on banded matrices at large k). Rows are computed
// by the register-tiled micro-kernel of common.hpp (k specialised, tiles of k_tile columns). With
// scratch, a unit's slice of A (values, column indices) is first staged in team scratch memory
// (shared memory on GPUs; on CPUs a copy that stays in L1).
#pragma once

#include <cstdint>
#include <memory>

#include "mimd/csr.hpp"
#include "mimd/tuning.hpp"
#include "spmm/common.hpp"

namespace mimd::spmm_impl {

struct LssmPlan {
  int block = 0;
  bool scratch = false;
  SplitCombine combine = SplitCombine::TwoPass;
  int workers = 1;
  std::int64_t nunits = 0;
  std::int64_t nsplit_rows = 0;
  std::int64_t nslots = 0;  ///< split chunks (each a slot of the TwoPass buffer)
  /// nunits + 1 entries: unit u covers rows [unit_row(u), unit_row(u + 1)) when merged,
  /// or one piece of row unit_row(u) when split.
  Kokkos::View<std::int32_t*, DefaultMemorySpace> unit_row;
  /// Split chunk: nonzeros [unit_nz(u), unit_nz(u) + ...) up to unit_end(u); its slot.
  Kokkos::View<std::int64_t*, DefaultMemorySpace> unit_nz, unit_end;
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

/// The block size LSSM uses when none is given: the profile's spmm_block_nnz, halved
/// while that leaves fewer than spmm_units_per_thread units per thread, but not below
/// max(64, 8192 / k) nonzeros: a unit must carry enough work (block * k multiply-adds)
/// to pay for its hand-out, or tiny matrices run slower on more threads.
int lssm_default_block(std::int64_t m, std::int64_t nnz, std::int64_t k,
                       const TuningProfile& profile, int threads);

/// @param row_map  the m + 1 offsets, on the host
/// @param block    nonzeros per unit, >= 1
LssmPlan lssm_inspect(const std::int64_t* row_map, std::int64_t m, int block, bool scratch,
                      SplitCombine combine, int workers);

/// `work` is grown to nslots * k scalars (TwoPass) when smaller (kept for the next call).
/// Calls on one plan must not overlap (the counters and `work` are shared).
template <class S, class Layout>
void lssm_apply(const LssmPlan& plan, const Operands<S, Layout>& op,
                Kokkos::View<S*, DefaultMemorySpace>& work);

}  // namespace mimd::spmm_impl
