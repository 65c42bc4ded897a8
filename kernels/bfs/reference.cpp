// Reference BFS: the textbook sequential queue search on the host graph. Obviously
// correct; every other algorithm is tested against its depths.
#include <vector>

#include "bfs/bfs_internal.hpp"

namespace mimd {
namespace bfs_detail {

void reference_bfs(const BfsGraph::State& g, std::int32_t source, bool want_parents,
                   bool want_depths, BfsResult& result) {
  const HostPattern& a = g.host_out;
  const std::int32_t n = a.nrows;
  std::vector<std::int32_t> parent(static_cast<std::size_t>(n), -1);
  std::vector<std::int32_t> depth(static_cast<std::size_t>(n), -1);
  std::vector<std::int32_t> queue;
  queue.reserve(static_cast<std::size_t>(n));
  parent[source] = source;
  depth[source] = 0;
  queue.push_back(source);
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const std::int32_t u = queue[head];
    for (std::int64_t e = a.row_map(u); e < a.row_map(u + 1); ++e) {
      const std::int32_t v = a.entries(e);
      if (parent[v] < 0) {
        parent[v] = u;
        depth[v] = depth[u] + 1;
        queue.push_back(v);
      }
    }
    result.edges_examined += a.row_map(u + 1) - a.row_map(u);
  }
  result.reached = static_cast<std::int64_t>(queue.size());
  if (want_parents) result.parents = std::move(parent);
  if (want_depths) result.depths = std::move(depth);
}

}  // namespace bfs_detail
}  // namespace mimd
