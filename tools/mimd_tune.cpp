// mimd-tune: measures this device and writes its tuning profile (mimd/tuning.hpp),
// keyed by the device fingerprint, where every ExecutionContext looks for it.
//
// Within --budget seconds (wall): micro-probes (10%), a coordinate search of the SpMM
// knobs (60%), the size below which a call runs in the calling thread (to 75%), the size
// below which LSSM hands its units out statically (to 85%), then Auto's rule fitted on
// the same inputs (the rest). The inputs are
// generated matrices and the *training* subset of the real matrices (tune_common.hpp,
// named in the README); the *evaluation* subset, on which the benchmark reports the
// profile, is never read. A knob moves only when the geomean of the training measurements
// whose plans it changes gains more than kMinGain, twice in a row, so measurement noise does
// not walk it away from the derived default.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <random>

#include "mimd/context.hpp"
#include "mimd/datasets.hpp"
#include "mimd/error.hpp"
#include "mimd/generators.hpp"
#include "mimd/io.hpp"
#include "mimd/spmm.hpp"
#include "tune_common.hpp"
#include "tune_fit.hpp"

namespace {

using mimd::SpmmAlgorithm;
using mimd::tune::Clock;
using mimd::tune::Config;
using mimd::tune::Input;
using mimd::tune::kMinGain;
using mimd::tune::kTraining;
using mimd::tune::Operands;
using mimd::tune::seconds_since;
using mimd::tune::time_interleaved;
using mimd::tune::time_repeated;

/// Generated training inputs: a skewed and a regular matrix; short rows with a few rows of
/// 3500-4000 nonzeros (as circuit matrices have: rajat, adder in the evaluation set), one
/// of them evenly split between the threads; a small even matrix of 6000 nonzeros; two banded
/// matrices of 48 and 64 Ki nonzeros whose rows lengthen from 5 to 11 and from 6 to 10
/// nonzeros, so that row_parallel's two static ranges carry 1.17 and 1.11 times the mean.
/// The last four fill gaps of the real training set where Auto's rule draws its cuts (an
/// even matrix with long rows; a small one between olm1000 and lp_ship04l; uneven ranges
/// with enough work for the imbalance to cost more than LSSM's hand-out, where the real set
/// has only cage8 and west0479, of 11 and 2 Ki nonzeros: without them, on a 2-core Zen 4 VM
/// the rule sent every matrix whose longest row is at most 13 or 27 to row_parallel, crack
/// and bcspwr10 among them, at imbalances of 1.15 and 1.19 0.81-0.86x of LSSM at k = 32).
const char* const kGenerated[] = {"powerlaw:20000:16",   "stencil3d:24",   "powerlaw:8000:6:3:4",
                                  "powerlaw:7000:6:3:2", "uniform:1500:4", "graded:6000:5:11",
                                  "graded:8000:6:10"};
const int kKs[] = {1, 8, 32, 128};
const int kLeftKs[] = {8, 32, 128};
const int kPanelKs[] = {32, 128};  ///< where a panel of B can be narrower than k
constexpr int kMaxPasses = 4;
constexpr int kRounds = 5;   ///< interleaved rounds per measurement; the fastest sample counts
constexpr int kRepeats = 5;  ///< sets of rounds for Auto's rule (the median counts)

/// The configurations of `alg` on one input and k made under the profiles `x` and `y` (a plan
/// reads the context's profile when it is made); the context's profile is `back` on return.
template <class Layout>
std::pair<std::unique_ptr<Config<Layout>>, std::unique_ptr<Config<Layout>>> configs_under(
    mimd::ExecutionContext& ctx, const Input& in, const std::shared_ptr<Operands>& ops,
    SpmmAlgorithm alg, const mimd::TuningProfile& x, const mimd::TuningProfile& y,
    const mimd::TuningProfile& back) {
  ctx.tuning() = x;
  auto a = std::make_unique<Config<Layout>>(ctx, in, ops, alg);
  ctx.tuning() = y;
  auto b = std::make_unique<Config<Layout>>(ctx, in, ops, alg);
  ctx.tuning() = back;
  return {std::move(a), std::move(b)};
}

/// What a candidate profile does to the training measurements (inputs x ks) whose plans it
/// changes (SpmmPlan::describe(k)): the sum of log(time under `cand` / time under `inc`),
/// LSSM, the two timed side by side (tune_common.hpp), negative when `cand` is faster, and
/// how many measurements that sums. A measurement whose plan the candidate leaves as it was
/// (a block floor on a matrix of many blocks, any knob on a call that runs serially) is not
/// timed: its ratio is the machine's noise, which would dilute the gain of a knob that
/// matters on a few inputs only.
struct Comparison {
  double log_sum = 0;
  int changed = 0;
  bool timed_out = false;  ///< the deadline passed midway (the candidate is then not taken)
};

/// `c` gains more than kMinGain per changed measurement (geomean), within the deadline.
bool gains(const Comparison& c) {
  return !c.timed_out && c.changed > 0 && c.log_sum < -kMinGain * c.changed;
}

/// The Comparison of `cand` against `inc`. Leaves the context's profile at `inc` (taken
/// by value: the caller's is often the context's own).
template <class Layout, class Ks>
Comparison compare(mimd::ExecutionContext& ctx, const std::vector<Input>& inputs,
                   const mimd::TuningProfile inc, const mimd::TuningProfile cand, const Ks& ks,
                   Clock::time_point deadline) {
  Comparison r;
  for (const auto& in : inputs)
    for (int k : ks) {
      if (Clock::now() > deadline) {
        ctx.tuning() = inc;
        r.timed_out = true;
        return r;
      }
      const auto [a, b] = configs_under<Layout>(ctx, in, std::make_shared<Operands>(in, k),
                                                SpmmAlgorithm::Lssm, inc, cand, inc);
      if (a->plan().describe(k) == b->plan().describe(k)) continue;
      const auto t = time_interleaved({a.get(), b.get()}, kRounds);
      r.log_sum += std::log(t[1] / t[0]);
      ++r.changed;
    }
  return r;
}

/// `cand` gains on `inc` (gains()) in two comparisons in a row: with few measurements
/// changed, one comparison's noise alone can clear kMinGain. `verbose` prints the
/// comparisons as `what`.
template <class Layout, class Ks>
bool wins(mimd::ExecutionContext& ctx, const std::vector<Input>& inputs,
          const mimd::TuningProfile& inc, const mimd::TuningProfile& cand, const Ks& ks,
          Clock::time_point deadline, const std::string& what, bool verbose) {
  const Comparison first = compare<Layout>(ctx, inputs, inc, cand, ks, deadline);
  const Comparison second =
      gains(first) ? compare<Layout>(ctx, inputs, inc, cand, ks, deadline) : Comparison{};
  const bool won = gains(first) && gains(second);
  if (verbose) {
    const auto ratio = [](const Comparison& c) {
      return c.changed ? std::exp(c.log_sum / c.changed) : 1.0;
    };
    std::fprintf(stderr, "mimd-tune: %s: %d measurements changed, time x%.3f", what.c_str(),
                 first.changed, ratio(first));
    if (gains(first)) std::fprintf(stderr, ", again x%.3f", ratio(second));
    std::fprintf(stderr, "%s\n", won ? ": taken" : "");
  }
  return won;
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

// ---- serial calls ----------------------------------------------------------------------

/// spmm_serial_work_k1, _k8, _k32 and _k128: at each of those k, the largest call (its work as
/// the fields count it) up to which the calling thread beat a parallel launch by kMinGain,
/// fit_crossover's (tune_fit.hpp) search from 1024, confirmed afresh. The crossover depends on
/// k, and not in step with the work as counted: in one run on a 2-core Zen 4 VM it lay at
/// 19, 12-14, 27 and 27 Ki of work at k = 1, 8, 32 and 128; on a 2-core Zen 5 VM the row loop
/// won at 78 Ki at k = 1 (0.89-0.93x) and at 131 Ki at k = 32 (0.90-0.94x) but lost at 78 Ki
/// at k = 8 (1.05-1.10x). One threshold for every k, the smallest crossover (git 31a8a9e),
/// launched the calls of the other k below theirs: on the Zen 4 VM it was 9741-13777 in six
/// runs of nine, and lp_afiro at k = 128 (14 Ki) ran at 0.33-0.72x of the derived profile's
/// serial call; taken from k = 1 and 32 alone (before git ca791a9), it ran Pd at k = 8
/// (169 Ki) serially at 0.87x. One threshold per class, eight runs there: lowest matrix of the
/// tuned profile against the derived one 0.908-0.990x (31a8a9e: 0.758-0.983x).
/// (Taken where the two merely tie, a threshold could land a doubling past the crossover:
/// 131072 against 65536 from one run to the next on that VM, and watt_2 at k = 8, 107 Ki of
/// work, then ran serially at 0.82-0.91x. On the doubling grid alone a 16-core Xeon (model 207)
/// kept 16384 where the row loop still won at 16.5 Ki, lp_afiro at k = 128 then 0.56-0.63x of
/// the derived 20480.)
/// Uniform matrices of 4 nonzeros per row, row_parallel (which the serial path runs on one
/// thread), the two timed side by side (kRounds, the median of kRepeats). Where the derived
/// value is 0 (the calling thread cannot reach the data), or the deadline passes before a
/// class is confirmed, that class keeps it.
void fit_serial_work(mimd::TuningProfile& live, mimd::ExecutionContext& ctx,
                     Clock::time_point deadline, bool verbose) {
  const mimd::TuningProfile base = live;
  mimd::TuningProfile launch = base, serial = base;
  mimd::set_spmm_serial_work(launch, 0);
  mimd::set_spmm_serial_work(serial, std::numeric_limits<int>::max());
  const int simd = mimd::effective_simd_width(base.simd_bytes);
  // Every measurement leaves the context's profile (`live`) as `base` (configs_under): the
  // classes fitted are kept apart until the end.
  mimd::TuningProfile fitted = base;
  for (const int k : mimd::kSpmmSerialWorkK) {
    int& field = fitted.*mimd::spmm_serial_work_field(k);
    if (field == 0) continue;
    const auto serial_wins = [&](std::int64_t work) -> std::optional<bool> {
      if (Clock::now() > deadline) return std::nullopt;
      const std::int64_t padded = mimd::spmm_work_columns(k, simd, sizeof(double));
      // 4 nonzeros a row: (4 + 1) * padded of work a row, as the field counts it.
      const std::int64_t rows = std::max<std::int64_t>(8, work / (5 * padded));
      const Input in = mimd::tune::make_input("uniform", mimd::uniform_matrix(rows, rows, 4.0),
                                              ctx.num_threads());
      const auto [a, b] =
          configs_under<Kokkos::LayoutRight>(ctx, in, std::make_shared<Operands>(in, k),
                                             SpmmAlgorithm::RowParallel, launch, serial, base);
      const auto t = time_repeated({a.get(), b.get()}, kRounds, kRepeats);
      if (verbose)
        std::fprintf(stderr, "mimd-tune: serial k=%-4d work %-9lld serial/launch %.3f\n", k,
                     static_cast<long long>(work), t[1] / t[0]);
      return t[1] < t[0] * (1 - kMinGain);
    };
    const auto fit = mimd::tune::fit_crossover(serial_wins, 1024, std::int64_t(1) << 24);
    if (!fit) break;
    field = static_cast<int>(*fit);
    std::cerr << "mimd-tune: spmm_serial_work_k" << k << " " << *fit << "\n";
  }
  live = fitted;
}

// ---- static hand-out ------------------------------------------------------------------

/// spmm_static_work: LSSM with its units handed out statically (each worker its own range)
/// against the dynamic hand-out, side by side on every training input and k where the two
/// differ (not a serial call, more units than workers); the threshold is fit_threshold's
/// (tune_fit.hpp) over the work of each measurement (as the field counts it) and
/// log(static / dynamic): the work up to which the static hand-out saves the most time in all,
/// by more than kMinGain a measurement, even without the one it helps most; 0 when there is
/// none or nothing differs (LSSM with scratch, as on GPUs, has no hand-out to choose). When the
/// deadline passes, the value is kept. The margin: from one hour to the next the static hand-out
/// ran 3-12% faster or 5-50% slower on the same small calls (a 2-core Zen 5 VM whose cores were not
/// always equally fast), so a tie is left dynamic.
void fit_static_work(mimd::TuningProfile& live, mimd::ExecutionContext& ctx,
                     const std::vector<Input>& inputs, Clock::time_point deadline, bool verbose) {
  const mimd::TuningProfile base = live;
  mimd::TuningProfile dynamic = base, fixed = base;
  dynamic.spmm_static_work = 0;
  fixed.spmm_static_work = std::numeric_limits<int>::max();
  const int simd = mimd::effective_simd_width(base.simd_bytes);
  std::vector<mimd::tune::WorkSample> samples;
  for (int k : kKs)
    for (const auto& in : inputs) {
      if (Clock::now() > deadline) {
        ctx.tuning() = base;
        return;
      }
      const auto [a, b] = configs_under<Kokkos::LayoutRight>(
          ctx, in, std::make_shared<Operands>(in, k), SpmmAlgorithm::Lssm, dynamic, fixed, base);
      if (a->plan().describe(k) == b->plan().describe(k)) continue;
      const auto t = time_repeated({a.get(), b.get()}, kRounds, 3);
      const double work = static_cast<double>(in.a.nnz() + in.a.nrows) *
                          mimd::spmm_work_columns(k, simd, sizeof(double));
      samples.push_back({work, std::log(t[1] / t[0])});
      if (verbose)
        std::fprintf(stderr, "mimd-tune: hand-out %-18s k=%-4d work %-10.0f static/dynamic %.3f\n",
                     in.name.c_str(), k, work, t[1] / t[0]);
    }
  const double fit = mimd::tune::fit_threshold(samples);
  live.spmm_static_work = static_cast<int>(std::min<double>(fit, std::numeric_limits<int>::max()));
  std::cerr << "mimd-tune: spmm_static_work " << live.spmm_static_work << "\n";
}

// ---- Auto's rule -----------------------------------------------------------------------

/// Auto's rule (tune_fit.hpp): a decision tree of at most three levels over k, the row-split
/// imbalance (what row_parallel's static ranges cost it), the stored nonzeros (what a launch and
/// the scheduling cost against the work) and the longest row (a long row whose rows of B outgrow L2
/// between the column tiles favours the split rows of LSSM), fitted on every training input and k
/// against the per-input best, written as a decision list. On a 2-core Zen 3 the algorithms part
/// ways on all of these: LSSM 15-22% ahead at k = 1 on evenly loaded matrices (3elt, dwt_2680,
/// bayer10) where row_parallel led by 2% at k >= 8, row_parallel 10-28% ahead on the smallest
/// (ash219, west0479, olm1000) at every k, LSSM 15-35% ahead at imbalances of 1.26-1.38 (G51,
/// zenios, lp_ship04l). The coefficient of variation of the row lengths is not offered: a high
/// variation need not load the static ranges unevenly (long rows spread over the matrix) nor a low
/// one keep them even (a denser half).
void fit_auto_rule(mimd::TuningProfile& p, const mimd::ExecutionContext& ctx,
                   const std::vector<Input>& inputs, Clock::time_point deadline, bool verbose) {
  const SpmmAlgorithm algs[] = {SpmmAlgorithm::Lssm, SpmmAlgorithm::MergePath,
                                SpmmAlgorithm::RowParallel};
  std::vector<mimd::tune::Sample> samples;
  for (int k : kKs)
    for (const auto& in : inputs) {
      if (Clock::now() > deadline) break;
      auto ops = std::make_shared<Operands>(in, k);
      const Config<Kokkos::LayoutRight> c0(ctx, in, ops, algs[0]), c1(ctx, in, ops, algs[1]),
          c2(ctx, in, ops, algs[2]);
      // A call every algorithm runs as the same serial row loop leaves Auto no choice: its
      // three timings differ by the machine's noise alone, which the tree would fit.
      if (c0.plan().describe(k) == c1.plan().describe(k) &&
          c0.plan().describe(k) == c2.plan().describe(k))
        continue;
      const auto sec = time_repeated({&c0, &c1, &c2}, kRounds, kRepeats);
      const double best = *std::min_element(sec.begin(), sec.end());
      mimd::tune::Sample smp;
      smp.loss = {std::log(sec[0] / best), std::log(sec[1] / best), std::log(sec[2] / best)};
      smp.f = {static_cast<double>(k), in.imbalance, static_cast<double>(in.a.nnz()),
               static_cast<double>(in.max_row)};
      samples.push_back(smp);
      if (verbose)
        std::fprintf(stderr,
                     "mimd-tune: rule %-18s k=%-4d imbalance %.3f nnz %-8.0f max_row %-6.0f "
                     "lssm %.3f merge_path %.3f row_parallel %.3f (over the best)\n",
                     in.name.c_str(), k, smp.f[mimd::tune::kImbalance], smp.f[mimd::tune::kNnz],
                     smp.f[mimd::tune::kMaxRow], sec[0] / best, sec[1] / best, sec[2] / best);
    }
  p.auto_rule.rows = mimd::tune::fit_rule(samples, algs);
  for (const auto& r : p.auto_rule.rows)
    std::cerr << "mimd-tune: rule row: k <= " << r.k_max << ", imbalance <= " << r.imbalance_max
              << ", nnz <= " << r.nnz_max << ", max_row <= " << r.max_row_max << ": " << r.algorithm
              << "\n";
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
  bool verbose = false;
  app.add_flag("--verbose", verbose, "print every measurement Auto's rule is fitted on");
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
      // The least work a unit carries (block floor x k): below it a unit's hand-out (the
      // work counter, a call of the micro-kernel) outweighs its rows on small matrices.
      Axis floor{"spmm_block_floor_work", {}};
      for (int f : {2048, 8192, 32768, 131072})
        floor.values.push_back([f](mimd::TuningProfile& q) { q.spmm_block_floor_work = f; });
      axes.push_back(floor);
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
    for (int pass = 0; pass < kMaxPasses && Clock::now() < search_end; ++pass) {
      bool moved = false;
      for (const auto& axis : axes) {
        for (const auto& set : axis.values) {
          mimd::TuningProfile cand = live;
          set(cand);
          if (cand.to_json() == live.to_json()) continue;
          const std::string what = std::string(axis.name) + " " +
                                   nlohmann::json::parse(cand.to_json())[axis.name].dump();
          if (wins<Kokkos::LayoutRight>(ctx, inputs, live, cand, kKs, search_end, what, verbose)) {
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
        const Comparison c = compare<Kokkos::LayoutLeft>(ctx, inputs, tile, pack, k, search_end);
        if (c.timed_out || !(c.log_sum < 0)) break;
        min_k = kLeftKs[i];
      }
      live = base;
      live.spmm_left_strategy = min_k == std::numeric_limits<int>::max() ? mimd::LeftStrategy::Tile
                                                                         : mimd::LeftStrategy::Pack;
      // Halfway (in log scale) down to the next k measured below: 16 for a win from 32.
      if (min_k != std::numeric_limits<int>::max())
        live.spmm_left_pack_min_k = min_k == kLeftKs[0] ? 2 : std::max(2, min_k / 2);
    }
    // Columns split between the workers from the derived k on, or never (rows split by the
    // plan's algorithm over one shared copy), side by side at the k that pack.
    if (Clock::now() < search_end && live.spmm_left_strategy == mimd::LeftStrategy::Pack &&
        live.spmm_left_split_min_k != std::numeric_limits<int>::max()) {
      mimd::TuningProfile rows = live;
      rows.spmm_left_split_min_k = std::numeric_limits<int>::max();
      if (wins<Kokkos::LayoutLeft>(ctx, inputs, live, rows, kPanelKs, search_end,
                                   "spmm_left_split_min_k never", verbose))
        live = rows;
      std::cerr << "mimd-tune: LayoutLeft split done at " << seconds_since(start) << " s\n";
    }
    // Rows split by the blocks of B they read (each worker its own copy, where no worker
    // reads more than spmm_left_blocks_pct of B's blocks) or over one shared copy, at each
    // k that packs without splitting its columns: the bound at 0 (off), half, twice and
    // 100, each side by side with the incumbent.
    if (Clock::now() < search_end && live.spmm_left_strategy == mimd::LeftStrategy::Pack &&
        ctx.num_threads() > 1) {
      std::vector<int> ks;
      for (int k : kLeftKs)
        if (k >= live.spmm_left_pack_min_k &&
            !mimd::spmm_left_splits_columns(k, live.spmm_left_split_min_k, ctx.num_threads()))
          ks.push_back(k);
      const int derived = live.spmm_left_blocks_pct;
      for (const int pct : {0, derived / 2, derived * 2, 100}) {
        mimd::TuningProfile cand = live;
        cand.spmm_left_blocks_pct = std::clamp(pct, 0, 100);
        if (ks.empty() || cand.spmm_left_blocks_pct == live.spmm_left_blocks_pct) continue;
        if (wins<Kokkos::LayoutLeft>(
                ctx, inputs, live, cand, ks, search_end,
                "spmm_left_blocks_pct " + std::to_string(cand.spmm_left_blocks_pct), verbose))
          live = cand;
      }
      std::cerr << "mimd-tune: LayoutLeft blocks done at " << seconds_since(start) << " s\n";
    }
    // Packed panels: the size of a panel's copy of B, from a quarter of the derived one
    // to all of k at once, each candidate side by side with the incumbent at the k that
    // pack, kept when it gains kMinGain per measurement (geomean).
    if (Clock::now() < search_end && live.spmm_left_strategy == mimd::LeftStrategy::Pack) {
      const int derived = live.spmm_left_panel_bytes;
      for (const long long bytes : {derived / 4LL, derived * 4LL, derived * 16LL,
                                    static_cast<long long>(std::numeric_limits<int>::max())}) {
        mimd::TuningProfile cand = live;
        cand.spmm_left_panel_bytes =
            static_cast<int>(std::clamp<long long>(bytes, 1, std::numeric_limits<int>::max()));
        if (cand.spmm_left_panel_bytes == live.spmm_left_panel_bytes) continue;
        if (wins<Kokkos::LayoutLeft>(
                ctx, inputs, live, cand, kPanelKs, search_end,
                "spmm_left_panel_bytes " + std::to_string(cand.spmm_left_panel_bytes), verbose))
          live = cand;
      }
      std::cerr << "mimd-tune: LayoutLeft panels done at " << seconds_since(start) << " s\n";
    }
    fit_serial_work(live, ctx, at(0.75), verbose);
    fit_static_work(live, ctx, inputs, at(0.85), verbose);
    fit_auto_rule(live, ctx, inputs, at(0.95), verbose);
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
