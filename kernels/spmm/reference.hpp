// Reference SpMM: sequential, obviously correct; every other algorithm is tested
// against it. One work item on the execution space walks every row, and for every
// column t forms sum_j A(i, j) * B(j, t) before scaling (the textbook definition).
#pragma once

#include "spmm/common.hpp"

namespace mimd::spmm_impl {

template <class S, class Layout>
void reference_apply(const Operands<S, Layout>& op);

}  // namespace mimd::spmm_impl
