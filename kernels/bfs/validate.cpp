// Graph500's BFS validation rules, checked sequentially on the host graph (GAP's
// BFSVerifier does the same in spirit). Every check is O(n + m): tree edges are
// matched while scanning the adjacency lists, never by searching a parent's row.
#include <string>
#include <vector>

#include "bfs/bfs_internal.hpp"
#include "mimd/error.hpp"

namespace mimd {
namespace {

BfsValidation fail(const std::string& message) {
  return BfsValidation{false, message};
}

std::string num(std::int64_t v) {
  return std::to_string(v);
}

/// Depths implied by the parent pointers; fails on a cycle or a chain that leaves the
/// tree (rule 1).
BfsValidation depths_from_parents(std::int32_t source, const std::vector<std::int32_t>& parents,
                                  std::vector<std::int32_t>& depths) {
  const std::size_t n = parents.size();
  constexpr std::int32_t kUnknown = -2, kOnPath = -3;
  depths.assign(n, kUnknown);
  depths[source] = 0;
  std::vector<std::int32_t> path;
  for (std::size_t start = 0; start < n; ++start) {
    if (parents[start] < 0) {
      depths[start] = -1;
      continue;
    }
    std::int32_t v = static_cast<std::int32_t>(start);
    while (depths[v] == kUnknown) {
      depths[v] = kOnPath;
      path.push_back(v);
      v = parents[v];
      if (parents[v] < 0)
        return fail("rule 1 (tree): the parent chain of vertex " +
                    num(static_cast<std::int64_t>(start)) + " reaches vertex " + num(v) +
                    ", which has no parent");
    }
    if (depths[v] == kOnPath)
      return fail("rule 1 (tree): the parent chain of vertex " +
                  num(static_cast<std::int64_t>(start)) + " has a cycle through vertex " + num(v));
    std::int32_t d = depths[v];
    for (auto it = path.rbegin(); it != path.rend(); ++it) depths[*it] = ++d;
    path.clear();
  }
  return {};
}

}  // namespace

BfsValidation validate_bfs(const BfsGraph& graph, std::int32_t source,
                           const std::vector<std::int32_t>& parents,
                           const std::vector<std::int32_t>& depths) {
  const HostPattern& a = graph.host_out();
  const std::int32_t n = a.nrows;
  if (source < 0 || source >= n)
    throw InvalidArgument("validate_bfs: source " + num(source) + " is outside [0, " + num(n) +
                          ")");
  if (parents.empty() && depths.empty())
    throw InvalidArgument("validate_bfs: neither parents nor depths were given");
  const auto size_n = static_cast<std::size_t>(n);
  if (!parents.empty() && parents.size() != size_n)
    return fail("parents has " + num(static_cast<std::int64_t>(parents.size())) +
                " entries, the graph " + num(n) + " vertices");
  if (!depths.empty() && depths.size() != size_n)
    return fail("depths has " + num(static_cast<std::int64_t>(depths.size())) +
                " entries, the graph " + num(n) + " vertices");
  for (std::int32_t v = 0; v < n; ++v) {
    if (!parents.empty() && (parents[v] < -1 || parents[v] >= n))
      return fail("parent[" + num(v) + "] = " + num(parents[v]) + " is not -1 or a vertex");
    if (!depths.empty() && depths[v] < -1)
      return fail("depth[" + num(v) + "] = " + num(depths[v]) + " is below -1");
    if (!parents.empty() && !depths.empty() && (parents[v] < 0) != (depths[v] < 0))
      return fail("vertex " + num(v) + " has parent " + num(parents[v]) + " but depth " +
                  num(depths[v]));
  }

  std::vector<std::int32_t> level;
  if (!parents.empty()) {
    if (parents[source] != source)
      return fail("rule 1 (tree): parent[source " + num(source) + "] = " + num(parents[source]));
    const BfsValidation tree = depths_from_parents(source, parents, level);
    if (!tree.ok) return tree;
  }
  if (!depths.empty()) {
    if (depths[source] != 0)
      return fail("rule 3 (depths): depth[source " + num(source) + "] = " + num(depths[source]));
    for (std::int32_t v = 0; v < n; ++v) {
      if (parents.empty() || v == source || parents[v] < 0) continue;
      if (depths[v] != depths[parents[v]] + 1)
        return fail("rule 3 (depths): tree edge " + num(parents[v]) + " -> " + num(v) +
                    " joins depths " + num(depths[parents[v]]) + " and " + num(depths[v]));
    }
    level = depths;
  }

  // One pass over the edges: tree edges seen (rule 2) or, without parents, a
  // predecessor one level up (rule 3); the first edge spanning more than one level
  // (rule 4) or leaving the reached set (rule 5). Reported in the rules' order.
  std::vector<char> justified(size_n, 0);
  justified[source] = 1;
  std::string edge_violation;
  for (std::int32_t u = 0; u < n; ++u) {
    for (std::int64_t e = a.row_map(u); e < a.row_map(u + 1); ++e) {
      const std::int32_t v = a.entries(e);
      if (parents.empty() ? (level[u] >= 0 && level[v] == level[u] + 1) : parents[v] == u)
        justified[v] = 1;
      if (level[u] < 0 || !edge_violation.empty()) continue;
      if (level[v] < 0)
        edge_violation = "rule 5 (reachability): vertex " + num(v) + " is unreached but edge " +
                         num(u) + " -> " + num(v) + " leaves reached vertex " + num(u);
      else if (level[v] > level[u] + 1)
        edge_violation = "rule 4 (edge span): edge " + num(u) + " -> " + num(v) + " joins depths " +
                         num(level[u]) + " and " + num(level[v]);
    }
  }
  for (std::int32_t v = 0; v < n; ++v) {
    if (level[v] < 0 || justified[v]) continue;
    if (parents.empty())
      return fail("rule 3 (depths): vertex " + num(v) + " at depth " + num(level[v]) +
                  " has no in-neighbour at depth " + num(level[v] - 1));
    return fail("rule 2 (tree edges): parent[" + num(v) + "] = " + num(parents[v]) +
                " but the graph has no edge " + num(parents[v]) + " -> " + num(v));
  }
  if (!edge_violation.empty()) return fail(edge_violation);
  return {};
}

}  // namespace mimd
