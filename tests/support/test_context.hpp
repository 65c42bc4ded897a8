// Shared helpers of the test suite.
#pragma once

#include "mimd/context.hpp"

namespace mimd::testing {

/// The process-wide context of the test programs (created on first use).
inline ExecutionContext& context() {
  static ExecutionContext ctx{};
  return ctx;
}

}  // namespace mimd::testing
