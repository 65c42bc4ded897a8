// What the micro-benchmark files of mimd-micro register besides micro_kernels.cpp's own.
#pragma once

#include <string>
#include <vector>

#include "mimd/tuning.hpp"

namespace mimd_micro {

/// Registers the left_cost family (layout_left.cpp) for two generated inputs and each
/// Matrix Market file in `matrices`, at k = 8, 32 and 128, with the SIMD width, tile,
/// LayoutLeft panels and pack chunk of `profile`.
/// @throws mimd::Error (typed, naming the file) when a file cannot be read
void register_layout_left(const mimd::TuningProfile& profile,
                          const std::vector<std::string>& matrices);

}  // namespace mimd_micro
