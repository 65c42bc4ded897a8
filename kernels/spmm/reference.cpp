// Reference SpMM: sequential, obviously correct; every other algorithm is tested
// against it. One work item on the execution space walks every row, and for every
// column t forms sum_j A(i, j) * B(j, t) before scaling (the textbook definition).
#include "spmm/kernels.hpp"

namespace mimd::spmm_detail {

template <class S, class L>
MIMD_SPMM_DECLARE_REFERENCE(S, L) {
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

MIMD_SPMM_INSTANTIATE(MIMD_SPMM_DECLARE_REFERENCE)

}  // namespace mimd::spmm_detail
