// Team bottom-up BFS step (pull), shaped for wide devices: the frontier is a bitmap
// (ws.front); each team takes kWordsPerTeam 64-vertex words, each of its threads one word
// at a time. For every unvisited vertex of its word a thread's vector lanes read the
// vertex's in-neighbours in rounds of `vector` edges: a lane reduction finds the first
// in-neighbour of the round in the frontier, and all lanes stop together after the round
// that finds one (the same parent as the CPU step: the first frontier in-neighbour). A
// word of the next frontier is built in a register and stored once (no atomics); the
// `settled` bitmap skips visited and unreachable vertices, as in bottom_up.cpp.
#include "bfs/bfs_internal.hpp"

namespace mimd {
namespace bfs_detail {
namespace {

/// Bitmap words per team: the unit of dynamic scheduling (64 * 32 vertices).
constexpr std::int64_t kWordsPerTeam = 32;

template <class Space>
StepStats bu_team_step_on(const BfsGraph::State& g, Workspace& ws, std::int32_t level) {
  using Policy = Kokkos::TeamPolicy<Space, Kokkos::Schedule<Kokkos::Dynamic>>;
  using Team = typename Policy::member_type;
  const std::int32_t n = ws.n;
  const std::int64_t nwords = ws.nwords;
  const std::int64_t* const row_map = g.in.row_map.data();
  const std::int32_t* const entries = g.in.entries.data();
  std::int32_t* const parent = ws.parent.data();
  std::int32_t* const depth = ws.write_depths ? ws.depth.data() : nullptr;
  const Word* const front = ws.front.data();
  Word* const next = ws.next.data();
  Word* const settled = ws.settled.data();
  const std::int32_t next_depth = level + 1;
  const core_detail::TeamShape shape = core_detail::clamp_shape<Space>(ws.shape);
  const int vec = shape.vector;

  const auto kernel = KOKKOS_LAMBDA(const Team& team, Counts& counts) {
    const std::int64_t w0 = team.league_rank() * kWordsPerTeam;
    const std::int64_t w1 = w0 + kWordsPerTeam < nwords ? w0 + kWordsPerTeam : nwords;
    std::int64_t my_found = 0, my_edges = 0;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, w0, w1), [&](std::int64_t w) {
      const std::int32_t base = static_cast<std::int32_t>(w * 64);
      const int width = n - base < 64 ? n - base : 64;
      const Word valid = width == 64 ? ~Word(0) : (Word(1) << width) - 1;
      const Word done = settled[w];
      Word now_done = done, claimed = 0;
      for (Word bits = ~done & valid; bits != 0; bits &= bits - 1) {
        const int bit = lowest_bit64(bits);
        const std::int32_t u = base + bit;
        if (parent[u] >= 0) {
          now_done |= Word(1) << bit;
          continue;
        }
        const std::int64_t begin = row_map[u], end = row_map[u + 1];
        std::int64_t hit = end;
        for (std::int64_t e = begin; e < end && hit == end; e += vec) {
          const std::int64_t round = end - e < vec ? end - e : vec;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(team, round),
              [&](std::int64_t j, std::int64_t& first) {
                const std::int32_t v = entries[e + j];
                if (((front[v >> 6] >> (v & 63)) & 1) && e + j < first) first = e + j;
              },
              Kokkos::Min<std::int64_t>(hit));
          if (hit == Kokkos::reduction_identity<std::int64_t>::min()) hit = end;
        }
        my_edges += (hit < end ? hit + 1 : end) - begin;
        if (hit < end) {
          Kokkos::single(Kokkos::PerThread(team), [&]() {
            parent[u] = entries[hit];
            if (depth) depth[u] = next_depth;
          });
          claimed |= Word(1) << bit;
          ++my_found;
        }
      }
      now_done |= claimed;
      Kokkos::single(Kokkos::PerThread(team), [&]() {
        next[w] = claimed;
        if (now_done != done) settled[w] = now_done;
      });
    });
    Kokkos::single(Kokkos::PerThread(team), [&]() {
      counts.found += my_found;
      counts.edges += my_edges;
    });
  };
  const auto policy = core_detail::team_policy<Policy>(
      (nwords + kWordsPerTeam - 1) / kWordsPerTeam, shape, 0, kernel, Kokkos::ParallelReduceTag());
  Counts counts;
  Kokkos::parallel_reduce("mimd::bfs::bu_team_step", policy, kernel, counts);
  return bu_finish(ws, counts);
}

}  // namespace

StepStats bu_team_step(const BfsGraph::State& g, Workspace& ws, std::int32_t level, bool serial) {
  return with_bfs_space(serial,
                        [&](auto space) { return bu_team_step_on<decltype(space)>(g, ws, level); });
}

}  // namespace bfs_detail
}  // namespace mimd
