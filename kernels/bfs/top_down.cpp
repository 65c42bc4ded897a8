// Top-down BFS (push): the frontier is a sparse queue; each frontier vertex offers
// itself as parent to its out-neighbours, which are claimed by compare-and-swap on
// their parent entry (GAP's TDStep).
//
// Load balance: the step is cut into blocks of equal edge counts over the frontier's
// concatenated adjacency lists (an exclusive scan of the frontier's degrees, known
// from the claim, gives each vertex's first edge), so a hub vertex is split across
// as many workers as its degree needs. Blocks are handed out dynamically.
//
// The next queue is built from per-block local buffers, each appended with one atomic
// add on the queue's tail when full or when the block ends (GAP's QueueBuffer).
//
// A step with a tiny frontier (the tail of a high-diameter graph) runs in the calling
// thread on Kokkos::Serial when that space can reach the data: a parallel launch
// would cost more than the step.
#include <algorithm>

#include "bfs/bfs_internal.hpp"

namespace mimd {
namespace bfs_detail {
namespace {

/// Capacity of a block's local buffer of claimed vertices (a stack array: its size is
/// fixed at compile time; a full buffer is flushed, so it bounds no result).
constexpr int kLocalBuffer = 256;

template <class Space>
StepStats td_step_on(const BfsGraph::State& g, Workspace& ws, std::int32_t level) {
  StepStats stats;
  const std::int32_t f = ws.frontier_size();
  if (f == 0) return stats;
  const std::int64_t total = frontier_offsets<Space>(g, ws);
  if (total == 0) return td_finish(ws, 0, 0);
  const std::int64_t block = td_block_edges(ws, total, Space().concurrency());
  const std::int32_t ahead = ws.td_prefetch_vertices;
  const std::int64_t ahead_edges = ws.td_prefetch_edges;
  const std::int64_t nblocks = (total + block - 1) / block;
  const TdArrays a = td_arrays(g, ws, level);

  std::int64_t scout = 0;
  Kokkos::parallel_reduce(
      "mimd::bfs::td_step",
      Kokkos::RangePolicy<Space, Kokkos::Schedule<Kokkos::Dynamic>,
                          Kokkos::IndexType<std::int64_t>>(0, nblocks)
          .set_chunk_size(1),
      KOKKOS_LAMBDA(const std::int64_t b, std::int64_t& scout_sum) {
        std::int32_t buf[kLocalBuffer];
        std::int32_t buf_deg[kLocalBuffer];
        int nbuf = 0;
        auto flush = [&]() {
          const std::int32_t pos = Kokkos::atomic_fetch_add(a.tail, nbuf);
          for (int k = 0; k < nbuf; ++k) {
            a.queue[pos + k] = buf[k];
            a.out_deg[pos + k] = buf_deg[k];
          }
          nbuf = 0;
        };
        std::int64_t e = b * block;
        const std::int64_t e_end = e + block < total ? e + block : total;
        std::int32_t i = edge_owner(a.offsets, f, e);
        while (e < e_end) {
          while (a.offsets[i + 1] <= e) ++i;  // skips vertices without out-edges
          // Software pipelining of the misses: the row offsets of the vertex
          // 2 * ahead places on, the adjacency list of the one ahead places on.
          if (i + 2 * ahead < f) prefetch(a.row_map + a.queue[a.head + i + 2 * ahead]);
          if (i + ahead < f) prefetch(a.entries + a.row_map[a.queue[a.head + i + ahead]]);
          const std::int32_t u = a.queue[a.head + i];
          const std::int64_t shift = a.row_map[u] - a.offsets[i];
          const std::int64_t stop = a.offsets[i + 1] < e_end ? a.offsets[i + 1] : e_end;
          for (; e < stop; ++e) {
            // A successful claim is a locked instruction, which stalls later loads;
            // prefetches are not held back, so the parents read next stay in flight.
            if (e + ahead_edges < stop) prefetch(a.parent + a.entries[shift + e + ahead_edges]);
            const std::int32_t v = a.entries[shift + e];
            const std::int32_t seen = relaxed_load(&a.parent[v]);
            if (seen < 0 && Kokkos::atomic_compare_exchange(&a.parent[v], seen, u) == seen) {
              if (a.depth) a.depth[v] = a.next_depth;
              const std::int32_t d = -seen - 1;
              scout_sum += d;
              buf[nbuf] = v;
              buf_deg[nbuf] = d;
              if (++nbuf == kLocalBuffer) flush();
            }
          }
        }
        if (nbuf > 0) flush();
      },
      scout);

  return td_finish(ws, total, scout);
}

}  // namespace

StepStats td_step(const BfsGraph::State& g, Workspace& ws, std::int32_t level) {
  const bool serial =
      ws.serial_search ||
      (ws.frontier_edges >= 0 && ws.frontier_size() + ws.frontier_edges < ws.serial_edges);
  const StepStats stats =
      ws.team ? td_team_step(g, ws, level, serial) : with_bfs_space(serial, [&](auto space) {
        return td_step_on<decltype(space)>(g, ws, level);
      });
  ws.frontier_edges = stats.scout;
  return stats;
}

void top_down_bfs(const BfsGraph::State& g, Workspace& ws, std::int32_t source, StepLog& log,
                  BfsResult& result) {
  init_search(g, ws, source);
  for (std::int32_t level = 0; ws.frontier_size() > 0; ++level) {
    const std::int64_t frontier = ws.frontier_size();
    log.begin();
    const StepStats s = td_step(g, ws, level);
    log.end(false, frontier, s.edges_examined);
    result.edges_examined += s.edges_examined;
  }
}

}  // namespace bfs_detail
}  // namespace mimd
