// BFS measurements: every mimd algorithm and the GraphBLAS push/pull BFS on the
// symmetrised structure of one input, from the same fixed-seed sources; every search
// checked with mimd::validate_bfs (outside the timed region) before its time counts.
#include <algorithm>
#include <chrono>
#include <numeric>

#include "bench.hpp"
#include "mimd/generators.hpp"

namespace mimd::bench {

namespace {

class MimdBfs final : public BfsImpl {
 public:
  MimdBfs(const ExecutionContext& ctx, const BfsGraph& g, BfsAlgorithm algorithm)
      : runner_(ctx, g, [&] {
          BfsOptions o;
          o.algorithm = algorithm;
          o.want_parents = true;
          o.want_depths = false;  // parents only, as GAP and LAGraph time it
          return o;
        }()) {}
  void run(std::int32_t source) override {
    last_ = &runner_.run(source);
    Kokkos::fence();
  }
  std::vector<std::int32_t> parents() const override { return last_->parents; }

 private:
  BfsRunner runner_;
  const BfsResult* last_ = nullptr;
};

// GAP's source picking: uniformly random vertices of non-zero degree, fixed seed.
std::vector<std::int32_t> pick_sources(const HostPattern& g, int count, std::uint64_t seed) {
  std::vector<std::int32_t> out;
  if (g.nnz() == 0) return out;
  std::uint64_t state = seed;
  auto next = [&state] {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  while (static_cast<int>(out.size()) < count) {
    const auto v = static_cast<std::int32_t>(next() % static_cast<std::uint64_t>(g.nrows));
    if (g.row_map(v + 1) > g.row_map(v)) out.push_back(v);
  }
  return out;
}

std::vector<BfsFactory> factories(const ExecutionContext& ctx, const RunOptions& options) {
  std::vector<BfsFactory> out;
  for (const auto& name : options.bfs_algorithms) {
    const BfsAlgorithm alg = bfs_algorithm_from_string(name);
    out.push_back({name, false, [&ctx, alg](const BfsGraph& g) -> std::unique_ptr<BfsImpl> {
                     return std::make_unique<MimdBfs>(ctx, g, alg);
                   }});
  }
#ifdef MIMD_HAVE_GRAPHBLAS
  for (const auto& b : options.baselines)
    if (b == "graphblas_bfs") out.push_back(graphblas_bfs_factory());
#endif
  return out;
}

}  // namespace

int bfs_steps(const RunOptions& options) {
  int n = static_cast<int>(options.bfs_algorithms.size());
  for (const auto& b : options.baselines)
    if (b == "graphblas_bfs") ++n;
  return n;
}

std::vector<Record> bench_bfs(const ExecutionContext& ctx, const Input& input,
                              const HostCsr<double>& a, const RunOptions& options,
                              Progress& progress) {
  std::vector<Record> records;
  const auto impls = factories(ctx, options);
  Record base;
  base.kernel = "bfs";
  base.input = input.name;
  base.input_kind = input.real ? "real" : "generated";
  base.scalar = "pattern";
  base.threads = ctx.num_threads();
  if (a.nrows != a.ncols) {
    for (const auto& f : impls) {
      progress.step("bfs " + input.name + " " + f.name);
      Record r = base;
      r.impl = f.name;
      r.baseline = f.baseline;
      r.rows = a.nrows;
      r.cols = a.ncols;
      r.verified = true;
      r.note = "skipped: not square";
      records.push_back(r);
    }
    return records;
  }

  // Generated graphs that are symmetric already are used as they are.
  const bool symmetric = !input.real && generates_symmetric(input.spec);
  if (!symmetric) progress.note("bfs " + input.name + ": symmetrising");
  const HostPattern sym = symmetric ? a.pattern() : BfsGraph::symmetrize(a.pattern());
  const BfsGraph graph = BfsGraph::undirected(sym);
  const RowStats st = row_stats(sym);
  base.rows = sym.nrows;
  base.cols = sym.ncols;
  base.nnz = sym.nnz();
  base.mean_row = st.mean;
  base.max_row = st.max_row;
  const auto sources = pick_sources(sym, options.sources, options.seed);
  const double teps_edges = static_cast<double>(graph.num_teps_edges());
  // validate_bfs is O(edges): check every source on small graphs, a prefix on big ones.
  const int validated =
      std::min<int>({options.max_validated_sources, static_cast<int>(sources.size()),
                     std::max<int>(4, static_cast<int>(4e8 / std::max<double>(1.0, sym.nnz())))});

  for (const auto& f : impls) {
    progress.step("bfs " + input.name + " " + f.name);
    Record r = base;
    r.impl = f.name;
    r.baseline = f.baseline;
    if (sources.empty()) {
      r.verified = true;
      r.note = "skipped: no edges";
      records.push_back(r);
      continue;
    }
    try {
      auto impl = f.make(graph);
      impl->run(sources[0]);  // warm-up
      // One sweep = one search from every source. Validation in the first sweep only;
      // the sweep with the lowest mean time is reported (see the protocol in bench.hpp).
      // At most two sweeps: 64 sources already average out most of the noise.
      const int sweeps = std::min(2, std::max(1, options.timing.rounds));
      std::vector<double> best;
      double best_mean = 0;
      r.verified = true;
      for (int sweep = 0; sweep < sweeps && r.verified; ++sweep) {
        std::vector<double> times;
        for (std::size_t s = 0; s < sources.size(); ++s) {
          const auto t0 = std::chrono::steady_clock::now();
          impl->run(sources[s]);
          times.push_back(
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
          if (sweep == 0 && static_cast<int>(s) < validated) {
            const BfsValidation v = validate_bfs(graph, sources[s], impl->parents(), {});
            if (!v.ok) {
              r.verified = false;
              r.note = "verification failed from source " + std::to_string(sources[s]) + ": " +
                       v.message;
              break;
            }
          }
        }
        const double mean = std::accumulate(times.begin(), times.end(), 0.0) / times.size();
        if (sweep == 0 || mean < best_mean) {
          best_mean = mean;
          best = times;
        }
      }
      if (r.verified) {
        r.time.reps = static_cast<int>(best.size());
        r.time.rounds = sweeps;
        r.time.median = median_of(best);
        r.time.min = *std::min_element(best.begin(), best.end());
        r.time.max = *std::max_element(best.begin(), best.end());
        r.gteps = teps_edges / best_mean * 1e-9;
        r.note = "validated " + std::to_string(validated) + "/" + std::to_string(best.size()) +
                 " sources";
      }
    } catch (const std::exception& e) {
      r.verified = false;
      r.note = std::string("error: ") + e.what();
    }
    records.push_back(r);
  }
  return records;
}

}  // namespace mimd::bench
