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
// So, in the derived defaults (a profile without an auto_rule):
//  - LSSM for every matrix. Its units have balanced weight whatever the row lengths
//    (so it keeps its lead on skewed matrices, longest row >> mean, where
//    row_parallel leaves one thread with the long rows) and it pays no fix-up pass.
//  - Block size: lssm_default_block: the profile's spmm_block_nnz, halved while the
//    matrix gives fewer than spmm_units_per_thread units per thread, but not below
//    max(spmm_block_floor, spmm_block_floor_work / k) nonzeros (64, 8192), so that a unit always
//    carries enough multiply-adds to pay for its hand-out (tiny matrices at small k run as one or
//    two units).
// A profile measured on the device (mimd-tune) carries a rule fitted on its training
// inputs (TuningProfile::auto_rule): a decision list over k and the row-split imbalance
// (row_split_imbalance: the heaviest of row_parallel's static ranges over the mean), which
// is where the algorithms part ways: row_parallel pays nothing for scheduling and wins
// on evenly loaded ranges (small or regular matrices), but on a 2-core Xeon lost 15-25% at
// imbalances of 1.15-1.25 (bcsstk13, crack, bcspwr10) to LSSM and merge_path, which
// balance the nonzeros whatever the ranges hold. (The coefficient of variation of the
// row lengths, which a rule may also test, did not tell these apart: bcsstk13's is 0.54.)
#include "mimd/csr.hpp"
#include "spmm/kernels.hpp"

namespace mimd::spmm_detail {

MatrixFeatures matrix_features(const std::int64_t* row_map, std::int64_t m, std::int64_t k,
                               int threads) {
  const RowStats s = row_stats(row_map, m);
  MatrixFeatures f;
  f.m = m;
  f.nnz = s.nnz;
  f.k = k;
  f.max_row = s.max_row;
  f.cv = s.cv;
  f.imbalance = row_split_imbalance(row_map, m, std::max(1, threads));
  return f;
}

AutoChoice choose_algorithm(const MatrixFeatures& f, const TuningProfile& profile, int threads) {
  AutoChoice choice;
  choice.algorithm = kAutoFallback;
  for (const auto& row : profile.auto_rule.rows) {
    if (f.k > row.k_max || f.cv > row.cv_max || f.imbalance > row.imbalance_max ||
        static_cast<double>(f.nnz) > row.nnz_max ||
        static_cast<double>(f.max_row) > row.max_row_max)
      continue;
    choice.algorithm = spmm_algorithm_from_string(row.algorithm);
    break;
  }
  if (choice.algorithm == SpmmAlgorithm::Lssm)
    choice.block_nnz = lssm_default_block(f.m, f.nnz, f.k, profile, threads);
  return choice;
}

}  // namespace mimd::spmm_detail
