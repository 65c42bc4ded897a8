// Merge-path SpMM (Merrill & Garland, "Merge-based parallel sparse matrix-vector
// multiplication", SC'16). The path merges the m row ends with the nnz nonzeros; it is
// cut into shares of equal length (rows + nonzeros), so every share carries the same
// work whatever the row lengths. The inspector finds each share's start (row, nonzero)
// by a binary search along its diagonal. A share writes the rows that end inside it
// (C = alpha * sum + beta * C) and leaves the partial sum of the row still open at its
// end in a carry slot; a sequential fix-up adds alpha * carry to those rows (a row may
// span several shares: each of them carries). The rows go through the register-tiled
// micro-kernel LSSM uses (common.hpp: whole_rows for the rows the share holds whole,
// row_segment for a row begun in an earlier share), so merge_path and lssm differ in
// the partition of the work alone.
#include "spmm/kernels.hpp"

#include <algorithm>

namespace mimd::spmm_detail {

MergePathPlan merge_path_inspect(const std::int64_t* row_map, std::int64_t m,
                                 std::int64_t nshares) {
  const std::int64_t nnz = row_map[m];
  const std::int64_t path = m + nnz;
  MergePathPlan plan;
  plan.nshares = std::max<std::int64_t>(1, std::min(nshares, path));
  plan.start_row = decltype(plan.start_row)("mimd::spmm::merge_path::start_row", plan.nshares + 1);
  plan.start_nz = decltype(plan.start_nz)("mimd::spmm::merge_path::start_nz", plan.nshares + 1);
  auto rows = Kokkos::create_mirror_view(plan.start_row);
  auto nzs = Kokkos::create_mirror_view(plan.start_nz);
  for (std::int64_t s = 0; s <= plan.nshares; ++s) {
    const std::int64_t d = path * s / plan.nshares;
    // Largest i with i + j = d such that rows [0, i) end at or before nonzero j.
    std::int64_t lo = std::max<std::int64_t>(0, d - nnz), hi = std::min(d, m);
    while (lo < hi) {
      const std::int64_t pivot = (lo + hi) / 2;
      if (row_map[pivot + 1] <= d - pivot - 1)
        lo = pivot + 1;
      else
        hi = pivot;
    }
    rows(s) = lo;
    nzs(s) = d - lo;
  }
  Kokkos::deep_copy(plan.start_row, rows);
  Kokkos::deep_copy(plan.start_nz, nzs);
  return plan;
}

template <class S, class L>
MIMD_SPMM_DECLARE_MERGE_PATH(S, L) {
  const std::int64_t k = op.k;
  if (static_cast<std::int64_t>(work.extent(0)) < plan.nshares * k)
    work = Kokkos::View<S*, DefaultMemorySpace>(
        Kokkos::ViewAllocateWithoutInitializing("mimd::spmm::merge_path::carry"), plan.nshares * k);
  S* const carry = work.data();
  const std::int64_t* start_row = plan.start_row.data();
  const std::int64_t* start_nz = plan.start_nz.data();
  Kokkos::parallel_for(
      "mimd::spmm::merge_path", Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(0, plan.nshares),
      KOKKOS_LAMBDA(std::int64_t s) {
        const std::int64_t r0 = start_row[s], r1 = start_row[s + 1];
        const std::int64_t z0 = start_nz[s], z1 = start_nz[s + 1];
        std::int64_t first_whole = r0;
        if (r0 < r1 && z0 > op.a.row_map[r0]) {
          row_segment(op.a.val + z0, op.a.col + z0, op.a.row_map[r0 + 1] - z0, op.b, k, op.k_tile,
                      op.simd, StoreC<S, L>{op.c, r0, op.alpha, op.beta});
          first_whole = r0 + 1;
        }
        whole_rows(op, first_whole, r1, op.a.val, op.a.col, 0);
        // The row open at the end of the share: its partial sum is carried.
        const std::int64_t b = r1 == r0 ? z0 : (r1 < op.a.m ? op.a.row_map[r1] : z1);
        row_segment(op.a.val + b, op.a.col + b, z1 - b, op.b, k, op.k_tile, op.simd,
                    StoreBuf<S>{carry + s * k});
      });
  const S alpha = op.alpha;
  const auto c = op.c;
  const std::int64_t m = op.a.m, nshares = plan.nshares;
  Kokkos::parallel_for(
      "mimd::spmm::merge_path::fixup", Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(0, k),
      KOKKOS_LAMBDA(std::int64_t t) {
        for (std::int64_t s = 0; s < nshares; ++s) {
          const std::int64_t r = start_row[s + 1];
          if (r < m) c(r, t) += alpha * carry[s * k + t];
        }
      });
}

MIMD_SPMM_INSTANTIATE(MIMD_SPMM_DECLARE_MERGE_PATH)

}  // namespace mimd::spmm_detail
