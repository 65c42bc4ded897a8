// Row-parallel SpMM, the common CPU baseline: one row of A per work item (the
// runtime's default schedule), C's row scaled by beta and then updated in place with
// alpha * A(i, j) * B(j, :) for every nonzero, k a run-time trip count. It is what
// most codes write first; LSSM is measured against it.
#pragma once

#include "spmm/common.hpp"

namespace mimd::spmm_impl {

template <class S, class Layout>
void row_parallel_apply(const Operands<S, Layout>& op);

}  // namespace mimd::spmm_impl
