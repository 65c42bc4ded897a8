#include "spmm/reference.hpp"

namespace mimd::spmm_impl {

template <class S, class Layout>
void reference_apply(const Operands<S, Layout>& op) {
  Kokkos::parallel_for(
      "mimd::spmm::reference", Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(0, 1),
      KOKKOS_LAMBDA(int) {
        for (std::int64_t i = 0; i < op.a.m; ++i) {
          for (std::int64_t t = 0; t < op.k; ++t) {
            S sum = 0;
            for (std::int64_t j = op.a.row_map[i]; j < op.a.row_map[i + 1]; ++j)
              sum += op.a.val[j] * op.b(op.a.col[j], t);
            op.c(i, t) = op.beta == S(0) ? op.alpha * sum : op.alpha * sum + op.beta * op.c(i, t);
          }
        }
      });
}

template void reference_apply(const Operands<float, Kokkos::LayoutLeft>&);
template void reference_apply(const Operands<float, Kokkos::LayoutRight>&);
template void reference_apply(const Operands<double, Kokkos::LayoutLeft>&);
template void reference_apply(const Operands<double, Kokkos::LayoutRight>&);

}  // namespace mimd::spmm_impl
