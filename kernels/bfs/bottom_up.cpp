// Bottom-up BFS (pull): the frontier is a bitmap; every unvisited vertex scans its
// in-neighbours and stops at the first one in the frontier (GAP's BUStep, Beamer et
// al. SC'12). Work items are 64-vertex words: a word of the next frontier is built in
// a register and stored once, so no atomics are needed. The `settled` bitmap lets a
// step skip vertices that are visited or unreachable without reading their parents.
#include "bfs/bfs_internal.hpp"

namespace mimd {
namespace bfs_detail {
namespace {

/// Bitmap words per dynamically scheduled chunk.
constexpr int kWordsPerChunk = 16;

template <class Space>
StepStats bu_step_on(const BfsGraph::State& g, Workspace& ws, std::int32_t level) {
  const std::int32_t n = ws.n;
  const std::int64_t* const row_map = g.in.row_map.data();
  const std::int32_t* const entries = g.in.entries.data();
  std::int32_t* const parent = ws.parent.data();
  std::int32_t* const depth = ws.write_depths ? ws.depth.data() : nullptr;
  const Word* const front = ws.front.data();
  Word* const next = ws.next.data();
  Word* const settled = ws.settled.data();
  const std::int32_t next_depth = level + 1;

  Counts counts;
  Kokkos::parallel_reduce(
      "mimd::bfs::bu_step",
      Kokkos::RangePolicy<Space, Kokkos::Schedule<Kokkos::Dynamic>,
                          Kokkos::IndexType<std::int64_t>>(0, ws.nwords)
          .set_chunk_size(kWordsPerChunk),
      KOKKOS_LAMBDA(const std::int64_t w, Counts& c) {
        const std::int32_t base = static_cast<std::int32_t>(w * 64);
        const int width = n - base < 64 ? n - base : 64;
        const Word valid = width == 64 ? ~Word(0) : (Word(1) << width) - 1;
        const Word done = settled[w];
        Word now_done = done;
        // First pass: drop vertices already visited (by top-down steps) and prefetch
        // the adjacency lists of the others, so their cache misses overlap.
        Word todo = 0;
        for (Word bits = ~done & valid; bits != 0; bits &= bits - 1) {
          const int bit = lowest_bit64(bits);
          if (parent[base + bit] >= 0) {
            now_done |= Word(1) << bit;
          } else {
            todo |= Word(1) << bit;
            prefetch(entries + row_map[base + bit]);
          }
        }
        Word claimed = 0;
        for (; todo != 0; todo &= todo - 1) {
          const int bit = lowest_bit64(todo);
          const std::int32_t u = base + bit;
          const std::int64_t begin = row_map[u], end = row_map[u + 1];
          std::int64_t e = begin;
          for (; e < end; ++e) {
            const std::int32_t v = entries[e];
            if ((front[v >> 6] >> (v & 63)) & 1) {
              parent[u] = v;
              if (depth) depth[u] = next_depth;
              claimed |= Word(1) << bit;
              ++c.found;
              break;
            }
          }
          c.edges += (e < end ? e + 1 : end) - begin;
        }
        next[w] = claimed;
        now_done |= claimed;
        if (now_done != done) settled[w] = now_done;
      },
      counts);
  return bu_finish(ws, counts);
}

}  // namespace

StepStats bu_step(const BfsGraph::State& g, Workspace& ws, std::int32_t level) {
  if (ws.team) return bu_team_step(g, ws, level, ws.serial_search);
  return with_bfs_space(ws.serial_search,
                        [&](auto space) { return bu_step_on<decltype(space)>(g, ws, level); });
}

void bottom_up_bfs(const BfsGraph::State& g, Workspace& ws, std::int32_t source, StepLog& log,
                   BfsResult& result) {
  init_search(g, ws, source);
  std::int64_t frontier = ws.frontier_size();
  queue_to_bitmap(ws);
  for (std::int32_t level = 0; frontier > 0; ++level) {
    log.begin();
    const StepStats s = bu_step(g, ws, level);
    log.end(true, frontier, s.edges_examined);
    result.edges_examined += s.edges_examined;
    frontier = s.found;
  }
}

}  // namespace bfs_detail
}  // namespace mimd
