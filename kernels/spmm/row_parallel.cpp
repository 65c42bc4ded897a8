#include "spmm/row_parallel.hpp"

namespace mimd::spmm_impl {

template <class S, class Layout>
void row_parallel_apply(const Operands<S, Layout>& op) {
  Kokkos::parallel_for(
      "mimd::spmm::row_parallel", Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(0, op.a.m),
      KOKKOS_LAMBDA(std::int64_t i) {
        for (std::int64_t t = 0; t < op.k; ++t)
          op.c(i, t) = op.beta == S(0) ? S(0) : op.beta * op.c(i, t);
        for (std::int64_t j = op.a.row_map[i]; j < op.a.row_map[i + 1]; ++j) {
          const S v = op.alpha * op.a.val[j];
          const std::int64_t col = op.a.col[j];
          for (std::int64_t t = 0; t < op.k; ++t) op.c(i, t) += v * op.b(col, t);
        }
      });
}

template void row_parallel_apply(const Operands<float, Kokkos::LayoutLeft>&);
template void row_parallel_apply(const Operands<float, Kokkos::LayoutRight>&);
template void row_parallel_apply(const Operands<double, Kokkos::LayoutLeft>&);
template void row_parallel_apply(const Operands<double, Kokkos::LayoutRight>&);

}  // namespace mimd::spmm_impl
