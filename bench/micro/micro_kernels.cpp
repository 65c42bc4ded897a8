// mimd-micro: Google Benchmark micro-benchmarks of the kernels on generated inputs.
// Each timed iteration ends with Kokkos::fence(); counters give FLOP/s (SpMM: 2 nnz k
// per call), effective bytes/s (the model of mimd-bench: A once, B once, C read and
// written) and TEPS (BFS: undirected edges per search). The build and machine context
// is recorded with AddCustomContext. layout_left.cpp adds the left_cost family, on the
// generated inputs and the Matrix Market files of --mimd_matrices=A,B,... (the one option
// of mimd-micro's own; the others are Google Benchmark's). Exit status: 0, 1 for an
// argument Google Benchmark does not know, 2 for a file that cannot be read.
//
//   mimd-micro --benchmark_filter=spmm/lssm --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "micro.hpp"
#include "mimd/bfs.hpp"
#include "mimd/context.hpp"
#include "mimd/error.hpp"
#include "mimd/generators.hpp"
#include "mimd/spmm.hpp"

namespace {

const mimd::ExecutionContext* g_ctx = nullptr;

// Generated inputs, built once per process.
const mimd::HostCsr<double>& input(const std::string& spec) {
  static std::map<std::string, mimd::HostCsr<double>> cache;
  auto it = cache.find(spec);
  if (it == cache.end()) it = cache.emplace(spec, mimd::generate(spec)).first;
  return it->second;
}

const char* kSpmmInputs[] = {"powerlaw:200000:16", "stencil3d:40", "uniform:200000:8"};
const char* kBfsInputs[] = {"kron:16", "urand:16"};

void bm_spmm(benchmark::State& state, mimd::SpmmAlgorithm alg) {
  const std::string spec = kSpmmInputs[state.range(0)];
  const int k = static_cast<int>(state.range(1));
  const auto& host = input(spec);
  const auto a = mimd::to_memory_space<mimd::DefaultMemorySpace>(host);
  using Layout = Kokkos::LayoutRight;
  mimd::Dense<double, Layout> b("B", a.ncols, k), c("C", a.nrows, k);
  Kokkos::deep_copy(b, 1.0);
  mimd::SpmmOptions opt;
  opt.algorithm = alg;
  const mimd::SpmmPlan<double, Layout> plan(*g_ctx, a, k, opt);
  for (auto _ : state) {
    plan.apply(1.0, a, b, 0.0, c);
    Kokkos::fence();
  }
  const double nnz = static_cast<double>(a.nnz());
  const double bytes =
      nnz * (sizeof(double) + sizeof(std::int32_t)) + (a.nrows + 1.0) * sizeof(std::int64_t) +
      static_cast<double>(a.ncols) * k * sizeof(double) + 2.0 * a.nrows * k * sizeof(double);
  state.counters["FLOP/s"] =
      benchmark::Counter(2.0 * nnz * k, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes/s"] = benchmark::Counter(
      bytes, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1024);
  state.SetLabel(spec + " k=" + std::to_string(k) + " " + plan.describe());
}

void bm_bfs(benchmark::State& state, mimd::BfsAlgorithm alg) {
  const std::string spec = kBfsInputs[state.range(0)];
  const auto& host = input(spec);
  const auto graph = mimd::BfsGraph::undirected(mimd::BfsGraph::symmetrize(host.pattern()));
  mimd::BfsOptions opt;
  opt.algorithm = alg;
  opt.want_depths = false;
  mimd::BfsRunner runner(*g_ctx, graph, opt);
  // Fixed sources of non-zero degree, cycled through.
  std::vector<std::int32_t> sources;
  const auto& g = graph.host_out();
  for (std::int32_t v = 0; v < g.nrows && sources.size() < 16; v += 1 + g.nrows / 17)
    if (g.row_map(v + 1) > g.row_map(v)) sources.push_back(v);
  std::size_t i = 0;
  for (auto _ : state) {
    runner.run(sources[i++ % sources.size()]);
    Kokkos::fence();
  }
  state.counters["TEPS"] = benchmark::Counter(static_cast<double>(graph.num_teps_edges()),
                                              benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(spec);
}

void spmm_args(benchmark::internal::Benchmark* b) {
  for (int in = 0; in < 3; ++in)
    for (int k : {1, 8, 32}) b->Args({in, k});
  b->ArgNames({"input", "k"})->UseRealTime()->Unit(benchmark::kMicrosecond);
}

void bfs_args(benchmark::internal::Benchmark* b) {
  for (int in = 0; in < 2; ++in) b->Args({in});
  b->ArgNames({"input"})->UseRealTime()->Unit(benchmark::kMicrosecond);
}

// Takes --mimd_matrices=A,B,... out of argv (before Google Benchmark reads the rest).
std::vector<std::string> take_matrices(int& argc, char** argv) {
  static constexpr char kFlag[] = "--mimd_matrices=";
  std::vector<std::string> paths;
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], kFlag, sizeof(kFlag) - 1) != 0) {
      argv[out++] = argv[i];
      continue;
    }
    std::string list = argv[i] + sizeof(kFlag) - 1;
    for (std::size_t b = 0; b <= list.size();) {
      const std::size_t e = std::min(list.find(',', b), list.size());
      if (e > b) paths.push_back(list.substr(b, e - b));
      b = e + 1;
    }
  }
  argc = out;
  return paths;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> matrices = take_matrices(argc, argv);
  const mimd::ExecutionContext ctx;
  g_ctx = &ctx;
  benchmark::AddCustomContext("mimd.compiler", MIMD_BENCH_COMPILER);
  benchmark::AddCustomContext("mimd.flags", MIMD_BENCH_FLAGS);
  benchmark::AddCustomContext("mimd.kokkos", ctx.kokkos_version() + " " + ctx.backend());
  benchmark::AddCustomContext("mimd.binding", ctx.binding_summary());
  benchmark::AddCustomContext("mimd.tuning", ctx.tuning().name);
  benchmark::AddCustomContext("mimd.cpu", ctx.topology().cpu_model);

  for (auto alg : mimd::spmm_algorithms()) {
    if (alg == mimd::SpmmAlgorithm::Reference) continue;
    benchmark::RegisterBenchmark((std::string("spmm/") + mimd::to_string(alg)).c_str(), bm_spmm,
                                 alg)
        ->Apply(spmm_args);
  }
  benchmark::RegisterBenchmark("spmm/auto", bm_spmm, mimd::SpmmAlgorithm::Auto)->Apply(spmm_args);
  for (auto alg : mimd::bfs_algorithms()) {
    if (alg == mimd::BfsAlgorithm::Reference) continue;
    benchmark::RegisterBenchmark((std::string("bfs/") + mimd::to_string(alg)).c_str(), bm_bfs, alg)
        ->Apply(bfs_args);
  }
  try {
    mimd_micro::register_layout_left(ctx.tuning(), matrices);
  } catch (const mimd::Error& e) {
    std::fprintf(stderr, "mimd-micro: %s\n", e.what());
    return 2;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
