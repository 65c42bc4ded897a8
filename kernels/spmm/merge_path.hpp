// Merge-path SpMM (Merrill & Garland, "Merge-based parallel sparse matrix-vector
// multiplication", SC'16). The path merges the m row ends with the nnz nonzeros; it is
// cut into shares of equal length (rows + nonzeros), so every share carries the same
// work whatever the row lengths. The inspector finds each share's start (row, nonzero)
// by a binary search along its diagonal. A share writes the rows that end inside it
// (C = alpha * sum + beta * C) and leaves the partial sum of the row still open at its
// end in a carry slot; a sequential fix-up adds alpha * carry to those rows (a row may
// span several shares: each of them carries).
#pragma once

#include <cstdint>

#include "mimd/csr.hpp"
#include "spmm/common.hpp"

namespace mimd::spmm_impl {

struct MergePathPlan {
  std::int64_t nshares = 0;
  /// nshares + 1 path coordinates: share s covers rows [start_row(s), start_row(s+1)]
  /// and nonzeros [start_nz(s), start_nz(s+1)).
  Kokkos::View<std::int64_t*, DefaultMemorySpace> start_row, start_nz;
};

/// @param row_map  the m + 1 offsets, on the host
MergePathPlan merge_path_inspect(const std::int64_t* row_map, std::int64_t m, std::int64_t nshares);

/// `work` is grown to nshares * k scalars when smaller (kept for the next call).
template <class S, class Layout>
void merge_path_apply(const MergePathPlan& plan, const Operands<S, Layout>& op,
                      Kokkos::View<S*, DefaultMemorySpace>& work);

}  // namespace mimd::spmm_impl
