// The rule (measured on a 2-core Zen 4, see the spmm commit messages and the report):
//  - LSSM is chosen for every matrix: with the register-tiled micro-kernel and units of
//    balanced weight it is at least as fast as merge path and row-parallel on regular
//    matrices and much faster on skewed ones (longest row >> mean), where row-parallel
//    leaves one thread with the long rows.
//  - Block size: the profile's spmm_block_nnz, halved while the matrix would give
//    fewer than spmm_units_per_thread units per thread (lssm_default_block), so that
//    small matrices still balance; a row longer than the block is split.
//  - For k above the profile's tile, the work per nonzero grows with k, so the block
//    is halved once more (down to 16) to keep at least as many units per thread when
//    the matrix is short (m * k small), which the dynamic counter then balances.
#include "spmm/auto.hpp"

#include <algorithm>

#include "spmm/lssm.hpp"

namespace mimd::spmm_impl {

AutoChoice choose_algorithm(const RowStats& stats, std::int64_t k, const TuningProfile& profile,
                            int threads) {
  AutoChoice choice;
  choice.algorithm = SpmmAlgorithm::Lssm;
  int block = lssm_default_block(stats.nrows, stats.nnz, k, profile, threads);
  choice.block_nnz = block;
  return choice;
}

}  // namespace mimd::spmm_impl
