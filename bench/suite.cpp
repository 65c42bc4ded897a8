// What mimd-bench runs: the implementations, the timing policy and the inputs.
#include <algorithm>
#include <cstdio>

#include "driver.hpp"
#include "mimd/datasets.hpp"
#include "mimd/error.hpp"
#include "mimd/generators.hpp"
#include "registry.hpp"

namespace mimd::bench {

namespace {

bool starts_with(const std::string& s, const std::string& p) {
  return s.rfind(p, 0) == 0;
}

bool wants(const Config& config, const std::string& kernel) {
  return std::find(config.kernels.begin(), config.kernels.end(), kernel) != config.kernels.end();
}

// `names` (default: the registry's default selection) checked against the registry.
std::vector<std::string> select(const std::vector<std::string>& names, const std::string& kernel,
                                bool ours, const char* option) {
  if (names.empty()) return default_selection(kernel, ours);
  for (const auto& n : names) {
    const ImplInfo* i = find_impl(n);
    const bool fits = i && (ours ? i->ours && i->kernel == kernel : !i->ours);
    if (!fits)
      throw InvalidArgument(std::string(option) + ": '" + n + "' is not a known " +
                            (ours ? "mimd " + kernel + " algorithm" : std::string("baseline")) +
                            "; known: " + [&] {
                              std::string all;
                              for (const auto& e : registry())
                                if (e.ours == ours && (!ours || e.kernel == kernel))
                                  all += (all.empty() ? "" : ", ") + e.name;
                              return all;
                            }());
    if (!i->available)
      throw InvalidArgument(std::string(option) + ": '" + n + "' is not available in this build");
  }
  return names;
}

// Graph kinds of the manifest that BFS runs on besides the SNAP edge lists.
bool is_graph_kind(const ManifestEntry& e) {
  return starts_with(e.kind, "social") || starts_with(e.kind, "road") ||
         starts_with(e.kind, "internet") || starts_with(e.kind, "random-graph") ||
         starts_with(e.path, "suitesparse-large/");
}

// The real datasets of the first dataset folder that has a MANIFEST.tsv.
// `only`: short names to keep (empty: all).
void add_datasets(std::vector<Input>& suite, const std::vector<std::string>& only) {
  const std::string dir = shared_dataset_dir();
  if (dir.empty()) {
    std::fprintf(stderr,
                 "mimd-bench: warning: no dataset folder with a MANIFEST.tsv found "
                 "(set MIMD_DATASETS); running generated inputs only\n");
    return;
  }
  for (const auto& e : read_manifest(dir)) {
    if (e.is_complex()) continue;
    if (!only.empty() && std::find(only.begin(), only.end(), e.short_name()) == only.end())
      continue;
    Input in;
    in.name = e.short_name();
    in.path = dir + "/" + e.path;
    in.real = true;
    in.spmm = starts_with(e.path, "suitesparse");
    in.bfs = e.is_snap() || is_graph_kind(e);
    if (in.spmm || in.bfs) suite.push_back(in);
  }
}

Input generated(const std::string& spec, bool spmm, bool bfs, std::vector<int> ks = {}) {
  Input in;
  in.name = spec;
  in.spec = spec;
  in.spmm = spmm;
  in.bfs = bfs;
  in.ks = std::move(ks);
  return in;
}

}  // namespace

RunOptions make_run_options(const Config& config, int threads) {
  RunOptions opt;
  opt.threads = threads;
  opt.sources = config.smoke ? std::min(config.sources, 8) : config.sources;
  opt.seed = config.seed;
  opt.run_float = config.with_float;
  if (!config.ks.empty())
    opt.ks = config.ks;
  else if (config.smoke)
    opt.ks = {1, 8};
  else if (config.quick)
    opt.ks = {1, 32};
  else
    opt.ks = {1, 8, 32, 128};
  opt.spmm_algorithms = select(config.algorithms, "spmm", true, "--algorithms");
  opt.bfs_algorithms = select(config.bfs_algorithms, "bfs", true, "--bfs-algorithms");
  opt.baselines = select(config.baselines, "", false, "--baselines");

  TimingPolicy& t = opt.timing;
  if (config.smoke) {
    t.min_seconds = 0;
    t.warmup_seconds = 0;
    t.max_reps = 10;
    t.rounds = 1;
  } else {
    t.min_seconds = config.quick ? 0.02 : 0.1;
    t.warmup_seconds = config.quick ? 0.005 : 0.02;
    t.max_reps = 100000;
    t.rounds = 2;
  }
  if (config.min_seconds >= 0) t.min_seconds = config.min_seconds;
  t.min_reps = config.min_reps;
  if (config.rounds > 0) t.rounds = config.rounds;
  t.max_reps = std::max(t.max_reps, config.min_reps);
  t.time_limit = config.time_limit;
  return opt;
}

std::vector<Input> make_suite(const Config& config) {
  std::vector<Input> suite;
  if (!config.inputs.empty()) {
    for (const auto& name : config.inputs) {
      Input in;
      in.name = name;
      if (is_generator_spec(name)) {
        in.spec = name;
      } else {
        in.path = find_dataset(name);
        in.real = true;
      }
      in.spmm = in.bfs = true;
      suite.push_back(in);
    }
  } else if (config.smoke) {
    suite.push_back(generated("stencil2d:40", true, false));
    suite.push_back(generated("kron:10", false, true));
  } else if (config.quick) {
    add_datasets(suite, {"bcsstk13", "bcsstk33", "rajat01", "crack", "Pd", "CA-GrQc", "Wiki-Vote",
                         "as20000102"});
    // Larger than the last-level cache at every k of the quick suite.
    suite.push_back(generated("powerlaw:300000:16", true, false, {1, 8}));
    suite.push_back(generated("powerlaw:100000:16", true, false, {32}));
    suite.push_back(generated("kron:16", false, true));
  } else {
    add_datasets(suite, {});
    // Inputs larger than the last-level cache (A + B + C; the real matrices fit in it)
    // at every k: 1M rows at k = 1 and 8, fewer rows where B and C grow with k, which
    // keeps them 2-9x the cache of this project's machines (34 MB) and the suite's
    // time reasonable (the powerlaw inputs gather B at random: ~1 GFLOP/s).
    suite.push_back(generated("powerlaw:1000000:16", true, false, {1, 8}));
    suite.push_back(generated("stencil3d:100", true, false, {1, 8, 32}));
    suite.push_back(generated("powerlaw:100000:16", true, false, {32, 128}));
    suite.push_back(generated("stencil3d:50", true, false, {128}));
    suite.push_back(generated("kron:20", false, true));
    suite.push_back(generated("urand:20", false, true));
  }
  for (auto& in : suite) {
    if (!config.ks.empty()) in.ks.clear();  // --k applies to every input
    in.spmm = in.spmm && wants(config, "spmm");
    in.bfs = in.bfs && wants(config, "bfs");
  }
  return suite;
}

void print_suite(const std::vector<Input>& suite) {
  for (const auto& in : suite)
    std::printf("%-28s %-5s %-4s %s\n", in.name.c_str(), in.spmm ? "spmm" : "", in.bfs ? "bfs" : "",
                in.real ? in.path.c_str() : "(generated)");
}

}  // namespace mimd::bench
