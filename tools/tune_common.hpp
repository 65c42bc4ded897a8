// What mimd-tune and mimd-tune-report share: the training and evaluation subsets of the
// real matrices (named in the README), and one timed SpMM measurement.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include "mimd/spmm.hpp"

namespace mimd::tune {

using Clock = std::chrono::steady_clock;

/// The real matrices mimd-tune may read.
inline const char* const kTraining[] = {"1138_bus", "3elt",     "G51",        "bayer10",
                                        "cage8",    "dwt_2680", "lp_ship04l", "olm1000",
                                        "west0479", "young1c",  "zenios",     "ash219"};
/// The real matrices profiles are judged on (mimd-tune-report); the tuner never reads them.
inline const char* const kEvaluation[] = {
    "adder_dcop_05", "bcspwr10", "bcsstk13",       "bcsstk21",       "bcsstk33",
    "bcsstm25",      "ca-GrQc",  "commanche_dual", "crack",          "Erdos971",
    "ex6",           "fe_4elt2", "hangGlider_2",   "jagmesh7",       "jazz",
    "karate",        "lp_afiro", "lp_e226",        "luxembourg_osm", "Pd",
    "rajat01",       "rajat19",  "watt_2",         "west0067"};

inline double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// A matrix on the device and the coefficient of variation of its row lengths
/// (mimd::row_stats).
struct Input {
  std::string name;
  Csr<double> a;
  double cv = 0;
};

/// Best of `reps` seconds of one SpMM call C = A * B (after a warm-up call) with the
/// context's current profile.
template <class Layout>
double time_spmm(const ExecutionContext& ctx, const Input& in, int k, SpmmAlgorithm alg,
                 int reps = 3) {
  Dense<double, Layout> b("B", in.a.ncols, k), c("C", in.a.nrows, k);
  Kokkos::deep_copy(b, 1.0);
  SpmmOptions o;
  o.algorithm = alg;
  const SpmmPlan<double, Layout> plan(ctx, in.a, k, o);
  plan.apply(1.0, in.a, b, 0.0, c);
  Kokkos::fence();
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < reps; ++r) {
    const auto t = Clock::now();
    plan.apply(1.0, in.a, b, 0.0, c);
    Kokkos::fence();
    best = std::min(best, seconds_since(t));
  }
  return best;
}

}  // namespace mimd::tune
