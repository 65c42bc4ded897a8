// mimd-bench --distributed: the distributed kernels (mimd::dist) under mpirun.
//
// Every rank builds its part of each input (generators run per rank; files read by rank
// 0 and scattered). A timed rep is one collective call between barriers; its time is
// the maximum over the ranks (MPI_Allreduce), so every rank sees the same times and
// takes the same decisions (reps, rounds). SpMM is verified on rank 0 against the
// single-process plan on the gathered matrix; BFS by Graph500's rules on the gathered
// tree. Bytes sent and received per call are measured by the plan; the volume model
// predicts the halo of 16, 64 and 256 ranks from the balanced partition of the matrix.
#ifdef MIMD_HAVE_MPI

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <random>

#include "driver.hpp"
#include "mimd/datasets.hpp"
#include "mimd/dist/bfs.hpp"
#include "mimd/dist/spmm.hpp"
#include "mimd/generators.hpp"

namespace mimd::bench {

namespace {

using nlohmann::json;

// Times `call` (collective) as the maximum over the ranks of each rep: rounds of at
// least policy.min_reps reps and min_seconds, the round with the lowest median kept.
Timing measure_collective(const dist::Context& ctx, const std::function<void()>& call,
                          const TimingPolicy& policy) {
  call();  // warm-up
  Timing best;
  for (int round = 0; round < policy.rounds; ++round) {
    std::vector<double> times;
    double total = 0;
    while (static_cast<int>(times.size()) < policy.min_reps || total < policy.min_seconds) {
      MPI_Barrier(ctx.comm());
      const double t0 = MPI_Wtime();
      call();
      double t = MPI_Wtime() - t0, tmax = 0;
      MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, ctx.comm());
      times.push_back(tmax);
      total += tmax;
    }
    Timing t;
    t.median = median_of(times);
    t.min = *std::min_element(times.begin(), times.end());
    t.max = *std::max_element(times.begin(), times.end());
    t.reps = static_cast<int>(times.size());
    t.rounds = round + 1;
    t.clean = t.median <= policy.clean_ratio * t.min;
    if (round == 0 || t.median < best.median) best = t;
    best.rounds = round + 1;
    if (t.clean) break;
  }
  return best;
}

json timing_json(const Timing& t) {
  return {{"median_s", t.median}, {"min_s", t.min},     {"max_s", t.max},
          {"reps", t.reps},       {"rounds", t.rounds}, {"clean", t.clean}};
}

std::int64_t sum_over_ranks(const dist::Context& ctx, std::int64_t x) {
  std::int64_t s = 0;
  MPI_Allreduce(&x, &s, 1, MPI_INT64_T, MPI_SUM, ctx.comm());
  return s;
}

std::int64_t max_over_ranks(const dist::Context& ctx, std::int64_t x) {
  std::int64_t s = 0;
  MPI_Allreduce(&x, &s, 1, MPI_INT64_T, MPI_MAX, ctx.comm());
  return s;
}

KOKKOS_INLINE_FUNCTION double b_entry(std::int64_t row, std::int64_t t) {
  return static_cast<double>((row * 2654435761u + t * 40503u) % 1000) / 500.0 - 1.0;
}

// One SpMM measurement at k; returns its record (verification on rank 0).
json run_spmm(const dist::Context& ctx, const std::string& name, const dist::DistCsr<double>& a,
              const HostCsr<double>& global, int k, const TimingPolicy& policy) {
  using Layout = Kokkos::LayoutRight;
  dist::SpmmPlan<double, Layout> plan(ctx, a, k);
  const std::int32_t n = a.map.local_rows();
  const std::int64_t first = a.map.first_row();
  Dense<double, Layout> b("b", n, k), c("c", n, k);
  Kokkos::parallel_for(
      "bench::dist::fill_b", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(std::int32_t i) {
        for (int t = 0; t < k; ++t) b(i, t) = b_entry(first + i, t);
      });
  Kokkos::fence();
  plan.apply(1.0, b, 0.0, c);
  // Verification: C gathered on rank 0 against the single-process plan.
  std::vector<int> counts(ctx.size());
  for (int q = 0; q < ctx.size(); ++q) counts[q] = static_cast<int>(a.map.partition.rows(q) * k);
  std::vector<int> displs(ctx.size() + 1, 0);
  for (int q = 0; q < ctx.size(); ++q) displs[q + 1] = displs[q] + counts[q];
  const bool root = ctx.rank() == 0;
  std::vector<double> all(root ? static_cast<std::size_t>(displs.back()) : 0);
  MPI_Gatherv(c.data(), n * k, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
              ctx.comm());
  double max_err = 0;
  bool verified = true;
  if (root) {
    const auto ga = to_memory_space<DefaultMemorySpace>(global);
    Dense<double, Layout> gb("gb", global.nrows, k), gc("gc", global.nrows, k);
    Kokkos::parallel_for(
        "bench::dist::fill_gb", Kokkos::RangePolicy<>(0, global.nrows),
        KOKKOS_LAMBDA(std::int32_t i) {
          for (int t = 0; t < k; ++t) gb(i, t) = b_entry(i, t);
        });
    Kokkos::fence();
    mimd::SpmmPlan<double, Layout>(ctx.exec(), ga, k).apply(1.0, ga, gb, 0.0, gc);
    const auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), gc);
    for (std::int64_t i = 0; i < global.nrows; ++i) {
      double mag = 0;
      for (std::int64_t j = global.row_map(i); j < global.row_map(i + 1); ++j)
        mag += std::abs(global.values(j));
      const double tol = 64 * std::numeric_limits<double>::epsilon() * (mag + 1e-300);
      for (int t = 0; t < k; ++t) {
        const double err = std::abs(all[static_cast<std::size_t>(i * k + t)] - hc(i, t));
        max_err = std::max(max_err, err);
        if (!(err <= tol)) verified = false;
      }
    }
  }
  int ok = verified;
  MPI_Bcast(&ok, 1, MPI_INT, 0, ctx.comm());
  const Timing t = measure_collective(
      ctx, [&] { plan.apply(1.0, b, 0.0, c); }, policy);
  const auto s = plan.last_call();
  json r = {{"kernel", "spmm"},
            {"impl", "dist_lssm"},
            {"input", name},
            {"rows", a.map.global_rows},
            {"nnz", a.global_nnz},
            {"k", k},
            {"scalar", "double"},
            {"ranks", ctx.size()},
            {"threads_per_rank", ctx.threads_per_rank()},
            {"time", timing_json(t)},
            {"gflops", 2.0 * double(a.global_nnz) * k / t.median * 1e-9},
            {"bytes_sent_per_call", sum_over_ranks(ctx, s.bytes_sent)},
            {"bytes_received_per_call", sum_over_ranks(ctx, s.bytes_received)},
            {"max_rank_bytes_received", max_over_ranks(ctx, s.bytes_received)},
            {"messages_per_call", sum_over_ranks(ctx, s.messages_sent)},
            {"verified", ok != 0},
            {"max_abs_error", max_err}};
  if (root)
    std::printf(
        "spmm  %-24s k=%-4d %d x %d  median %.3f ms (min %.3f, max %.3f)  %.2f GFLOP/s"
        "  halo %.2f MB/call  %s\n",
        name.c_str(), k, ctx.size(), ctx.threads_per_rank(), t.median * 1e3, t.min * 1e3,
        t.max * 1e3, r["gflops"].get<double>(),
        r["bytes_received_per_call"].get<std::int64_t>() / 1e6,
        ok ? "verified" : "FAILED verification");
  return r;
}

json run_bfs(const dist::Context& ctx, const std::string& name, const dist::DistGraph& g,
             int sources, std::uint64_t seed, const TimingPolicy& policy) {
  dist::BfsRunner runner(ctx, g);
  // Sources: vertices with edges, drawn from a fixed seed on every rank alike, so the
  // degree test needs the owner: rank-local degrees are summed.
  std::mt19937_64 rng(seed);
  std::vector<std::int32_t> chosen;
  const std::int64_t n = g.map.global_rows;
  for (int tries = 0; static_cast<int>(chosen.size()) < sources && tries < 100 * sources; ++tries) {
    const auto v = static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(n));
    std::int64_t deg = 0;
    if (v >= g.map.first_row() && v < g.map.first_row() + g.map.local_rows()) {
      const auto u = v - g.map.first_row();
      deg = g.local.row_map(u + 1) - g.local.row_map(u);
    }
    if (sum_over_ranks(ctx, deg) > 0) chosen.push_back(v);
  }
  const auto v = dist::validate(ctx, g, chosen.front(), runner.run(chosen.front()));
  std::vector<double> medians;
  dist::CommStats comm;
  for (const std::int32_t s : chosen) {
    TimingPolicy one = policy;
    one.min_reps = 3;
    one.min_seconds = 0;
    one.rounds = 1;
    dist::CommStats last;
    const Timing t = measure_collective(
        ctx, [&] { last = runner.run(s).comm; }, one);
    medians.push_back(t.median);
    comm.bytes_sent += last.bytes_sent;
    comm.bytes_received += last.bytes_received;
  }
  Timing t;
  t.median = median_of(medians);
  t.min = *std::min_element(medians.begin(), medians.end());
  t.max = *std::max_element(medians.begin(), medians.end());
  t.reps = static_cast<int>(medians.size());
  double mean = 0;
  for (double m : medians) mean += m / static_cast<double>(medians.size());
  const double gteps = double(g.global_edges) / 2 / mean * 1e-9;
  const auto per_source = static_cast<std::int64_t>(chosen.size());
  json r = {{"kernel", "bfs"},
            {"impl", "dist_direction_optimizing"},
            {"input", name},
            {"vertices", n},
            {"stored_edges", g.global_edges},
            {"ranks", ctx.size()},
            {"threads_per_rank", ctx.threads_per_rank()},
            {"sources", per_source},
            {"time_per_source", timing_json(t)},
            {"mean_s", mean},
            {"gteps", gteps},
            {"bytes_sent_per_source", sum_over_ranks(ctx, comm.bytes_sent) / per_source},
            {"bytes_received_per_source", sum_over_ranks(ctx, comm.bytes_received) / per_source},
            {"verified", v.ok},
            {"validation", v.message}};
  if (ctx.rank() == 0)
    std::printf(
        "bfs   %-24s %d x %d  per source: median %.3f ms (min %.3f, max %.3f) over %lld"
        " sources  %.3f GTEPS  %.2f MB/source  %s\n",
        name.c_str(), ctx.size(), ctx.threads_per_rank(), t.median * 1e3, t.min * 1e3, t.max * 1e3,
        static_cast<long long>(per_source), gteps,
        r["bytes_received_per_source"].get<std::int64_t>() / 1e6,
        v.ok ? "verified" : ("FAILED: " + v.message).c_str());
  return r;
}

// The model's prediction for 16, 64 and 256 ranks (and this run's rank count, to set
// beside the measured bytes) of the halo per SpMM call at k = 1.
json volume_model(const dist::Context& ctx, const std::string& name,
                  const HostCsr<double>& global) {
  json rows = json::array();
  if (ctx.rank() != 0) return rows;
  for (const int p : {ctx.size(), 16, 64, 256}) {
    const auto v = dist::predict_volume(global.pattern(), p);
    rows.push_back({{"input", name},
                    {"ranks", p},
                    {"halo_rows_total", v.ghost_rows_total},
                    {"halo_rows_max_rank", v.ghost_rows_max},
                    {"neighbours_max", v.neighbours_max},
                    {"bytes_per_call_per_column", v.ghost_rows_total * 8}});
    std::printf(
        "model %-24s %4d ranks: halo %lld rows per call (max %lld on one rank, from up to"
        " %d ranks) = %.2f MB at k = 1, double\n",
        name.c_str(), p, static_cast<long long>(v.ghost_rows_total),
        static_cast<long long>(v.ghost_rows_max), v.neighbours_max,
        double(v.ghost_rows_total) * 8 / 1e6);
  }
  return rows;
}

int distributed_main(const Config& config) {
  dist::DistOptions options;
  options.threads_per_rank = config.threads;
  const dist::Context ctx(MPI_COMM_WORLD, options);
  const bool root = ctx.rank() == 0;
  const std::vector<std::string> layouts = ctx.layout_summaries();
  for (const auto& line : layouts) std::printf("%s\n", line.c_str());
  const std::vector<std::string> inputs =
      config.inputs.empty()
          ? std::vector<std::string>{"stencil3d:100", "powerlaw:1000000:16", "kron:20"}
          : config.inputs;
  const std::vector<int> ks = config.ks.empty() ? std::vector<int>{1, 8, 32} : config.ks;
  TimingPolicy policy;
  policy.min_reps = config.min_reps;
  policy.min_seconds = config.min_seconds < 0 ? 0.5 : config.min_seconds;
  const auto wants = [&](const char* kernel) {
    return std::find(config.kernels.begin(), config.kernels.end(), kernel) != config.kernels.end();
  };
  json records = json::array(), model = json::array();
  bool all_verified = true;
  for (const std::string& input : inputs) {
    const bool generated = is_generator_spec(input);
    HostCsr<double> global;
    dist::DistCsr<double> a;
    if (generated) {
      global = generate(input);
      a = dist::distribute(ctx, global);
    } else {
      a = dist::read<double>(ctx, find_dataset(input));
      global = dist::gather(ctx, a);
    }
    for (const auto& m : volume_model(ctx, input, global)) model.push_back(m);
    if (wants("spmm"))
      for (const int k : ks) {
        records.push_back(run_spmm(ctx, input, a, global, k, policy));
        all_verified = all_verified && records.back()["verified"].get<bool>();
      }
    if (wants("bfs") && generated && generates_symmetric(input)) {
      records.push_back(run_bfs(ctx, input, dist::as_graph(a), std::min(config.sources, 16),
                                config.seed, policy));
      all_verified = all_verified && records.back()["verified"].get<bool>();
    }
  }
  if (root && !config.json_path.empty()) {
    json out = {{"context",
                 {{"command", config.command},
                  {"git", MIMD_BENCH_GIT_HASH},
                  {"ranks", ctx.size()},
                  {"threads_per_rank", ctx.threads_per_rank()},
                  {"layout", layouts},
                  {"kokkos", ctx.exec().kokkos_version()},
                  {"backend", ctx.exec().backend()}}},
                {"records", records},
                {"volume_model", model}};
    std::ofstream(config.json_path) << out.dump(1) << "\n";
  }
  return all_verified ? 0 : 1;
}

}  // namespace

int run_distributed(const Config& config) {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  const int status = dist::run_or_abort(MPI_COMM_WORLD, [&] { return distributed_main(config); });
  MPI_Finalize();
  return status;
}

}  // namespace mimd::bench

#else  // built without MPI

#include <cstdio>

#include "driver.hpp"

namespace mimd::bench {

int run_distributed(const Config&) {
  std::fprintf(stderr,
               "mimd-bench: --distributed: this build has no MPI (CMake option MIMD_MPI)\n");
  return kExitUsage;
}

}  // namespace mimd::bench

#endif  // MIMD_HAVE_MPI
