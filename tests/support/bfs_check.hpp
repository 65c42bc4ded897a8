// Helpers of the BFS tests: graphs from adjacency lists, a small seeded random-graph
// builder, and the check every algorithm's result must pass (Graph500 validation plus
// agreement with the reference's depths and counts).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "mimd/bfs.hpp"
#include "support/test_context.hpp"

namespace mimd::testing {

/// A pattern from adjacency lists, kept exactly as given (duplicates, self-loops, order).
inline HostPattern pattern_from_lists(const std::vector<std::vector<std::int32_t>>& adj) {
  HostPattern p;
  p.nrows = p.ncols = static_cast<std::int32_t>(adj.size());
  p.row_map = HostPattern::row_map_type("row_map", adj.size() + 1);
  std::int64_t nnz = 0;
  for (std::size_t i = 0; i < adj.size(); ++i) {
    nnz += static_cast<std::int64_t>(adj[i].size());
    p.row_map(i + 1) = nnz;
  }
  p.entries = HostPattern::entries_type("entries", static_cast<std::size_t>(nnz));
  std::int64_t k = 0;
  for (const auto& row : adj)
    for (std::int32_t v : row) p.entries(k++) = v;
  return p;
}

/// Directed random graph: `edges` endpoints pairs drawn with a skew (a vertex id is the
/// minimum of `skew` uniform draws, so low ids become hubs); duplicates and self-loops
/// are kept on purpose.
inline HostPattern random_pattern(std::int32_t n, std::int64_t edges, int skew,
                                  std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int32_t> pick(0, n - 1);
  auto draw = [&]() {
    std::int32_t v = pick(rng);
    for (int s = 1; s < skew; ++s) v = std::min(v, pick(rng));
    return v;
  };
  std::vector<std::vector<std::int32_t>> adj(static_cast<std::size_t>(n));
  for (std::int64_t e = 0; e < edges; ++e) {
    const std::int32_t u = draw();
    adj[u].push_back(pick(rng));
  }
  return pattern_from_lists(adj);
}

/// `count` random vertices with out-edges (seeded), plus the first vertex without
/// out-edges when the graph has one.
inline std::vector<std::int32_t> pick_sources(const HostPattern& g, std::size_t count,
                                              std::uint64_t seed) {
  std::vector<std::int32_t> sources;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int32_t> pick(0, g.nrows - 1);
  for (int tries = 0; sources.size() < count && tries < 10000; ++tries) {
    const std::int32_t v = pick(rng);
    if (g.row_map(v + 1) > g.row_map(v)) sources.push_back(v);
  }
  for (std::int32_t v = 0; v < g.nrows; ++v)
    if (g.row_map(v + 1) == g.row_map(v)) {
      sources.push_back(v);
      break;
    }
  return sources;
}

/// The reference search from `source` (parents, depths, counts).
inline BfsResult reference_bfs(const BfsGraph& g, std::int32_t source) {
  BfsOptions o;
  o.algorithm = BfsAlgorithm::Reference;
  return bfs(context(), g, source, o);
}

/// Runs `options` from `source`, validates the result (Graph500 rules) and compares
/// it with the reference result `ref` of the same source.
inline void check_bfs(const BfsGraph& g, std::int32_t source, const BfsOptions& options,
                      const BfsResult& ref, const std::string& what) {
  SCOPED_TRACE(what + ", algorithm " + to_string(options.algorithm) + ", source " +
               std::to_string(source));
  const BfsResult got = bfs(context(), g, source, options);
  const auto n = static_cast<std::size_t>(g.num_vertices());
  ASSERT_EQ(got.parents.size(), options.want_parents ? n : 0);
  ASSERT_EQ(got.depths.size(), options.want_depths ? n : 0);
  EXPECT_EQ(got.reached, ref.reached);
  if (options.want_parents || options.want_depths) {
    const BfsValidation v = validate_bfs(g, source, got.parents, got.depths);
    ASSERT_TRUE(v.ok) << v.message;
  }
  if (options.want_depths) {
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(got.depths[i], ref.depths[i]) << "depth of vertex " << i;
  }
  if (options.algorithm == BfsAlgorithm::TopDown) {
    EXPECT_EQ(got.edges_examined, ref.edges_examined);
  }
  EXPECT_LE(got.edges_examined, options.algorithm == BfsAlgorithm::TopDown
                                    ? ref.edges_examined
                                    : static_cast<std::int64_t>(g.num_stored_edges()) *
                                          static_cast<std::int64_t>(n + 1));
}

inline void check_bfs(const BfsGraph& g, std::int32_t source, const BfsOptions& options,
                      const std::string& what) {
  check_bfs(g, source, options, reference_bfs(g, source), what);
}

/// Every algorithm from every given source (one reference search per source).
inline void check_all_algorithms(const BfsGraph& g, const std::vector<std::int32_t>& sources,
                                 const std::string& what) {
  for (std::int32_t s : sources) {
    const BfsResult ref = reference_bfs(g, s);
    for (BfsAlgorithm a : bfs_algorithms()) {
      BfsOptions o;
      o.algorithm = a;
      check_bfs(g, s, o, ref, what);
    }
  }
}

}  // namespace mimd::testing
