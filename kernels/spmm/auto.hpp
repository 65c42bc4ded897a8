// Auto: picks the SpMM algorithm and the LSSM block size from the matrix's row-length
// statistics, k and the device profile. The rule and the measurements behind it are
// documented in auto.cpp.
#pragma once

#include "mimd/csr.hpp"
#include "mimd/spmm.hpp"
#include "mimd/tuning.hpp"

namespace mimd::spmm_impl {

struct AutoChoice {
  SpmmAlgorithm algorithm = SpmmAlgorithm::Lssm;
  int block_nnz = 0;  ///< LSSM block size (0 when another algorithm is chosen)
};

AutoChoice choose_algorithm(const RowStats& stats, std::int64_t k, const TuningProfile& profile,
                            int threads);

}  // namespace mimd::spmm_impl
