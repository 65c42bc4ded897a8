// mimd-tune: measures this device and writes its tuning profile (mimd/tuning.hpp),
// keyed by the device fingerprint, where every ExecutionContext looks for it.
//
// Within --budget seconds (wall): micro-probes (10%), a coordinate search of the SpMM
// knobs (60%), then Auto's rule fitted on the same inputs (the rest). The inputs are
// generated matrices and the *training* subset of the real matrices (tune_common.hpp,
// named in the README); the *evaluation* subset, on which the benchmark reports the
// profile, is never read. A knob moves only when the training geomean gains more than
// kMinGain, so measurement noise does not walk it away from the derived default.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <functional>
#include <iostream>
#include <limits>
#include <numeric>
#include <random>

#include "mimd/context.hpp"
#include "mimd/datasets.hpp"
#include "mimd/error.hpp"
#include "mimd/generators.hpp"
#include "mimd/io.hpp"
#include "mimd/spmm.hpp"
#include "tune_common.hpp"

namespace {

using mimd::SpmmAlgorithm;
using mimd::tune::Clock;
using mimd::tune::Config;
using mimd::tune::Input;
using mimd::tune::kTraining;
using mimd::tune::Operands;
using mimd::tune::seconds_since;
using mimd::tune::time_interleaved;
using mimd::tune::time_repeated;

/// Generated training inputs: a skewed and a regular matrix.
const char* const kGenerated[] = {"powerlaw:20000:16", "stencil3d:24"};
const int kKs[] = {1, 8, 32, 128};
const int kLeftKs[] = {8, 32, 128};
constexpr double kMinGain = 0.03;
constexpr int kMaxPasses = 4;
constexpr int kRounds = 5;   ///< interleaved rounds per measurement; the fastest sample counts
constexpr int kRepeats = 5;  ///< sets of rounds for Auto's rule (the median counts)

/// Sum over the inputs and `ks` of log(time under `cand` / time under `inc`), LSSM, the
/// two timed side by side (tune_common.hpp); negative when `cand` is faster. Returns +inf
/// when the deadline passes midway (the candidate is then not taken). Leaves the
/// context's profile at `inc` (taken by value: the caller's is often the context's own).
template <class Layout, std::size_t N>
double log_ratio(mimd::ExecutionContext& ctx, const std::vector<Input>& inputs,
                 const mimd::TuningProfile inc, const mimd::TuningProfile cand, const int (&ks)[N],
                 Clock::time_point deadline) {
  double sum = 0;
  for (const auto& in : inputs)
    for (int k : ks) {
      if (Clock::now() > deadline) {
        ctx.tuning() = inc;
        return std::numeric_limits<double>::infinity();
      }
      auto ops = std::make_shared<Operands>(in, k);
      ctx.tuning() = inc;
      const Config<Layout> a(ctx, in, ops, SpmmAlgorithm::Lssm);
      ctx.tuning() = cand;
      const Config<Layout> b(ctx, in, ops, SpmmAlgorithm::Lssm);
      ctx.tuning() = inc;
      const auto t = time_interleaved({&a, &b}, kRounds);
      sum += std::log(t[1] / t[0]);
    }
  return sum;
}

// ---- probes ----------------------------------------------------------------------------

template <class F>
double best_seconds(int reps, F&& f) {
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < reps; ++r) {
    const auto t = Clock::now();
    f();
    Kokkos::fence();
    best = std::min(best, seconds_since(t));
  }
  return best;
}

void probe(mimd::TuningProfile& p, mimd::ExecutionContext& ctx, const Input& stencil) {
  using Exec = Kokkos::DefaultExecutionSpace;
  const int threads = ctx.num_threads();
  const std::int64_t n = std::int64_t(1) << 23;  // 64 MiB per array: past any L3 here
  Kokkos::View<double*> x("x", n), y("y", n), z("z", n);
  Kokkos::deep_copy(x, 1.0);
  Kokkos::deep_copy(y, 2.0);
  const double copy = best_seconds(5, [&] {
    Kokkos::parallel_for(
        "mimd::tune::copy", Kokkos::RangePolicy<Exec>(0, n),
        KOKKOS_LAMBDA(std::int64_t i) { z(i) = x(i); });
  });
  const double triad = best_seconds(5, [&] {
    Kokkos::parallel_for(
        "mimd::tune::triad", Kokkos::RangePolicy<Exec>(0, n),
        KOKKOS_LAMBDA(std::int64_t i) { z(i) = x(i) + 3.0 * y(i); });
  });
  p.probes.emplace_back("stream_copy_gbs", 2.0 * 8 * n / copy / 1e9);
  p.probes.emplace_back("stream_triad_gbs", 3.0 * 8 * n / triad / 1e9);

  const std::int64_t ops = 1 << 20;
  Kokkos::View<double*> slots("slots", 8 * static_cast<std::size_t>(threads));
  double* const s = slots.data();
  const double own = best_seconds(3, [&] {
    Kokkos::parallel_for(
        "mimd::tune::atomic_own", Kokkos::RangePolicy<Exec>(0, threads), KOKKOS_LAMBDA(int t) {
          for (std::int64_t i = 0; i < ops; ++i) Kokkos::atomic_add(&s[8 * t], 1.0);
        });
  });
  const double shared = best_seconds(3, [&] {
    Kokkos::parallel_for(
        "mimd::tune::atomic_shared", Kokkos::RangePolicy<Exec>(0, threads), KOKKOS_LAMBDA(int) {
          for (std::int64_t i = 0; i < ops; ++i) Kokkos::atomic_add(&s[0], 1.0);
        });
  });
  Kokkos::View<std::int64_t> counter("counter");
  std::int64_t* const cnt = counter.data();
  const double fetch = best_seconds(3, [&] {
    Kokkos::parallel_for(
        "mimd::tune::fetch_add", Kokkos::RangePolicy<Exec>(0, threads), KOKKOS_LAMBDA(int) {
          for (std::int64_t i = 0; i < ops; ++i) Kokkos::atomic_fetch_add(cnt, std::int64_t(1));
        });
  });
  p.probes.emplace_back("atomic_add_f64_uncontended_ns", own / ops * 1e9);
  p.probes.emplace_back("atomic_add_f64_contended_ns", shared / ops * 1e9);
  p.probes.emplace_back("work_counter_fetch_add_ns", fetch / ops * 1e9);

  // Dependent loads: a random cycle through 64 MiB, one thread.
  std::vector<std::int64_t> next(static_cast<std::size_t>(n));
  std::iota(next.begin(), next.end(), 0);
  std::mt19937_64 gen(7);
  for (std::int64_t i = n - 1; i > 0; --i)  // Sattolo: one cycle through every slot
    std::swap(next[i], next[std::uniform_int_distribution<std::int64_t>(0, i - 1)(gen)]);
  const std::int64_t steps = 1 << 21;
  std::int64_t at = 0;
  const auto t = Clock::now();
  for (std::int64_t i = 0; i < steps; ++i) at = next[static_cast<std::size_t>(at)];
  const double chase = seconds_since(t);
  volatile std::int64_t keep = at;  // the chase's result is used, so it is not elided
  (void)keep;
  p.probes.emplace_back("dependent_load_ns", chase / steps * 1e9);

  // Scratch vs direct, and the k loop per SIMD width: LSSM on the stencil at k = 32.
  mimd::TuningProfile& live = ctx.tuning();
  const mimd::TuningProfile saved = live;
  const double flops = 2.0 * static_cast<double>(stencil.a.nnz()) * 32;
  auto dense = std::make_shared<Operands>(stencil, 32);
  std::vector<std::unique_ptr<Config<Kokkos::LayoutRight>>> configs;
  std::vector<std::string> names;
  for (bool scratch : {false, true}) {
    live.spmm_use_scratch = scratch;
    configs.push_back(
        std::make_unique<Config<Kokkos::LayoutRight>>(ctx, stencil, dense, SpmmAlgorithm::Lssm));
    names.push_back(scratch ? "lssm_scratch_gflops" : "lssm_direct_gflops");
  }
  live = saved;
  for (int w : mimd::built_simd_widths()) {
    if (mimd::effective_simd_width(w) != w) continue;
    live.simd_bytes = w;
    configs.push_back(
        std::make_unique<Config<Kokkos::LayoutRight>>(ctx, stencil, dense, SpmmAlgorithm::Lssm));
    names.push_back("kloop_gflops_simd" + std::to_string(w * 8));
  }
  live = saved;
  std::vector<const mimd::tune::Timed*> timed;
  for (const auto& c : configs) timed.push_back(c.get());
  const auto sec = time_interleaved(timed, kRounds);
  for (std::size_t i = 0; i < sec.size(); ++i)
    p.probes.emplace_back(names[i], flops / sec[i] / 1e9);
}

// ---- Auto's rule -----------------------------------------------------------------------

/// Auto's rule: one algorithm, or a split on row_parallel's row-split imbalance into
/// two, whichever has the least squared log-time loss against the per-input best over
/// every training input and k: squared, so that one input left at 0.8x of its best weighs
/// more than many within noise. A split must gain more than kMinGain^2 per measurement
/// over the single algorithm; its threshold lies halfway between the two training inputs
/// it separates. One rule for every k: what row_parallel loses is its heaviest range's
/// share of the work, whatever k, and fitted per k class from the same dozen matrices the
/// threshold moved from run to run with the noise of the few inputs near it.
/// The split is on the imbalance, not on the coefficient of variation of the row lengths:
/// a high variation need not load the static ranges unevenly (long rows spread over the
/// matrix) nor a low one keep them even (a denser half).
void fit_auto_rule(mimd::TuningProfile& p, const mimd::ExecutionContext& ctx,
                   const std::vector<Input>& inputs, Clock::time_point deadline) {
  const SpmmAlgorithm algs[] = {SpmmAlgorithm::Lssm, SpmmAlgorithm::MergePath,
                                SpmmAlgorithm::RowParallel};
  constexpr int kAlgs = 3;
  std::vector<std::array<double, kAlgs>> loss;  // log(time / best time), per input and k
  std::vector<double> feature;                  // the input's row-split imbalance
  for (int k : kKs)
    for (const auto& in : inputs) {
      if (Clock::now() > deadline) break;
      auto ops = std::make_shared<Operands>(in, k);
      const Config<Kokkos::LayoutRight> c0(ctx, in, ops, algs[0]), c1(ctx, in, ops, algs[1]),
          c2(ctx, in, ops, algs[2]);
      const auto sec = time_repeated({&c0, &c1, &c2}, kRounds, kRepeats);
      const double best = *std::min_element(sec.begin(), sec.end());
      loss.push_back({std::log(sec[0] / best), std::log(sec[1] / best), std::log(sec[2] / best)});
      feature.push_back(in.imbalance);
    }
  p.auto_rule.rows.clear();
  if (loss.empty()) return;
  const double inf = std::numeric_limits<double>::infinity();
  // Squared loss of algorithm a on the measurements whose imbalance lies in (lo, hi].
  auto cost = [&](int a, double lo, double hi) {
    double sum = 0;
    for (std::size_t i = 0; i < loss.size(); ++i)
      if (feature[i] > lo && feature[i] <= hi) sum += loss[i][a] * loss[i][a];
    return sum;
  };
  int single = 0;
  for (int a = 1; a < kAlgs; ++a)
    if (cost(a, -inf, inf) < cost(single, -inf, inf)) single = a;
  double best = cost(single, -inf, inf) - kMinGain * kMinGain * static_cast<double>(loss.size());
  int below = single, above = single;
  double cut = inf;
  std::vector<double> v = feature;
  std::sort(v.begin(), v.end());
  for (std::size_t i = 0; i + 1 < v.size(); ++i) {
    if (v[i] == v[i + 1]) continue;
    const double t = (v[i] + v[i + 1]) / 2;
    for (int a = 0; a < kAlgs; ++a)
      for (int b = 0; b < kAlgs; ++b) {
        const double c = cost(a, -inf, t) + cost(b, t, inf);
        if (a != b && c < best) {
          best = c;
          cut = t;
          below = a;
          above = b;
        }
      }
  }
  mimd::AutoRule::Row r;
  r.k_max = std::numeric_limits<int>::max();
  r.cv_max = 1e9;
  if (cut < inf) {
    r.imbalance_max = cut;
    r.algorithm = mimd::to_string(algs[below]);
    p.auto_rule.rows.push_back(r);
  }
  r.imbalance_max = 1e9;
  r.algorithm = mimd::to_string(algs[above]);
  p.auto_rule.rows.push_back(r);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"mimd-tune: measure this device and write its tuning profile"};
  double budget = 60;
  std::string out;
  int threads = 0;
  app.add_option("--budget", budget, "wall seconds the search may take (default 60)")
      ->check(CLI::PositiveNumber);
  app.add_option("--out", out,
                 "profile file (default: the user cache folder, where contexts look for it)");
  app.add_option("--threads", threads, "worker threads (default: one per core)");
  CLI11_PARSE(app, argc, argv);
  const auto start = Clock::now();
  const auto at = [&](double share) {
    return start + std::chrono::duration_cast<Clock::duration>(
                       std::chrono::duration<double>(budget * share));
  };
  try {
    mimd::ContextOptions copt;
    copt.num_threads = threads;
    mimd::ExecutionContext ctx(copt);
    // The search starts from the derived defaults, whatever profile the context found.
    mimd::TuningProfile& live = ctx.tuning();
    live = mimd::default_profile(ctx.topology(), ctx.backend());
    mimd::TuningProfile p = live;
    p.fingerprint = ctx.fingerprint();
    p.name = "tuned-" + mimd::fingerprint_hash(p.fingerprint);
    if (out.empty()) out = mimd::profile_cache_path(p.fingerprint);
    if (out.empty())
      throw mimd::InvalidArgument("mimd-tune: no HOME or XDG_CACHE_HOME: give --out");

    std::vector<Input> inputs;
    auto add = [&](const std::string& name, const mimd::HostCsr<double>& h) {
      inputs.push_back(mimd::tune::make_input(name, h, ctx.num_threads()));
    };
    for (const char* g : kGenerated) add(g, mimd::generate(g));
    for (const char* name : kTraining) {
      if (seconds_since(start) > 0.1 * budget) break;
      try {
        add(name, mimd::read_matrix<double>(mimd::find_dataset(name)));
      } catch (const mimd::Error&) {
        // not in this machine's dataset folders, or not a real matrix: tune on the others
      }
    }
    std::cerr << "mimd-tune: " << inputs.size() << " training inputs, budget " << budget << " s\n";

    probe(p, ctx, inputs[1]);
    std::cerr << "mimd-tune: probes done at " << seconds_since(start) << " s\n";

    // Coordinate search from the derived defaults.
    const auto search_end = at(0.7);
    struct Axis {
      const char* name;
      std::vector<std::function<void(mimd::TuningProfile&)>> values;
    };
    std::vector<Axis> axes;
    {
      Axis simd{"simd_bytes", {}};
      for (int w : mimd::built_simd_widths())
        if (mimd::effective_simd_width(w) == w)
          simd.values.push_back([w](mimd::TuningProfile& q) { q.simd_bytes = w; });
      axes.push_back(simd);
      Axis tile{"spmm_k_tile", {}};
      for (int t : {8, 16, 32, 64})
        tile.values.push_back([t](mimd::TuningProfile& q) { q.spmm_k_tile = t; });
      axes.push_back(tile);
      Axis block{"spmm_block_nnz", {}};
      for (int b : {512, 1024, 2048, 4096, 8192})
        block.values.push_back([b](mimd::TuningProfile& q) { q.spmm_block_nnz = b; });
      axes.push_back(block);
      Axis units{"spmm_units_per_thread", {}};
      for (int u : {1, 2, 4, 8, 16})
        units.values.push_back([u](mimd::TuningProfile& q) { q.spmm_units_per_thread = u; });
      axes.push_back(units);
      axes.push_back(
          {"spmm_combine",
           {[](mimd::TuningProfile& q) { q.spmm_combine = mimd::SplitCombine::Atomic; },
            [](mimd::TuningProfile& q) { q.spmm_combine = mimd::SplitCombine::TwoPass; }}});
      axes.push_back({"spmm_use_scratch",
                      {[](mimd::TuningProfile& q) { q.spmm_use_scratch = true; },
                       [](mimd::TuningProfile& q) { q.spmm_use_scratch = false; }}});
    }
    // Passes over the axes while the search's share of the budget lasts, until one
    // moves nothing. Every candidate is timed side by side with the incumbent and must
    // beat it by kMinGain per measurement (geomean).
    const double need = kMinGain * static_cast<double>(inputs.size() * std::size(kKs));
    for (int pass = 0; pass < kMaxPasses && Clock::now() < search_end; ++pass) {
      bool moved = false;
      for (const auto& axis : axes) {
        for (const auto& set : axis.values) {
          mimd::TuningProfile cand = live;
          set(cand);
          if (cand.to_json() == live.to_json()) continue;
          if (log_ratio<Kokkos::LayoutRight>(ctx, inputs, live, cand, kKs, search_end) < -need) {
            live = cand;
            moved = true;
          }
        }
        std::cerr << "mimd-tune: pass " << pass + 1 << ", " << axis.name << " done at "
                  << seconds_since(start) << " s\n";
      }
      if (!moved) break;
    }
    // LayoutLeft: B read in place (Tile) or packed (Pack) at each k > 1 (k = 1 runs the
    // row-major kernel); packing from the smallest k from which it wins at every larger k.
    if (Clock::now() < search_end) {
      const mimd::TuningProfile base = live;
      mimd::TuningProfile tile = base, pack = base;
      tile.spmm_left_strategy = mimd::LeftStrategy::Tile;
      pack.spmm_left_strategy = mimd::LeftStrategy::Pack;
      pack.spmm_left_pack_min_k = 2;
      int min_k = std::numeric_limits<int>::max();
      for (std::size_t i = std::size(kLeftKs); i-- > 0;) {
        const int k[] = {kLeftKs[i]};
        if (!(log_ratio<Kokkos::LayoutLeft>(ctx, inputs, tile, pack, k, search_end) < 0)) break;
        min_k = kLeftKs[i];
      }
      live = base;
      live.spmm_left_strategy = min_k == std::numeric_limits<int>::max() ? mimd::LeftStrategy::Tile
                                                                         : mimd::LeftStrategy::Pack;
      // Halfway (in log scale) down to the next k measured below: 16 for a win from 32.
      if (min_k != std::numeric_limits<int>::max())
        live.spmm_left_pack_min_k = min_k == kLeftKs[0] ? 2 : std::max(2, min_k / 2);
    }
    fit_auto_rule(live, ctx, inputs, at(0.95));
    const auto probes = p.probes;
    p = live;
    p.fingerprint = ctx.fingerprint();
    p.name = "tuned-" + mimd::fingerprint_hash(p.fingerprint);
    p.probes = probes;
    p.probes.emplace_back("tuner_wall_s", seconds_since(start));
    mimd::validate_profile(p, "mimd-tune");
    mimd::save_profile(p, out);
    std::cerr << "mimd-tune: wrote " << out << " after " << seconds_since(start) << " s\n";
    std::cout << p.to_json() << "\n";
  } catch (const mimd::Error& e) {
    std::cerr << "mimd-tune: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
