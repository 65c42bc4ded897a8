// mimd-closeness: closeness centrality estimated from a sample of BFS sources
// (Eppstein & Wang 2004) through BfsRunner, which reuses its buffers across sources.
// Checked against a plain sequential queue BFS from the same sources: the per-vertex
// distance sums must agree exactly. Exit 1 on a mismatch, 77 when the dataset is absent.
#include <mimd/bfs.hpp>
#include <mimd/datasets.hpp>
#include <mimd/error.hpp>
#include <mimd/generators.hpp>
#include <mimd/io.hpp>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

namespace {

constexpr int kSkip = 77;  // ctest's SKIP_RETURN_CODE

// Per vertex: the sum of its distances to the sources that reach it, and their count.
struct DistanceSums {
  std::vector<std::int64_t> sum;
  std::vector<std::int32_t> reached_by;
  explicit DistanceSums(std::int32_t n)
      : sum(static_cast<std::size_t>(n), 0), reached_by(static_cast<std::size_t>(n), 0) {}
  void add(const std::vector<std::int32_t>& depth) {
    for (std::size_t v = 0; v < depth.size(); ++v)
      if (depth[v] >= 0) {
        sum[v] += depth[v];
        ++reached_by[v];
      }
  }
};

// The obviously correct BFS the example is checked against.
std::vector<std::int32_t> queue_bfs(const mimd::HostPattern& g, std::int32_t source) {
  std::vector<std::int32_t> depth(static_cast<std::size_t>(g.nrows), -1), queue;
  depth[static_cast<std::size_t>(source)] = 0;
  queue.push_back(source);
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const std::int32_t u = queue[head];
    for (std::int64_t p = g.row_map(u); p < g.row_map(u + 1); ++p) {
      const std::int32_t v = g.entries(p);
      if (depth[static_cast<std::size_t>(v)] < 0) {
        depth[static_cast<std::size_t>(v)] = depth[static_cast<std::size_t>(u)] + 1;
        queue.push_back(v);
      }
    }
  }
  return depth;
}

}  // namespace

int main(int argc, char** argv) {
  std::string input;
  int num_sources = 64;
  CLI::App app{"Closeness centrality from multi-source BFS (an example of BfsRunner)"};
  app.add_option("graph", input, "generator spec (kron:14) or dataset name/path (ca-GrQc)")
      ->required();
  app.add_option("--sources", num_sources, "BFS sources sampled")->check(CLI::Range(1, 1 << 20));
  CLI11_PARSE(app, argc, argv);
  try {
    const mimd::ExecutionContext ctx;
    mimd::HostPattern pattern;
    if (mimd::is_generator_spec(input)) {
      pattern = mimd::generate(input).pattern();
    } else {
      std::string path;
      try {
        path = mimd::find_dataset(input);
      } catch (const mimd::IoError& e) {
        std::printf("SKIP: dataset %s not found: %s\n", input.c_str(), e.what());
        return kSkip;
      }
      pattern = mimd::read_matrix<double>(path).pattern();
    }
    const mimd::HostPattern g = mimd::BfsGraph::symmetrize(pattern);
    const mimd::BfsGraph graph = mimd::BfsGraph::undirected(g);
    const std::int32_t n = graph.num_vertices();
    mimd::BfsOptions options;
    options.want_parents = false;
    mimd::BfsRunner runner(ctx, graph, options);

    // Sources spread evenly over the vertex ids (deterministic).
    const std::int32_t s = std::min<std::int32_t>(num_sources, n);
    DistanceSums fast(n), slow(n);
    double bfs_seconds = 0;
    for (std::int32_t i = 0; i < s; ++i) {
      const auto source = static_cast<std::int32_t>(static_cast<std::int64_t>(i) * n / s);
      const auto t0 = std::chrono::steady_clock::now();
      const mimd::BfsResult& r = runner.run(source);
      bfs_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      fast.add(r.depths);
      slow.add(queue_bfs(g, source));
    }
    for (std::int32_t v = 0; v < n; ++v)
      if (fast.sum[static_cast<std::size_t>(v)] != slow.sum[static_cast<std::size_t>(v)] ||
          fast.reached_by[static_cast<std::size_t>(v)] !=
              slow.reached_by[static_cast<std::size_t>(v)]) {
        std::printf("FAIL: vertex %d: distance sum %lld over %d sources, reference %lld over %d\n",
                    v, static_cast<long long>(fast.sum[static_cast<std::size_t>(v)]),
                    fast.reached_by[static_cast<std::size_t>(v)],
                    static_cast<long long>(slow.sum[static_cast<std::size_t>(v)]),
                    slow.reached_by[static_cast<std::size_t>(v)]);
        return 1;
      }
    // Closeness of v: (sources reaching v) / (sum of their distances to v), the inverse
    // of v's mean distance to the sampled sources of its component.
    std::vector<double> closeness(static_cast<std::size_t>(n), 0.0);
    for (std::size_t v = 0; v < closeness.size(); ++v)
      if (fast.sum[v] > 0) closeness[v] = static_cast<double>(fast.reached_by[v]) / fast.sum[v];
    std::vector<std::int32_t> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    const std::size_t top = std::min<std::size_t>(5, order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top), order.end(),
                      [&](std::int32_t x, std::int32_t y) {
                        return closeness[static_cast<std::size_t>(x)] >
                               closeness[static_cast<std::size_t>(y)];
                      });
    std::printf("%s: %d vertices, %lld stored edges, %d sources, %.3f ms per BFS\n", input.c_str(),
                n, static_cast<long long>(graph.num_stored_edges()), s, 1e3 * bfs_seconds / s);
    for (std::size_t t = 0; t < top; ++t)
      std::printf("  vertex %d: closeness %.4f\n", order[t],
                  closeness[static_cast<std::size_t>(order[t])]);
    std::printf("PASS: distance sums agree with a sequential queue BFS for every vertex\n");
    return 0;
  } catch (const mimd::Error& e) {
    std::fprintf(stderr, "mimd-closeness: %s\n", e.what());
    return 1;
  }
}
