// BFS on hand-made and small random graphs: every algorithm validated and compared
// with the reference; options, errors and buffer reuse.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <numeric>

#include "mimd/bfs.hpp"
#include "mimd/error.hpp"
#include "support/bfs_check.hpp"
#include "support/test_context.hpp"

namespace mimd {
namespace {

using testing::check_all_algorithms;
using testing::check_bfs;
using testing::context;
using testing::pattern_from_lists;
using testing::ProfileScope;
using testing::random_pattern;
using Lists = std::vector<std::vector<std::int32_t>>;

std::vector<std::int32_t> all_vertices(std::int32_t n) {
  std::vector<std::int32_t> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

TEST(Bfs, AlgorithmNames) {
  for (BfsAlgorithm a : bfs_algorithms()) EXPECT_EQ(bfs_algorithm_from_string(to_string(a)), a);
  EXPECT_EQ(bfs_algorithms().size(), 7u);
  try {
    bfs_algorithm_from_string("sideways");
    FAIL() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("direction_optimizing"), std::string::npos) << e.what();
  }
}

TEST(Bfs, PathExactDepthsAndParents) {
  const BfsGraph g = BfsGraph::undirected(pattern_from_lists({{1}, {0, 2}, {1, 3}, {2, 4}, {3}}));
  for (BfsAlgorithm a : bfs_algorithms()) {
    BfsOptions o;
    o.algorithm = a;
    const BfsResult r = bfs(context(), g, 0, o);
    EXPECT_EQ(r.parents, (std::vector<std::int32_t>{0, 0, 1, 2, 3})) << to_string(a);
    EXPECT_EQ(r.depths, (std::vector<std::int32_t>{0, 1, 2, 3, 4})) << to_string(a);
    EXPECT_EQ(r.reached, 5);
    const BfsResult mid = bfs(context(), g, 2, o);
    EXPECT_EQ(mid.parents, (std::vector<std::int32_t>{1, 2, 2, 2, 3})) << to_string(a);
    EXPECT_EQ(mid.depths, (std::vector<std::int32_t>{2, 1, 0, 1, 2})) << to_string(a);
  }
  check_all_algorithms(g, all_vertices(5), "path");
}

TEST(Bfs, Star) {
  const std::int32_t leaves = 9000;  // above the default hub degree: the centre is split
  Lists adj(leaves + 1);
  for (std::int32_t v = 1; v <= leaves; ++v) {
    adj[0].push_back(v);
    adj[v].push_back(0);
  }
  const BfsGraph g = BfsGraph::undirected(pattern_from_lists(adj));
  check_all_algorithms(g, {0, 1, leaves}, "star");
  BfsOptions o;
  o.algorithm = BfsAlgorithm::TopDown;
  const BfsResult r = bfs(context(), g, 0, o);
  EXPECT_EQ(r.reached, leaves + 1);
  EXPECT_TRUE(
      std::all_of(r.parents.begin(), r.parents.end(), [](std::int32_t p) { return p == 0; }));
}

TEST(Bfs, TwoComponentsAndIsolatedVertices) {
  // {0,1,2} a triangle, {3,4} an edge, 5 and 6 isolated.
  const BfsGraph g =
      BfsGraph::undirected(pattern_from_lists({{1, 2}, {0, 2}, {0, 1}, {4}, {3}, {}, {}}));
  check_all_algorithms(g, all_vertices(7), "two components");
  for (BfsAlgorithm a : bfs_algorithms()) {
    BfsOptions o;
    o.algorithm = a;
    const BfsResult r = bfs(context(), g, 3, o);
    EXPECT_EQ(r.parents, (std::vector<std::int32_t>{-1, -1, -1, 3, 3, -1, -1})) << to_string(a);
    EXPECT_EQ(r.depths, (std::vector<std::int32_t>{-1, -1, -1, 0, 1, -1, -1})) << to_string(a);
    const BfsResult lone = bfs(context(), g, 6, o);
    EXPECT_EQ(lone.reached, 1);
    EXPECT_EQ(lone.depths, (std::vector<std::int32_t>{-1, -1, -1, -1, -1, -1, 0})) << to_string(a);
  }
}

TEST(Bfs, SelfLoopsAndDuplicates) {
  const BfsGraph g = BfsGraph::undirected(
      pattern_from_lists({{0, 1, 1, 0}, {0, 0, 1, 2, 2}, {1, 1, 3, 2}, {2, 3, 3}}));
  check_all_algorithms(g, all_vertices(4), "self-loops and duplicates");
}

TEST(Bfs, SingleVertexAndNoEdges) {
  check_all_algorithms(BfsGraph::undirected(pattern_from_lists({{}})), {0}, "single vertex");
  check_all_algorithms(BfsGraph::undirected(pattern_from_lists({{0}})), {0}, "single self-loop");
  check_all_algorithms(BfsGraph::undirected(pattern_from_lists(Lists(100))), {0, 63, 64, 99},
                       "no edges");
}

TEST(Bfs, DirectedFollowsEdgeDirection) {
  // 0 -> 1 -> 2 -> 3, 3 -> 1, 4 -> 0: from 0 vertex 4 is not reachable.
  const BfsGraph g = BfsGraph::directed(pattern_from_lists({{1}, {2}, {3}, {1}, {0}}));
  EXPECT_TRUE(g.is_directed());
  EXPECT_EQ(g.num_teps_edges(), 5);
  for (BfsAlgorithm a : bfs_algorithms()) {
    BfsOptions o;
    o.algorithm = a;
    const BfsResult r = bfs(context(), g, 0, o);
    EXPECT_EQ(r.depths, (std::vector<std::int32_t>{0, 1, 2, 3, -1})) << to_string(a);
    EXPECT_EQ(r.parents, (std::vector<std::int32_t>{0, 0, 1, 2, -1})) << to_string(a);
    EXPECT_EQ(bfs(context(), g, 4, o).reached, 5) << to_string(a);
  }
  check_all_algorithms(g, all_vertices(5), "directed cycle");
}

TEST(Bfs, RandomGraphsUndirectedAndDirected) {
  int seed = 1;
  for (std::int32_t n : {1, 2, 63, 64, 65, 1000, 20000}) {
    for (int skew : {1, 3}) {
      const HostPattern p = random_pattern(n, std::int64_t{4} * n, skew, 1000 + seed++);
      const std::vector<std::int32_t> sources{0, n / 2, n - 1};
      check_all_algorithms(BfsGraph::directed(p), sources,
                           "directed n=" + std::to_string(n) + " skew=" + std::to_string(skew));
      check_all_algorithms(BfsGraph::undirected(BfsGraph::symmetrize(p)), sources,
                           "undirected n=" + std::to_string(n) + " skew=" + std::to_string(skew));
    }
  }
}

// Small graphs run every step on Kokkos::Serial (TuningProfile::bfs_serial_graph);
// this runs the same small graphs through the parallel steps, and large ones serially.
TEST(Bfs, SerialAndParallelPathsAgree) {
  TuningProfile& tune = context().tuning();
  const TuningProfile saved = tune;
  for (const bool serial : {false, true}) {
    tune.bfs_serial_graph = serial ? std::numeric_limits<int>::max() : 0;
    tune.bfs_serial_edges = serial ? std::numeric_limits<int>::max() : 0;
    const std::string tag = serial ? " (serial)" : " (parallel)";
    int seed = 500;
    for (std::int32_t n : {1, 65, 1000, 20000}) {
      const HostPattern p = random_pattern(n, std::int64_t{4} * n, 3, seed++);
      const std::vector<std::int32_t> sources{0, n / 2, n - 1};
      check_all_algorithms(BfsGraph::directed(p), sources, "directed n=" + std::to_string(n) + tag);
      check_all_algorithms(BfsGraph::undirected(BfsGraph::symmetrize(p)), sources,
                           "undirected n=" + std::to_string(n) + tag);
    }
    check_all_algorithms(
        BfsGraph::undirected(pattern_from_lists({{1, 2}, {0, 2}, {0, 1}, {4}, {3}, {}, {}})),
        all_vertices(7), "two components" + tag);
  }
  tune = saved;
}

TEST(Bfs, EveryDirectionSwitchAndHubSplit) {
  const HostPattern p = BfsGraph::symmetrize(random_pattern(30000, 300000, 4, 77));
  const BfsGraph g = BfsGraph::undirected(p);
  // Top-down throughout (alpha 1: the frontier never exceeds all unexplored edges);
  // bottom-up throughout (any frontier edge exceeds m / alpha, any frontier n / beta);
  // GAP's defaults; bottom-up at once, back to top-down as soon as the frontier shrinks.
  constexpr int kHuge = 1000000;
  for (auto [alpha, beta] :
       {std::pair{1, 1}, std::pair{kHuge, kHuge}, std::pair{15, 18}, std::pair{kHuge, 1}}) {
    BfsOptions o;
    o.alpha = alpha;
    o.beta = beta;
    o.log_steps = true;
    check_bfs(g, 5, o, "alpha " + std::to_string(alpha) + " beta " + std::to_string(beta));
    const BfsResult r = bfs(context(), g, 5, o);
    std::int64_t edges = 0;
    for (const BfsStep& s : r.steps) edges += s.edges_examined;
    EXPECT_EQ(edges, r.edges_examined);
    ASSERT_FALSE(r.steps.empty());
    EXPECT_EQ(r.steps.front().frontier, 1);
    const auto bottom_up_steps =
        std::count_if(r.steps.begin(), r.steps.end(), [](const BfsStep& s) { return s.bottom_up; });
    const auto steps = static_cast<std::ptrdiff_t>(r.steps.size());
    if (alpha == 1) {
      EXPECT_EQ(bottom_up_steps, 0);
    }
    if (alpha == kHuge && beta == kHuge) {
      EXPECT_EQ(bottom_up_steps, steps);
    }
    if (alpha == kHuge && beta == 1) {
      EXPECT_TRUE(r.steps.front().bottom_up);
    }
    if (alpha == 15) {  // top-down, bottom-up, top-down again for the last levels
      EXPECT_GT(bottom_up_steps, 0);
      EXPECT_FALSE(r.steps.front().bottom_up);
      EXPECT_FALSE(r.steps.back().bottom_up);
    }
  }
  // Every block a single edge: hubs split as finely as possible.
  TuningProfile& tune = context().tuning();
  const int saved = tune.bfs_hub_degree;
  tune.bfs_hub_degree = 1;
  BfsOptions o;
  o.algorithm = BfsAlgorithm::TopDown;
  check_bfs(g, 0, o, "hub degree 1");
  tune.bfs_hub_degree = saved;
}

// The team variants in extreme launch shapes, every step parallel (no Serial shortcut):
// one thread of one lane; one thread of 4 lanes (rounds of 4 in-edges, a hub's edges
// over the lanes); 2 threads of 8 lanes with 64 bytes of scratch (top-down blocks of
// 8 edges: a hub over many teams, every team's scan and append); Kokkos::AUTO with a
// warp's 32 lanes. Each on hubs, components, directed cycles and random graphs, with
// the direction-optimizing switch forced both ways.
TEST(Bfs, TeamShapes) {
  struct Shape {
    int team_size, vector, scratch_bytes;
  };
  const ProfileScope scope;
  TuningProfile& tune = context().tuning();
  tune.bfs_serial_graph = 0;
  tune.bfs_serial_edges = 0;
  tune.bfs_hub_degree = 64;
  Lists star(3001);
  for (std::int32_t v = 1; v <= 3000; ++v) {
    star[0].push_back(v);
    star[v].push_back(0);
  }
  const BfsGraph hub = BfsGraph::undirected(pattern_from_lists(star));
  const BfsGraph parts =
      BfsGraph::undirected(pattern_from_lists({{1, 2}, {0, 2}, {0, 1}, {4}, {3}, {}, {}}));
  const BfsGraph cycle = BfsGraph::directed(pattern_from_lists({{1}, {2}, {3}, {1}, {0}}));
  const HostPattern p = random_pattern(5000, 40000, 3, 321);
  const BfsGraph directed = BfsGraph::directed(p);
  const BfsGraph undirected = BfsGraph::undirected(BfsGraph::symmetrize(p));
  for (const Shape& sh :
       {Shape{1, 1, 32768}, Shape{1, 4, 32768}, Shape{2, 8, 64}, Shape{0, 32, 32768}}) {
    tune.team_size = sh.team_size;
    tune.team_vector = sh.vector;
    tune.team_scratch_bytes = sh.scratch_bytes;
    const std::string tag = " team " + std::to_string(sh.team_size) + " vector " +
                            std::to_string(sh.vector) + " scratch " +
                            std::to_string(sh.scratch_bytes);
    check_all_algorithms(hub, {0, 1, 3000}, "star" + tag);
    check_all_algorithms(parts, all_vertices(7), "two components" + tag);
    check_all_algorithms(cycle, all_vertices(5), "directed cycle" + tag);
    check_all_algorithms(directed, {0, 2500, 4999}, "directed random" + tag);
    check_all_algorithms(undirected, {0, 2500, 4999}, "undirected random" + tag);
    for (auto [alpha, beta] :
         {std::pair{1, 1}, std::pair{1000000, 1000000}, std::pair{1000000, 1}}) {
      BfsOptions o;
      o.algorithm = BfsAlgorithm::DirectionOptimizingTeam;
      o.alpha = alpha;
      o.beta = beta;
      check_bfs(undirected, 7, o,
                "alpha " + std::to_string(alpha) + " beta " + std::to_string(beta) + tag);
    }
  }
}

TEST(Bfs, OutputChoices) {
  const BfsGraph g = BfsGraph::undirected(BfsGraph::symmetrize(random_pattern(5000, 20000, 2, 9)));
  for (BfsAlgorithm a : bfs_algorithms()) {
    for (int mask = 0; mask < 4; ++mask) {
      BfsOptions o;
      o.algorithm = a;
      o.want_parents = mask & 1;
      o.want_depths = mask & 2;
      check_bfs(g, 17, o, "outputs " + std::to_string(mask));
    }
  }
}

TEST(Bfs, RunnerReusesBuffersAcrossSources) {
  const BfsGraph g = BfsGraph::directed(random_pattern(4000, 16000, 2, 5));
  for (BfsAlgorithm a : bfs_algorithms()) {
    BfsOptions o;
    o.algorithm = a;
    o.log_steps = true;
    BfsRunner runner(context(), g, o);
    EXPECT_EQ(runner.options().algorithm, a);
    for (std::int32_t s : {0, 3999, 17, 0, 2500}) {
      const BfsResult& r = runner.run(s);
      const BfsResult fresh = bfs(context(), g, s, o);
      EXPECT_EQ(r.depths, fresh.depths) << to_string(a) << " source " << s;
      EXPECT_EQ(r.reached, fresh.reached);
      EXPECT_EQ(r.edges_examined, fresh.edges_examined);
      EXPECT_EQ(r.steps.size(), fresh.steps.size());
      EXPECT_TRUE(validate_bfs(g, s, r.parents, r.depths).ok);
    }
  }
}

TEST(Bfs, Errors) {
  const BfsGraph g = BfsGraph::undirected(pattern_from_lists({{1}, {0}, {}}));
  for (BfsAlgorithm a : bfs_algorithms()) {
    BfsOptions o;
    o.algorithm = a;
    BfsRunner runner(context(), g, o);
    for (std::int32_t bad : {-1, 3, 1 << 30}) {
      try {
        runner.run(bad);
        FAIL() << "no exception for source " << bad;
      } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("source " + std::to_string(bad)), std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("[0, 3)"), std::string::npos) << e.what();
      }
    }
  }
  BfsOptions negative;
  negative.alpha = -1;
  EXPECT_THROW(BfsRunner(context(), g, negative), InvalidArgument);
  BfsOptions zero;
  zero.beta = 0;  // given or left to the profile: 0 is no threshold
  EXPECT_THROW(BfsRunner(context(), g, zero), InvalidArgument);
  EXPECT_THROW(BfsRunner(context(), BfsGraph{}, BfsOptions{}), InvalidArgument);

  HostPattern rect = pattern_from_lists({{1}, {0}});
  rect.ncols = 3;
  EXPECT_THROW(BfsGraph::undirected(rect), InvalidArgument);
  EXPECT_THROW(BfsGraph::directed(rect), InvalidArgument);
  EXPECT_THROW(BfsGraph::symmetrize(rect), InvalidArgument);
  HostPattern out_of_range = pattern_from_lists({{1}, {2}});
  EXPECT_THROW(BfsGraph::directed(out_of_range), InvalidMatrix);
}

TEST(Bfs, SymmetrizeMergesBothDirections) {
  const HostPattern s = BfsGraph::symmetrize(pattern_from_lists({{1, 1, 0}, {2}, {}}));
  const HostPattern expected = pattern_from_lists({{0, 1}, {0, 2}, {1}});
  ASSERT_EQ(s.nnz(), expected.nnz());
  for (std::int32_t i = 0; i <= 3; ++i) EXPECT_EQ(s.row_map(i), expected.row_map(i));
  for (std::int64_t k = 0; k < s.nnz(); ++k) EXPECT_EQ(s.entries(k), expected.entries(k));
}

}  // namespace
}  // namespace mimd
