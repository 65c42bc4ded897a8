// What mimd-tune and mimd-tune-report share: the training and evaluation subsets of the
// real matrices (named in the README), and the timing of SpMM configurations.
//
// Timing. Most of the real matrices take 1-50 us per call, where one timed call is at the
// mercy of the timer, an interrupt or the other tenant of a core. So a sample is a batch
// of back-to-back calls lasting at least kSampleSeconds (one call for slow inputs), and
// the configurations being compared are sampled in turn, round after round, each keeping
// its fastest sample: a slow spell of the machine then hits all of them alike rather than
// whichever happened to run during it. Configurations of one input and k share B and C
// (the same storage, whatever the layout); an untimed round comes first, and an untimed
// call before every sample.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "mimd/csr.hpp"
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

/// Shortest sample: calls are batched until one lasts this long.
constexpr double kSampleSeconds = 200e-6;

inline double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// A matrix on the device and the features Auto's rule reads of it: the coefficient of
/// variation of its row lengths and its longest row (mimd::row_stats), its row-split
/// imbalance over the context's threads (mimd::row_split_imbalance); nnz is the matrix's.
struct Input {
  std::string name;
  Csr<double> a;
  double cv = 0;
  double imbalance = 1;
  std::int64_t max_row = 0;
};

/// The Input of a host matrix, its features taken over `threads` workers.
inline Input make_input(const std::string& name, const HostCsr<double>& h, int threads) {
  const RowStats s = row_stats(h);
  return {name, to_memory_space<DefaultMemorySpace>(h), s.cv,
          row_split_imbalance(h.row_map.data(), h.nrows, threads), s.max_row};
}

/// The storage of B (n x k, all ones) and C (m x k) for one input and k, shared by every
/// configuration timed on them, whatever its layout (so that none finds the caches
/// holding arrays that the others do not use).
struct Operands {
  std::int64_t n, m, k;
  Kokkos::View<double*, DefaultMemorySpace> b, c;
  Operands(const Input& in, int k_)
      : n(in.a.ncols),
        m(in.a.nrows),
        k(k_),
        b("B", static_cast<std::size_t>(n * k)),
        c("C", static_cast<std::size_t>(m * k)) {
    Kokkos::deep_copy(b, 1.0);
  }
};

/// Something timed.
class Timed {
 public:
  virtual ~Timed() = default;
  /// Seconds per call over `calls` back-to-back calls, after one untimed call that brings
  /// its operands back into the caches (the previous sample may have been another
  /// configuration's, with another working set).
  double sample(int calls) const {
    run(1);
    const auto t = Clock::now();
    run(calls);
    return seconds_since(t) / calls;
  }

 private:
  /// `calls` calls, finished (fenced) on return.
  virtual void run(int calls) const = 0;
};

/// One configuration: a plan made with the context's profile as it is when the
/// configuration is made (a plan reads the profile then, never later).
template <class Layout>
class Config final : public Timed {
 public:
  Config(const ExecutionContext& ctx, const Input& in, std::shared_ptr<Operands> ops,
         SpmmAlgorithm alg)
      : a_(in.a), ops_(std::move(ops)), plan_(ctx, in.a, static_cast<int>(ops_->k), [&] {
          SpmmOptions o;
          o.algorithm = alg;
          return o;
        }()) {}
  const SpmmPlan<double, Layout>& plan() const { return plan_; }

 private:
  void run(int calls) const override {
    const bool right = std::is_same<Layout, Kokkos::LayoutRight>::value;
    const std::int64_t k = ops_->k, ldb = right ? k : ops_->n, ldc = right ? k : ops_->m;
    for (int i = 0; i < calls; ++i)
      plan_.apply(1.0, a_, k, ops_->b.data(), std::max<std::int64_t>(1, ldb), 0.0, ops_->c.data(),
                  std::max<std::int64_t>(1, ldc));
    Kokkos::fence();
  }
  Csr<double> a_;
  std::shared_ptr<Operands> ops_;
  SpmmPlan<double, Layout> plan_;
};

/// One parallel copy of B (n * k scalars) into a buffer of its size, and with `with_c` one of
/// C (m * k) too: the least a LayoutLeft strategy that moves B (and C) into another layout
/// adds to the call, a copy being no slower than the transpose such a strategy makes.
class CopyOperands final : public Timed {
 public:
  CopyOperands(std::shared_ptr<Operands> ops, bool with_c)
      : ops_(std::move(ops)),
        b_(Kokkos::ViewAllocateWithoutInitializing("B copy"), ops_->b.extent(0)),
        c_(Kokkos::ViewAllocateWithoutInitializing("C copy"), with_c ? ops_->c.extent(0) : 0) {}

 private:
  void run(int calls) const override {
    for (int i = 0; i < calls; ++i) {
      Kokkos::deep_copy(b_, ops_->b);
      if (c_.extent(0) > 0) Kokkos::deep_copy(c_, ops_->c);
    }
    Kokkos::fence();
  }
  std::shared_ptr<Operands> ops_;
  Kokkos::View<double*, DefaultMemorySpace> b_, c_;
};

/// Fastest seconds per call of each configuration over `rounds` interleaved rounds, after
/// an untimed one (the batch size is set from the slowest of them). Each round takes the
/// configurations in a new shuffled order: whatever one leaves behind (caches another
/// working set filled, a slow spell after a long or unbalanced call, measured to last 2-6
/// ms here) falls on a different next one each round, not always on the same (a fixed
/// order, even rotated, made a configuration that followed a copy of B 5% slower than the
/// same configuration elsewhere in the list).
inline std::vector<double> time_interleaved(const std::vector<const Timed*>& configs, int rounds) {
  double slowest = 0;
  for (const Timed* c : configs) slowest = std::max(slowest, c->sample(1));
  const int calls = static_cast<int>(
      std::clamp(std::ceil(kSampleSeconds / std::max(slowest, 1e-9)), 1.0, 10000.0));
  for (const Timed* c : configs) c->sample(calls);
  std::vector<double> best(configs.size(), std::numeric_limits<double>::infinity());
  std::vector<std::size_t> order(configs.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::mt19937 shuffle(12345);
  for (int r = 0; r < rounds; ++r) {
    std::shuffle(order.begin(), order.end(), shuffle);
    for (const std::size_t i : order) best[i] = std::min(best[i], configs[i]->sample(calls));
  }
  return best;
}

/// time_interleaved `repeats` times over: the median of each configuration's fastest
/// sample. A burst of other load that outlasts one set of rounds then moves the figure
/// only when it hits most of the sets.
inline std::vector<double> time_repeated(const std::vector<const Timed*>& configs, int rounds,
                                         int repeats) {
  std::vector<std::vector<double>> runs(configs.size());
  for (int r = 0; r < repeats; ++r) {
    const auto t = time_interleaved(configs, rounds);
    for (std::size_t i = 0; i < t.size(); ++i) runs[i].push_back(t[i]);
  }
  std::vector<double> median;
  for (auto& v : runs) {
    std::sort(v.begin(), v.end());
    median.push_back(v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2);
  }
  return median;
}

}  // namespace mimd::tune
