// The rule, from measurements on a 2-core Zen 4 (AVX-512), double, LayoutRight, best
// of 150 batches, GFLOP/s (row_parallel / merge_path / lssm):
//   k = 32:  geomean over 11 matrices 23 / 48 / 56; every one of 35 SuiteSparse
//            matrices had lssm >= row_parallel once the block floor below was in place;
//   k = 128: 19 / 40 / 36 (merge path ahead only where L3 contention by other
//            processes made single runs bimodal); k = 1: 1.2 / 3.9 / 5.8.
// (row_parallel and merge_path then had micro-kernels of their own.) On the shared
// micro-kernel (same machine, 6 SuiteSparse matrices, time relative to lssm, geomean of
// medians, k = 1 / 8 / 32): row_parallel 0.99 / 1.19 / 1.14, merge_path 1.02 / 1.00 /
// 1.07: lssm is level with them on regular matrices and ahead on skewed ones
// (coAuthorsDBLP, k = 8 / 32: row_parallel 1.45 / 1.65).
// So:
//  - LSSM for every matrix. Its units have balanced weight whatever the row lengths
//    (so it keeps its lead on skewed matrices, longest row >> mean, where
//    row_parallel leaves one thread with the long rows) and it pays no fix-up pass.
//  - Block size: lssm_default_block: the profile's spmm_block_nnz, halved while the
//    matrix gives fewer than spmm_units_per_thread units per thread, but not below
//    max(64, 8192 / k) nonzeros, so that a unit always carries enough multiply-adds to
//    pay for its hand-out (tiny matrices at small k run as one or two units).
// The row-length statistics (mean, longest row, coefficient of variation) only matter
// through the block, where LSSM's inspector sees them row by row (a row longer than the
// block is split), so the rule reads m and nnz alone; a rule that needs them would take
// mimd::row_stats (mimd/csr.hpp).
#include "spmm/kernels.hpp"

namespace mimd::spmm_detail {

AutoChoice choose_algorithm(std::int64_t m, std::int64_t nnz, std::int64_t k,
                            const TuningProfile& profile, int threads) {
  AutoChoice choice;
  choice.algorithm = SpmmAlgorithm::Lssm;
  choice.block_nnz = lssm_default_block(m, nnz, k, profile, threads);
  return choice;
}

}  // namespace mimd::spmm_detail
