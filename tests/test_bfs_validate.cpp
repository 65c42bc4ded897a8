// The Graph500 validator must accept correct trees and catch each kind of broken one.
#include <gtest/gtest.h>

#include "mimd/bfs.hpp"
#include "mimd/error.hpp"
#include "support/bfs_check.hpp"

namespace mimd {
namespace {

using testing::pattern_from_lists;
using P = std::vector<std::int32_t>;

// Undirected: 0-1, 0-2, 1-3, 2-3, 3-4; vertex 5 isolated. From 0: depths 0 1 1 2 3 -1.
BfsGraph diamond() {
  return BfsGraph::undirected(pattern_from_lists({{1, 2}, {0, 3}, {0, 3}, {1, 2, 4}, {3}, {}}));
}
const P kParents{0, 0, 0, 1, 3, -1};
const P kDepths{0, 1, 1, 2, 3, -1};

void expect_rejected(const BfsGraph& g, const P& parents, const P& depths,
                     const std::string& rule) {
  const BfsValidation v = validate_bfs(g, 0, parents, depths);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.message.find(rule), std::string::npos) << "message: " << v.message;
}

TEST(BfsValidate, AcceptsCorrectTrees) {
  const BfsGraph g = diamond();
  EXPECT_TRUE(validate_bfs(g, 0, kParents, kDepths).ok);
  EXPECT_TRUE(validate_bfs(g, 0, kParents, {}).ok);
  EXPECT_TRUE(validate_bfs(g, 0, {}, kDepths).ok);
  EXPECT_TRUE(validate_bfs(g, 0, {0, 0, 0, 2, 3, -1}, kDepths).ok);  // the other tree
  EXPECT_TRUE(validate_bfs(g, 5, {-1, -1, -1, -1, -1, 5}, {-1, -1, -1, -1, -1, 0}).ok);
}

TEST(BfsValidate, CatchesWrongParent) {
  // 2's parent is 1: no edge 1-2, and the depths break too.
  expect_rejected(diamond(), {0, 0, 1, 1, 3, -1}, {}, "rule 2");
  expect_rejected(diamond(), {3, 0, 0, 1, 3, -1}, kDepths, "rule 1");  // source's parent
}

TEST(BfsValidate, CatchesNonEdge) {
  // 4's parent is 0 with consistent depths 0 -> 4 at depth 1, but 0-4 is not an edge.
  expect_rejected(diamond(), {0, 0, 0, 1, 0, -1}, {}, "rule 2");
}

TEST(BfsValidate, CatchesDepthOffByOne) {
  expect_rejected(diamond(), kParents, {0, 1, 1, 2, 4, -1}, "rule 3");
  expect_rejected(diamond(), kParents, {1, 2, 2, 3, 4, -1}, "rule 3");
  expect_rejected(diamond(), {}, {0, 1, 1, 3, 4, -1}, "rule 3");  // 3 has no neighbour at 2
  expect_rejected(diamond(), {}, {0, 1, 1, 2, 2, -1}, "rule 3");  // 4 has no neighbour at 1
  expect_rejected(diamond(), {}, {0, 1, 2, 2, 3, -1}, "rule 3");  // 2 has no neighbour at depth 1
}

TEST(BfsValidate, CatchesEdgeSpanningTwoLevels) {
  // A parent tree whose depths are consistent along tree edges but 0-2 spans 0 -> 3.
  const BfsGraph g = BfsGraph::undirected(pattern_from_lists({{1, 2}, {0, 3}, {0, 3}, {1, 2}}));
  expect_rejected(g, {0, 0, 3, 1}, {}, "rule 4");
}

TEST(BfsValidate, CatchesUnreachedButReachable) {
  expect_rejected(diamond(), {0, 0, 0, 1, -1, -1}, {0, 1, 1, 2, -1, -1}, "rule 5");
  expect_rejected(diamond(), {0, 0, 0, 1, -1, -1}, {}, "rule 5");
  expect_rejected(diamond(), {}, {0, 1, 1, 2, -1, -1}, "rule 5");
}

TEST(BfsValidate, CatchesCycles) {
  // 3 and 4 point at each other; depths absent: found while walking the chains.
  expect_rejected(diamond(), {0, 0, 0, 4, 3, -1}, {}, "cycle");
  expect_rejected(diamond(), {0, 0, 0, 3, 3, -1}, {}, "cycle");  // self-parent
  // A chain ending at an unreached vertex.
  expect_rejected(diamond(), {0, 0, 0, 1, 5, -1}, {}, "rule 1");
  // Parents are walked before depths are read.
  expect_rejected(diamond(), {0, 0, 0, 4, 3, -1}, kDepths, "cycle");
}

TEST(BfsValidate, DirectedRules) {
  // 0 -> 1 -> 2, 2 -> 0, 3 -> 0: from 0 vertex 3 is unreached and that is correct.
  const BfsGraph g = BfsGraph::directed(pattern_from_lists({{1}, {2}, {0}, {0}}));
  EXPECT_TRUE(validate_bfs(g, 0, {0, 0, 1, -1}, {0, 1, 2, -1}).ok);
  // The edge 2 -> 0 goes back two levels: allowed in a directed graph.
  expect_rejected(g, {0, 0, 0, -1}, {}, "rule 2");  // 0 -> 2 is not an edge
  expect_rejected(g, {0, 0, -1, -1}, {}, "rule 5");
}

TEST(BfsValidate, MalformedInput) {
  const BfsGraph g = diamond();
  EXPECT_FALSE(validate_bfs(g, 0, {0, 0}, {}).ok);
  EXPECT_FALSE(validate_bfs(g, 0, kParents, {0, 1}).ok);
  EXPECT_FALSE(validate_bfs(g, 0, {0, 0, 0, 1, 7, -1}, {}).ok);
  EXPECT_FALSE(validate_bfs(g, 0, kParents, {0, 1, 1, 2, 3, 0}).ok);  // parent -1, depth 0
  EXPECT_THROW(validate_bfs(g, 6, kParents, kDepths), InvalidArgument);
  EXPECT_THROW(validate_bfs(g, 0, {}, {}), InvalidArgument);
}

}  // namespace
}  // namespace mimd
