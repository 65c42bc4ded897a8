// Direction-optimizing BFS (Beamer, Asanovic, Patterson, "Direction-Optimizing
// Breadth-First Search", SC'12), with GAP's heuristic:
//  - top-down while the next frontier's out-edges (scout count, known from the claims)
//    stay below the edges not yet explored / alpha;
//  - then bottom-up while the frontier grows or holds more than n / beta vertices;
//  - then top-down again from the last bitmap converted to a queue.
// The conversions touch only the frontier (queue -> bitmap: one clear of n/64 words
// and one bit per queued vertex; bitmap -> queue: one pass over the bitmap's words).
#include <utility>

#include "bfs/bfs_internal.hpp"

namespace mimd {
namespace bfs_detail {
namespace {

template <class Space>
void queue_to_bitmap_on(Workspace& ws) {
  Word* const front = ws.front.data();
  Kokkos::parallel_for(
      "mimd::bfs::clear_bitmap",
      Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(0, ws.nwords),
      KOKKOS_LAMBDA(const std::int64_t w) { front[w] = 0; });
  const std::int32_t* const queue = ws.queue.data();
  const std::int32_t head = ws.head;
  Kokkos::parallel_for(
      "mimd::bfs::queue_to_bitmap", Kokkos::RangePolicy<Space>(0, ws.frontier_size()),
      KOKKOS_LAMBDA(const std::int32_t i) {
        const std::int32_t v = queue[head + i];
        Kokkos::atomic_fetch_or(&front[v >> 6], Word(1) << (v & 63));
      });
  ws.head = ws.tail_host;
}

template <class Space>
void bitmap_to_queue_on(const BfsGraph::State& g, Workspace& ws) {
  const Word* const front = ws.front.data();
  const std::int64_t* const row_map = g.out.row_map.data();
  std::int32_t* const queue = ws.queue.data();
  std::int32_t* const queue_deg = ws.queue_deg.data();
  std::int32_t* const tail = ws.tail.data();
  const std::int64_t nwords = ws.nwords;
  // Bitmap words per work item (their set bits go out in one append).
  const std::int64_t per_item = ws.append_words;
  Kokkos::deep_copy(ws.tail, 0);
  std::int64_t edges = 0;
  Kokkos::parallel_reduce(
      "mimd::bfs::bitmap_to_queue",
      Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(
          0, (nwords + per_item - 1) / per_item),
      KOKKOS_LAMBDA(const std::int64_t item, std::int64_t& edge_sum) {
        const std::int64_t w0 = item * per_item;
        const std::int64_t w1 = w0 + per_item < nwords ? w0 + per_item : nwords;
        int count = 0;
        for (std::int64_t w = w0; w < w1; ++w) count += popcount64(front[w]);
        if (count == 0) return;
        std::int32_t pos = Kokkos::atomic_fetch_add(tail, count);
        for (std::int64_t w = w0; w < w1; ++w) {
          for (Word bits = front[w]; bits != 0; bits &= bits - 1) {
            const std::int32_t v = static_cast<std::int32_t>(w * 64 + lowest_bit64(bits));
            const std::int64_t d = row_map[v + 1] - row_map[v];
            queue[pos] = v;
            queue_deg[pos] =
                d < kMaxEncodedDegree ? static_cast<std::int32_t>(d) : kMaxEncodedDegree;
            edge_sum += d;
            ++pos;
          }
        }
      },
      edges);
  std::int32_t size = 0;
  Kokkos::deep_copy(size, ws.tail);
  ws.head = 0;
  ws.tail_host = size;
  ws.frontier_edges = edges;
}

}  // namespace

void queue_to_bitmap(Workspace& ws) {
  with_bfs_space(ws.serial_search, [&](auto space) { queue_to_bitmap_on<decltype(space)>(ws); });
}

void bitmap_to_queue(const BfsGraph::State& g, Workspace& ws) {
  with_bfs_space(ws.serial_search, [&](auto space) { bitmap_to_queue_on<decltype(space)>(g, ws); });
}

void direction_optimizing_bfs(const BfsGraph::State& g, Workspace& ws, std::int32_t source,
                              int alpha, int beta, StepLog& log, BfsResult& result) {
  std::int64_t scout = init_search(g, ws, source);
  std::int64_t edges_to_check = g.out.nnz();
  const std::int64_t n = ws.n;
  std::int32_t level = 0;
  while (ws.frontier_size() > 0) {
    if (scout > edges_to_check / alpha) {
      std::int64_t awake = ws.frontier_size();
      std::int64_t old_awake = 0;
      queue_to_bitmap(ws);
      do {
        old_awake = awake;
        log.begin();
        const StepStats s = bu_step(g, ws, level++);
        log.end(true, old_awake, s.edges_examined);
        result.edges_examined += s.edges_examined;
        awake = s.found;
      } while (awake >= old_awake || awake > n / beta);
      bitmap_to_queue(g, ws);
      scout = 1;
    } else {
      edges_to_check -= scout;
      const std::int64_t frontier = ws.frontier_size();
      log.begin();
      const StepStats s = td_step(g, ws, level++);
      log.end(false, frontier, s.edges_examined);
      result.edges_examined += s.edges_examined;
      scout = s.scout;
    }
  }
}

}  // namespace bfs_detail
}  // namespace mimd
