// Internal integer helpers shared by the execution layer and the kernels.
#pragma once

#include <cstdint>

namespace mimd::core_detail {

/// The largest power of two not above `x`, capped at 2^30 so that it fits an int
/// (1 for x <= 1).
constexpr int pow2_floor(std::uint64_t x) {
  int p = 1;
  while (static_cast<std::uint64_t>(p) * 2 <= x && p < (1 << 30)) p *= 2;
  return p;
}

}  // namespace mimd::core_detail
