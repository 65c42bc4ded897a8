// The machine context of a run: STREAM, caches, memory, versions, and the run's header.
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "driver.hpp"
#include "mimd/memory.hpp"
#include "registry.hpp"

namespace mimd::bench {

namespace {

std::string run_command(const std::string& cmd) {
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[256];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

std::string git_revision() {
  const std::string src = MIMD_BENCH_SOURCE_DIR;
  std::string rev = run_command("git -C '" + src + "' rev-parse HEAD 2>/dev/null");
  if (rev.empty()) return MIMD_BENCH_GIT_HASH;
  if (!run_command("git -C '" + src + "' status --porcelain --untracked-files=no 2>/dev/null")
           .empty())
    rev += "-dirty";
  return rev;
}

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::vector<std::string> kokkos_devices() {
  std::vector<std::string> d;
#ifdef KOKKOS_ENABLE_OPENMP
  d.push_back("OpenMP");
#endif
#ifdef KOKKOS_ENABLE_SERIAL
  d.push_back("Serial");
#endif
#ifdef KOKKOS_ENABLE_THREADS
  d.push_back("Threads");
#endif
#ifdef KOKKOS_ENABLE_CUDA
  d.push_back("Cuda");
#endif
#ifdef KOKKOS_ENABLE_HIP
  d.push_back("HIP");
#endif
#ifdef KOKKOS_ENABLE_HWLOC
  d.push_back("hwloc");
#endif
  return d;
}

}  // namespace

MemoryFigure available_memory(const Topology& topology) {
  if (const std::uint64_t available = available_memory_bytes())
    return {static_cast<double>(available), "MemAvailable"};
  return {static_cast<double>(topology.total_memory_bytes), "topology total"};
}

double last_level_cache_bytes(const Topology& topology) {
  const CacheLevel* last = nullptr;
  for (const auto& c : topology.caches)
    if (!last || c.level >= last->level) last = &c;
  return last ? static_cast<double>(last->size_bytes) * std::max(1, last->instances) : 0.0;
}

nlohmann::json probe_machine(const Config& config, const ExecutionContext& ctx,
                             RunOptions& options) {
  const std::int64_t stream_n = config.smoke ? (1 << 20) : (config.quick ? (1 << 23) : (1 << 25));
  const StreamResult stream =
      run_stream(stream_n, ctx.num_threads(), config.smoke ? 3 : (config.quick ? 5 : 10));
  const MemoryFigure memory = available_memory(ctx.topology());
  options.triad_gbps = stream.triad_gbps;
  options.llc_bytes = last_level_cache_bytes(ctx.topology());
  options.memory_bytes = memory.bytes;
  options.memory_source = memory.source;

  const std::string git = git_revision();
  const std::string date = utc_now();
  std::printf("mimd-bench  git %s  %s  Kokkos %s (%s)  %s\n", git.c_str(), date.c_str(),
              ctx.kokkos_version().c_str(), ctx.backend().c_str(), ctx.binding_summary().c_str());
  std::printf("%s", ctx.topology().to_text().c_str());
  std::printf("STREAM (%d threads, 3 x %lld doubles): copy %.1f GB/s, triad %.1f GB/s\n",
              stream.threads, static_cast<long long>(stream.elements), stream.copy_gbps,
              stream.triad_gbps);
  std::printf("Memory available %.2f GB (%s); last-level cache %.1f MB\n", memory.bytes * 1e-9,
              memory.source.c_str(), options.llc_bytes * 1e-6);
  std::printf(
      "Timing: median of >= %d reps and >= %.2f s per measurement after warm-up, at most "
      "%.0f s per measurement; BFS: %d sources, seed %llu\n\n",
      options.timing.min_reps, options.timing.min_seconds, options.timing.time_limit,
      options.sources, static_cast<unsigned long long>(options.seed));

  nlohmann::json context;
  context["program"] = "mimd-bench";
  context["command"] = config.command;
  context["date"] = date;
  context["git"] = git;
  context["compiler"] = MIMD_BENCH_COMPILER;
  context["flags"] = MIMD_BENCH_FLAGS;
  context["kokkos"] = {
      {"version", ctx.kokkos_version()}, {"backend", ctx.backend()}, {"devices", kokkos_devices()}};
#ifdef MIMD_HAVE_KOKKOSKERNELS
  context["kokkos_kernels"] = kokkos_kernels_version();
#else
  context["kokkos_kernels"] = nullptr;
#endif
#ifdef MIMD_HAVE_CUSPARSE
  context["cusparse"] = cusparse_version();
#else
  context["cusparse"] = nullptr;
#endif
#ifdef MIMD_HAVE_GRAPHBLAS
  context["graphblas"] = graphblas_init(ctx.num_threads());
#else
  context["graphblas"] = nullptr;
#endif
  context["omp"] = {{"OMP_PROC_BIND", env_or("OMP_PROC_BIND", "")},
                    {"OMP_PLACES", env_or("OMP_PLACES", "")},
                    {"OMP_NUM_THREADS", env_or("OMP_NUM_THREADS", "")},
                    {"max_threads", omp_get_max_threads()}};
  context["threads"] = ctx.num_threads();
  context["binding"] = ctx.binding_summary();
  context["topology"] = nlohmann::json::parse(ctx.topology().to_json());
  context["tuning"] = nlohmann::json::parse(ctx.tuning().to_json());
  context["profile"] = {{"name", ctx.tuning().name},
                        {"source", ctx.profile_source()},
                        {"warning", ctx.profile_warning()},
                        {"fingerprint", ctx.fingerprint()},
                        {"fingerprint_hash", fingerprint_hash(ctx.fingerprint())}};
  context["stream"] = {{"copy_gbps", stream.copy_gbps},
                       {"triad_gbps", stream.triad_gbps},
                       {"elements", stream.elements},
                       {"threads", stream.threads}};
  context["memory"] = {{"available_bytes", memory.bytes}, {"source", memory.source}};
  context["llc_bytes"] = options.llc_bytes;
  context["timing"] = {{"min_reps", options.timing.min_reps},
                       {"min_seconds", options.timing.min_seconds},
                       {"warmup_seconds", options.timing.warmup_seconds},
                       {"max_rounds", options.timing.rounds},
                       {"clean_ratio", options.timing.clean_ratio},
                       {"time_limit_s", options.timing.time_limit},
                       {"bfs_sources", options.sources},
                       {"bfs_seed", options.seed}};
  context["byte_model"] =
      "A once (values + column indices + row offsets) + B once (n*k) + C read and written "
      "(2*m*k)";
  context["footprint_model"] = "A + B (n*k) + C (m*k), compared with llc_bytes";
  context["gteps"] =
      "gteps_gap: undirected edges of the whole graph / mean time per source (GAP; the table's "
      "GTEPS); gteps_graph500: harmonic mean over the sources of the undirected edges of the "
      "reached component / time (Graph500)";
  return context;
}

void release_machine() {
#ifdef MIMD_HAVE_GRAPHBLAS
  graphblas_finalize();
#endif
}

}  // namespace mimd::bench
