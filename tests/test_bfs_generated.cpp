// BFS on generated Kronecker and uniform random graphs at several sizes and seeds,
// undirected and directed (one orientation of every edge), several sources each,
// including an isolated vertex when the graph has one.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "mimd/bfs.hpp"
#include "mimd/generators.hpp"
#include "support/bfs_check.hpp"

namespace mimd {
namespace {

using testing::check_all_algorithms;
using testing::pattern_from_lists;
using testing::pick_sources;

/// Keeps one direction of every undirected edge, chosen by the parity of u + v, so the
/// result is truly directed (reachability differs from the undirected graph).
HostPattern orient(const HostPattern& sym) {
  std::vector<std::vector<std::int32_t>> adj(static_cast<std::size_t>(sym.nrows));
  for (std::int32_t u = 0; u < sym.nrows; ++u)
    for (std::int64_t e = sym.row_map(u); e < sym.row_map(u + 1); ++e) {
      const std::int32_t v = sym.entries(e);
      if ((((u + v) & 1) == 0) == (u < v)) adj[u].push_back(v);
    }
  return pattern_from_lists(adj);
}

void check_generated(const HostPattern& sym, const std::string& name, std::uint64_t seed) {
  const std::vector<std::int32_t> sources = pick_sources(sym, 3, seed);
  check_all_algorithms(BfsGraph::undirected(sym), sources, name + " undirected");
  const HostPattern dir = orient(sym);
  check_all_algorithms(BfsGraph::directed(dir), pick_sources(dir, 3, seed), name + " directed");
}

TEST(BfsGenerated, Kronecker) {
  for (int scale : {4, 9, 14})
    for (std::uint64_t seed : {1u, 2u})
      check_generated(kronecker(scale, 16, seed),
                      "kron" + std::to_string(scale) + " seed " + std::to_string(seed), seed);
}

TEST(BfsGenerated, KroneckerHubsSplitFinely) {
  // Hub degree 64: every vertex above it is spread over several top-down blocks.
  const HostPattern g = kronecker(14, 16, 3);
  const std::vector<std::int32_t> sources = pick_sources(g, 3, 3);
  ASSERT_EQ(sources.size(), 4u) << "expected three sources with edges and an isolated one";
  std::int64_t max_degree = 0;
  for (std::int32_t v = 0; v < g.nrows; ++v)
    max_degree = std::max(max_degree, g.row_map(v + 1) - g.row_map(v));
  TuningProfile& tune = testing::context().tuning();
  const int saved = tune.bfs_hub_degree;
  tune.bfs_hub_degree = 64;
  EXPECT_GT(max_degree, 4 * tune.bfs_hub_degree);
  check_all_algorithms(BfsGraph::undirected(g), sources, "kron14 hub degree 64");
  tune.bfs_hub_degree = saved;
}

TEST(BfsGenerated, UniformRandom) {
  for (int scale : {4, 9, 14})
    for (int edge_factor : {1, 16})
      check_generated(uniform_random(scale, edge_factor, 7 + scale),
                      "urand" + std::to_string(scale) + " ef " + std::to_string(edge_factor),
                      static_cast<std::uint64_t>(scale));
}

}  // namespace
}  // namespace mimd
