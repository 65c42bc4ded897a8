// Row-parallel SpMM, the common CPU baseline: the rows are cut into one contiguous
// range of equal row count per worker (OpenMP's schedule(static); for column-major C at
// multiples of row_group, common.hpp), each range computed
// by the register-tiled micro-kernel that LSSM runs on its merged units (whole_rows,
// common.hpp). The two differ in scheduling alone, so lssm vs row_parallel measures
// what LSSM's units of equal nonzero weight, its split long rows and its work stealing
// are worth.
#include <algorithm>

#include "spmm/kernels.hpp"

namespace mimd::spmm_detail {

template <class S, class L>
MIMD_SPMM_DECLARE_ROW_PARALLEL(S, L) {
  using Exec = Kokkos::DefaultExecutionSpace;
  const std::int64_t m = op.a.m;
  const std::int64_t workers =
      std::max<std::int64_t>(1, std::min<std::int64_t>(Exec().concurrency(), m));
  constexpr std::int64_t g = row_group<L>();
  Kokkos::parallel_for(
      "mimd::spmm::row_parallel", Kokkos::RangePolicy<Exec>(0, workers),
      KOKKOS_LAMBDA(std::int64_t w) {
        const std::int64_t r0 = w * m / workers / g * g;
        const std::int64_t r1 = w + 1 == workers ? m : (w + 1) * m / workers / g * g;
        whole_rows(op, r0, r1, op.a.val, op.a.col, 0);
      });
}

MIMD_SPMM_INSTANTIATE(MIMD_SPMM_DECLARE_ROW_PARALLEL)

}  // namespace mimd::spmm_detail
