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

/// Capacity of a block's local buffer of claimed vertices.
constexpr int kLocalBuffer = 256;
/// Prefetch distance, in frontier vertices.
constexpr std::int32_t kAhead = 8;
/// Prefetch distance of the parents, in edges.
constexpr std::int64_t kAheadEdges = 16;

template <class Space>
StepStats td_step_on(const BfsGraph::State& g, Workspace& ws, std::int32_t level) {
  StepStats stats;
  const std::int32_t f = ws.frontier_size();
  if (f == 0) return stats;
  const std::int32_t head = ws.head;
  const std::int32_t* const queue = ws.queue.data();
  const std::int64_t* const offsets = ws.offsets.data();
  const std::int64_t* const row_map = g.out.row_map.data();
  const std::int32_t* const entries = g.out.entries.data();
  const std::int64_t total = frontier_offsets<Space>(g, ws);
  if (total == 0) return td_finish(ws, 0, 0);
  const std::int64_t block = td_block_edges(ws, total, Space().concurrency());
  const std::int64_t nblocks = (total + block - 1) / block;
  std::int32_t* const parent = ws.parent.data();
  std::int32_t* const depth = ws.write_depths ? ws.depth.data() : nullptr;
  std::int32_t* const out_queue = ws.queue.data();
  std::int32_t* const out_deg = ws.queue_deg.data();
  std::int32_t* const tail = ws.tail.data();
  const std::int32_t next_depth = level + 1;

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
          const std::int32_t pos = Kokkos::atomic_fetch_add(tail, nbuf);
          for (int k = 0; k < nbuf; ++k) {
            out_queue[pos + k] = buf[k];
            out_deg[pos + k] = buf_deg[k];
          }
          nbuf = 0;
        };
        std::int64_t e = b * block;
        const std::int64_t e_end = e + block < total ? e + block : total;
        std::int32_t i = edge_owner(offsets, f, e);
        while (e < e_end) {
          while (offsets[i + 1] <= e) ++i;  // skips vertices without out-edges
          // Software pipelining of the misses: the row offsets of the vertex
          // 2 * kAhead places on, the adjacency list of the one kAhead places on.
          if (i + 2 * kAhead < f) prefetch(row_map + queue[head + i + 2 * kAhead]);
          if (i + kAhead < f) prefetch(entries + row_map[queue[head + i + kAhead]]);
          const std::int32_t u = queue[head + i];
          const std::int64_t shift = row_map[u] - offsets[i];
          const std::int64_t stop = offsets[i + 1] < e_end ? offsets[i + 1] : e_end;
          for (; e < stop; ++e) {
            // A successful claim is a locked instruction, which stalls later loads;
            // prefetches are not held back, so the parents read next stay in flight.
            if (e + kAheadEdges < stop) prefetch(parent + entries[shift + e + kAheadEdges]);
            const std::int32_t v = entries[shift + e];
            const std::int32_t seen = parent[v];
            if (seen < 0 && Kokkos::atomic_compare_exchange(&parent[v], seen, u) == seen) {
              if (depth) depth[v] = next_depth;
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
