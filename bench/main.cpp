// mimd-bench: SpMM and BFS of mimd-kernels against Kokkos Kernels, SuiteSparse:GraphBLAS
// and a plain OpenMP loop, on real datasets and generated workloads.
//
//   mimd-bench                      the default suite (a few minutes on 2 cores)
//   mimd-bench --quick              a sub-minute version
//   mimd-bench bcsstk33 kron:20     chosen inputs: dataset names, files, generator specs
//   mimd-bench --json out.json      also write every measurement (and the context)
//
// Exit status: 0 when every measurement verified, 1 when one failed verification or an
// explicitly named input could not be loaded, 2 for usage errors, 3 for other errors.
#include <omp.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bench.hpp"
#include "mimd/bfs.hpp"
#include "mimd/datasets.hpp"
#include "mimd/generators.hpp"
#include "mimd/io.hpp"
#include "mimd/spmm.hpp"

namespace mb = mimd::bench;

namespace {

struct Suite {
  std::vector<mb::Input> inputs;
};

bool starts_with(const std::string& s, const std::string& p) {
  return s.rfind(p, 0) == 0;
}

// Graph kinds of the manifest that BFS runs on besides the SNAP edge lists.
bool is_graph_kind(const mimd::ManifestEntry& e) {
  return starts_with(e.kind, "social") || starts_with(e.kind, "road") ||
         starts_with(e.kind, "internet") || starts_with(e.kind, "random-graph") ||
         starts_with(e.path, "suitesparse-large/");
}

// The real datasets of the first dataset folder that has a MANIFEST.tsv.
// `only`: short names to keep (empty: all).
void add_datasets(Suite& suite, const std::vector<std::string>& only) {
  const std::string dir = mimd::shared_dataset_dir();
  if (dir.empty()) {
    std::fprintf(stderr,
                 "mimd-bench: warning: no dataset folder with a MANIFEST.tsv found "
                 "(set MIMD_DATASETS); running generated inputs only\n");
    return;
  }
  for (const auto& e : mimd::read_manifest(dir)) {
    if (e.is_complex()) continue;
    if (!only.empty() && std::find(only.begin(), only.end(), e.short_name()) == only.end())
      continue;
    mb::Input in;
    in.name = e.short_name();
    in.path = dir + "/" + e.path;
    in.real = true;
    in.spmm = starts_with(e.path, "suitesparse");
    in.bfs = e.is_snap() || is_graph_kind(e);
    if (in.spmm || in.bfs) suite.inputs.push_back(in);
  }
}

mb::Input generated(const std::string& spec, bool spmm, bool bfs, std::vector<int> ks = {}) {
  mb::Input in;
  in.name = spec;
  in.spec = spec;
  in.spmm = spmm;
  in.bfs = bfs;
  in.ks = std::move(ks);
  return in;
}

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

int main(int argc, char** argv) {
  CLI::App app{
      "mimd-bench: SpMM and BFS of mimd-kernels against Kokkos Kernels, "
      "SuiteSparse:GraphBLAS and a plain OpenMP loop"};
  std::vector<std::string> inputs;
  bool quick = false, smoke = false, with_float = false, list_only = false;
  std::vector<std::string> kernels{"spmm", "bfs"};
  std::vector<int> ks;
  std::vector<std::string> algorithms, bfs_algorithms, baselines;
  std::string json_path, csv_path;
  int threads = 0, sources = 64;
  double min_seconds = -1;
  int min_reps = 10;
  int rounds = 0;
  std::uint64_t seed = 20261130;
  app.add_option("inputs", inputs,
                 "dataset names (looked up in the dataset search path), files, or generator "
                 "specs (kron:20, urand:20, stencil3d:100, powerlaw:1000000:16, ...); "
                 "none: the default suite");
  app.add_flag("--quick", quick, "a sub-minute suite with shorter measurements");
  app.add_flag("--smoke", smoke, "a seconds-long run on tiny generated inputs (for tests)");
  app.add_flag("--float", with_float, "also run SpMM in single precision");
  app.add_flag("--list", list_only, "list the inputs the run would use, and exit");
  app.add_option("--kernels", kernels, "kernels to run: spmm, bfs")->delimiter(',');
  app.add_option("--k", ks, "SpMM k values (default 1,8,32,128; generated inputs 1,8)")
      ->delimiter(',');
  app.add_option("--algorithms", algorithms,
                 "mimd SpMM algorithms (default: every one except reference, and auto)")
      ->delimiter(',');
  app.add_option("--bfs-algorithms", bfs_algorithms,
                 "mimd BFS algorithms (default top_down,bottom_up,direction_optimizing)")
      ->delimiter(',');
  app.add_option("--baselines", baselines,
                 "baselines (default all available: omp_loop, kk_right, kk_left, graphblas, "
                 "graphblas_bfs)")
      ->delimiter(',');
  app.add_option("--threads", threads, "worker threads (default: one per core)");
  app.add_option("--sources", sources, "BFS sources per graph")->check(CLI::PositiveNumber);
  app.add_option("--seed", seed, "seed of the BFS source choice");
  app.add_option("--min-time", min_seconds, "timed seconds per round (at least)");
  app.add_option("--min-reps", min_reps, "timed repetitions per round (at least)")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--rounds", rounds, "rounds per measurement (BFS: sweeps over the sources)")
      ->check(CLI::Range(1, 100));
  app.add_option("--json", json_path, "write every record and the context as JSON");
  app.add_option("--csv", csv_path, "write every record as CSV");
  CLI11_PARSE(app, argc, argv);

  try {
    mimd::ContextOptions copt;
    copt.num_threads = threads;
    const mimd::ExecutionContext ctx(copt);
    omp_set_num_threads(ctx.num_threads());

    // ---- what to run ----------------------------------------------------------------
    mb::RunOptions opt;
    opt.threads = ctx.num_threads();
    opt.sources = sources;
    opt.seed = seed;
    opt.run_float = with_float;
    opt.ks = ks.empty() ? (quick ? std::vector<int>{1, 32} : std::vector<int>{1, 8, 32, 128}) : ks;
    if (algorithms.empty()) {
      for (auto a : mimd::spmm_algorithms())
        if (a != mimd::SpmmAlgorithm::Reference) algorithms.push_back(mimd::to_string(a));
      algorithms.push_back(mimd::to_string(mimd::SpmmAlgorithm::Auto));
    }
    for (const auto& a : algorithms) mimd::spmm_algorithm_from_string(a);  // validates
    opt.spmm_algorithms = algorithms;
    if (bfs_algorithms.empty()) {
      for (auto a : mimd::bfs_algorithms())
        if (a != mimd::BfsAlgorithm::Reference) bfs_algorithms.push_back(mimd::to_string(a));
    }
    for (const auto& a : bfs_algorithms) mimd::bfs_algorithm_from_string(a);
    opt.bfs_algorithms = bfs_algorithms;

    std::vector<std::string> available{"omp_loop"};
#ifdef MIMD_HAVE_KOKKOSKERNELS
    available.insert(available.end(), {"kk_right", "kk_left"});
#endif
#ifdef MIMD_HAVE_GRAPHBLAS
    available.insert(available.end(), {"graphblas", "graphblas_bfs"});
    const std::string graphblas_version = mb::graphblas_init(ctx.num_threads());
#endif
    if (baselines.empty()) baselines = available;
    for (const auto& b : baselines)
      if (std::find(available.begin(), available.end(), b) == available.end()) {
        std::fprintf(stderr, "mimd-bench: baseline '%s' is not available in this build\n",
                     b.c_str());
        return 2;
      }
    opt.baselines = baselines;
    const bool want_spmm = std::find(kernels.begin(), kernels.end(), "spmm") != kernels.end();
    const bool want_bfs = std::find(kernels.begin(), kernels.end(), "bfs") != kernels.end();

    if (smoke) {
      opt.timing = {10, 0.0, 0.0, 10, 1, 1.25};
      opt.sources = std::min(opt.sources, 8);
      if (ks.empty()) opt.ks = {1, 8};
    } else if (quick) {
      opt.timing = {10, 0.02, 0.005, 100000, 2, 1.25};
    } else {
      opt.timing = {10, 0.1, 0.02, 100000, 2, 1.25};
    }
    if (min_seconds >= 0) opt.timing.min_seconds = min_seconds;
    opt.timing.min_reps = min_reps;
    if (rounds > 0) opt.timing.rounds = rounds;
    opt.timing.max_reps = std::max(opt.timing.max_reps, min_reps);

    Suite suite;
    bool explicit_inputs = !inputs.empty();
    if (explicit_inputs) {
      for (const auto& name : inputs) {
        mb::Input in;
        in.name = name;
        if (mimd::is_generator_spec(name)) {
          in.spec = name;
        } else {
          in.path = mimd::find_dataset(name);
          in.real = true;
        }
        in.spmm = want_spmm;
        in.bfs = want_bfs;
        suite.inputs.push_back(in);
      }
    } else if (smoke) {
      suite.inputs.push_back(generated("stencil2d:40", true, false));
      suite.inputs.push_back(generated("kron:10", false, true));
    } else if (quick) {
      add_datasets(suite, {"bcsstk13", "bcsstk33", "rajat01", "crack", "Pd", "CA-GrQc", "Wiki-Vote",
                           "as20000102"});
      suite.inputs.push_back(generated("powerlaw:300000:16", true, false, {1, 8}));
      suite.inputs.push_back(generated("kron:16", false, true));
    } else {
      add_datasets(suite, {});
      suite.inputs.push_back(generated("powerlaw:1000000:16", true, false, {1, 8}));
      suite.inputs.push_back(generated("stencil3d:100", true, false, {1, 8}));
      suite.inputs.push_back(generated("kron:20", false, true));
      suite.inputs.push_back(generated("urand:20", false, true));
    }
    for (auto& in : suite.inputs) {
      in.spmm = in.spmm && want_spmm;
      in.bfs = in.bfs && want_bfs;
    }
    if (list_only) {
      for (const auto& in : suite.inputs)
        std::printf("%-28s %-5s %-4s %s\n", in.name.c_str(), in.spmm ? "spmm" : "",
                    in.bfs ? "bfs" : "", in.real ? in.path.c_str() : "(generated)");
      return 0;
    }

    // ---- machine probe ----------------------------------------------------------------
    const std::int64_t stream_n = smoke ? (1 << 20) : (quick ? (1 << 23) : (1 << 25));
    const mb::StreamResult stream =
        mb::run_stream(stream_n, ctx.num_threads(), smoke ? 3 : (quick ? 5 : 10));
    opt.triad_gbps = stream.triad_gbps;
    const std::string git = git_revision();
    std::printf("mimd-bench  git %s  %s  Kokkos %s (%s)  %s\n", git.c_str(), utc_now().c_str(),
                ctx.kokkos_version().c_str(), ctx.backend().c_str(), ctx.binding_summary().c_str());
    std::printf("%s", ctx.topology().to_text().c_str());
    std::printf("STREAM (%d threads, 3 x %lld doubles): copy %.1f GB/s, triad %.1f GB/s\n",
                stream.threads, static_cast<long long>(stream.elements), stream.copy_gbps,
                stream.triad_gbps);
    std::printf(
        "Timing: median of >= %d reps and >= %.2f s per measurement after warm-up; "
        "BFS: %d sources, seed %llu\n\n",
        opt.timing.min_reps, opt.timing.min_seconds, opt.sources,
        static_cast<unsigned long long>(opt.seed));

    nlohmann::json context;
    context["program"] = "mimd-bench";
    context["command"] = [&] {
      std::string c;
      for (int i = 0; i < argc; ++i) c += (i ? " " : "") + std::string(argv[i]);
      return c;
    }();
    context["date"] = utc_now();
    context["git"] = git;
    context["compiler"] = MIMD_BENCH_COMPILER;
    context["flags"] = MIMD_BENCH_FLAGS;
    context["kokkos"] = {{"version", ctx.kokkos_version()},
                         {"backend", ctx.backend()},
                         {"devices", kokkos_devices()}};
#ifdef MIMD_HAVE_KOKKOSKERNELS
    context["kokkos_kernels"] = mb::kokkos_kernels_version();
#else
    context["kokkos_kernels"] = nullptr;
#endif
#ifdef MIMD_HAVE_GRAPHBLAS
    context["graphblas"] = graphblas_version;
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
    context["stream"] = {{"copy_gbps", stream.copy_gbps},
                         {"triad_gbps", stream.triad_gbps},
                         {"elements", stream.elements},
                         {"threads", stream.threads}};
    context["timing"] = {{"min_reps", opt.timing.min_reps},
                         {"min_seconds", opt.timing.min_seconds},
                         {"warmup_seconds", opt.timing.warmup_seconds},
                         {"max_rounds", opt.timing.rounds},
                         {"clean_ratio", opt.timing.clean_ratio},
                         {"bfs_sources", opt.sources},
                         {"bfs_seed", opt.seed}};
    context["byte_model"] =
        "A once (values + column indices + row offsets) + B once (n*k) + C read and written "
        "(2*m*k)";

    // ---- run --------------------------------------------------------------------------
    int total = 0;
    for (const auto& in : suite.inputs)
      total += (in.spmm ? mb::spmm_steps(in, opt) : 0) + (in.bfs ? mb::bfs_steps(opt) : 0);
    mb::Progress progress(total);
    std::vector<mb::Record> records;
    int load_failures = 0;
    nlohmann::json loads = nlohmann::json::array();  // reader throughput per file
    mb::print_table_header();
    for (const auto& in : suite.inputs) {
      if (!in.spmm && !in.bfs) continue;
      progress.note("loading " + in.name);
      mimd::HostCsr<double> a;
      try {
        if (in.spec.empty()) {
          mimd::ReadOptions ro;
          ro.progress = false;
          ro.use_cache = true;  // parse each file once (binary CSR cache, see io.hpp)
          mimd::LoadStats ls;
          a = mimd::read_matrix<double>(in.path, ro, &ls);
          const double mb = static_cast<double>(ls.from_cache ? ls.cache_bytes : ls.bytes) * 1e-6;
          loads.push_back({{"input", in.name},
                           {"path", in.path},
                           {"from_cache", ls.from_cache},
                           {"mbytes", mb},
                           {"seconds", ls.seconds},
                           {"mb_per_s", ls.seconds > 0 ? mb / ls.seconds : 0.0}});
        } else {
          a = mimd::generate(in.spec);
        }
      } catch (const std::exception& e) {
        progress.done();
        std::fprintf(stderr, "mimd-bench: warning: skipping %s: %s\n", in.name.c_str(), e.what());
        if (explicit_inputs) ++load_failures;
        continue;
      }
      for (int kernel = 0; kernel < 2; ++kernel) {
        std::vector<mb::Record> group;
        if (kernel == 0 && in.spmm) group = mb::bench_spmm(ctx, in, a, opt, progress);
        if (kernel == 1 && in.bfs) group = mb::bench_bfs(ctx, in, a, opt, progress);
        if (group.empty()) continue;
        progress.done();
        mb::print_group(group);
        for (const auto& r : group)
          if (!r.verified)
            std::fprintf(stderr, "mimd-bench: VERIFICATION FAILED: %s %s on %s k=%d: %s\n",
                         r.kernel.c_str(), r.impl.c_str(), r.input.c_str(), r.k, r.note.c_str());
        records.insert(records.end(), group.begin(), group.end());
      }
    }
    progress.done();

    if (!loads.empty()) {
      // Reader throughput: text parsed (cold) or binary cache read, per second.
      std::printf("\nLOADS (MB of uncompressed text parsed, or of binary cache read)\n");
      for (const auto& l : loads)
        std::printf("  %-24s %-5s %9.2f MB in %8.4f s = %8.1f MB/s\n",
                    l["input"].get<std::string>().c_str(),
                    l["from_cache"].get<bool>() ? "cache" : "parse", l["mbytes"].get<double>(),
                    l["seconds"].get<double>(), l["mb_per_s"].get<double>());
    }
    const nlohmann::json summary = mb::print_summary(
        records, stream.triad_gbps,
        static_cast<double>(ctx.topology().cache_bytes(3) ? ctx.topology().cache_bytes(3)
                                                          : ctx.topology().cache_bytes(2)));
    int failures = 0;
    for (const auto& r : records)
      if (!r.verified) ++failures;

    if (!json_path.empty()) {
      nlohmann::json doc;
      doc["context"] = context;
      doc["records"] = nlohmann::json::array();
      for (const auto& r : records) doc["records"].push_back(mb::record_json(r));
      doc["summary"] = summary;
      doc["loads"] = loads;
      std::ofstream f(json_path);
      if (!f) throw mimd::IoError(json_path, "cannot open for writing");
      f << doc.dump(1) << "\n";
      if (!f) throw mimd::IoError(json_path, "write failed");
    }
    if (!csv_path.empty()) {
      std::ofstream f(csv_path);
      if (!f) throw mimd::IoError(csv_path, "cannot open for writing");
      f << mb::csv_header() << "\n";
      for (const auto& r : records) f << mb::csv_row(r) << "\n";
      if (!f) throw mimd::IoError(csv_path, "write failed");
    }
#ifdef MIMD_HAVE_GRAPHBLAS
    mb::graphblas_finalize();
#endif
    if (failures > 0) {
      std::fprintf(stderr,
                   "\nmimd-bench: *** %d MEASUREMENT(S) FAILED VERIFICATION (see above) ***\n",
                   failures);
      return 1;
    }
    if (load_failures > 0) return 1;
    return 0;
  } catch (const mimd::InvalidArgument& e) {
    std::fprintf(stderr, "mimd-bench: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mimd-bench: error: %s\n", e.what());
    return 3;
  }
}
