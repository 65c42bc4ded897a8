// Team top-down BFS step (push), shaped for wide devices: the frontier's concatenated
// adjacency lists (offsets from frontier_offsets) are cut into blocks of equal edge
// counts, one block per team, at most team_scratch_bytes / 8 edges. In a team:
//  - each thread takes an equal share of the block's edges, and its vector lanes the
//    edges of each frontier vertex in that share, so a high-degree vertex is spread over
//    the team's threads and lanes; vertices are claimed by compare-and-swap on their
//    parent entry (as top_down.cpp);
//  - the claims are recorded per edge in team scratch; each thread counts those of its
//    share, and one team scan (Kokkos team_scan with a global accumulator: one atomic
//    add on the queue's tail per team) gives every thread its place in the queue (no
//    atomic per vertex, no per-thread buffers).
#include "bfs/bfs_internal.hpp"

namespace mimd {
namespace bfs_detail {
namespace {

template <class Space>
StepStats td_team_step_on(const BfsGraph::State& g, Workspace& ws, std::int32_t level) {
  using Policy = Kokkos::TeamPolicy<Space, Kokkos::Schedule<Kokkos::Dynamic>>;
  using Team = typename Policy::member_type;
  using ScratchInts = Kokkos::View<std::int32_t*, typename Space::scratch_memory_space,
                                   Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const std::int32_t f = ws.frontier_size();
  if (f == 0) return StepStats{};
  const std::int64_t total = frontier_offsets<Space>(g, ws);
  if (total == 0) return td_finish(ws, 0, 0);
  const core_detail::TeamShape shape = core_detail::clamp_shape<Space>(ws.shape);
  const std::int64_t block = std::max<std::int64_t>(
      1, std::min(td_block_edges(ws, total, Space().concurrency()), shape.scratch_bytes / 8));
  const std::int64_t nblocks = (total + block - 1) / block;
  const TdArrays a = td_arrays(g, ws, level);
  const std::size_t scratch = 2 * ScratchInts::shmem_size(block);

  const auto kernel = KOKKOS_LAMBDA(const Team& team, std::int64_t& scout_sum) {
    const std::int64_t e0 = team.league_rank() * block;
    const std::int64_t len = e0 + block < total ? block : total - e0;
    ScratchInts claimed(team.team_scratch(0), block);  // vertex claimed by edge e0 + j, or -1
    ScratchInts claimed_deg(team.team_scratch(0), block);
    const std::int64_t threads = team.team_size();
    std::int64_t my_scout = 0;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, threads), [&](std::int64_t th) {
      std::int64_t e = e0 + th * len / threads;
      const std::int64_t e_end = e0 + (th + 1) * len / threads;
      if (e >= e_end) return;
      std::int32_t i = edge_owner(a.offsets, f, e);
      while (e < e_end) {
        while (a.offsets[i + 1] <= e) ++i;  // skips vertices without out-edges
        const std::int32_t u = a.queue[a.head + i];
        const std::int64_t shift = a.row_map[u] - a.offsets[i];
        const std::int64_t stop = a.offsets[i + 1] < e_end ? a.offsets[i + 1] : e_end;
        std::int64_t seg_scout = 0;
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(team, stop - e),
            [&](std::int64_t j, std::int64_t& s) {
              const std::int32_t v = a.entries[shift + e + j];
              const std::int32_t seen = relaxed_load(&a.parent[v]);
              std::int32_t got = -1;
              if (seen < 0 && Kokkos::atomic_compare_exchange(&a.parent[v], seen, u) == seen) {
                if (a.depth) a.depth[v] = a.next_depth;
                got = v;
                claimed_deg(e - e0 + j) = -seen - 1;
                s += -seen - 1;
              }
              claimed(e - e0 + j) = got;
            },
            seg_scout);
        my_scout += seg_scout;
        e = stop;
      }
    });
    team.team_barrier();
    // Thread r appends the claims of entries [j0, j1): its count goes into a team scan
    // whose total is added to the queue's tail with one atomic for the whole team.
    const std::int64_t j0 = team.team_rank() * len / threads;
    const std::int64_t j1 = (team.team_rank() + 1) * len / threads;
    std::int32_t count = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, j1 - j0),
        [&](std::int64_t j, std::int32_t& c) { c += claimed(j0 + j) >= 0 ? 1 : 0; }, count);
    const std::int32_t pos = team.team_scan(count, a.tail);
    Kokkos::single(Kokkos::PerThread(team), [&]() {
      std::int32_t p = pos;
      for (std::int64_t j = j0; j < j1; ++j) {
        if (claimed(j) < 0) continue;
        a.queue[p] = claimed(j);
        a.out_deg[p] = claimed_deg(j);
        ++p;
      }
    });
    Kokkos::single(Kokkos::PerThread(team), [&]() { scout_sum += my_scout; });
    team.team_barrier();  // the team's next block reuses the scratch
  };
  const auto policy = core_detail::team_policy<Policy>(nblocks, shape, scratch, kernel,
                                                       Kokkos::ParallelReduceTag());
  std::int64_t scout = 0;
  Kokkos::parallel_reduce("mimd::bfs::td_team_step", policy, kernel, scout);
  return td_finish(ws, total, scout);
}

}  // namespace

StepStats td_team_step(const BfsGraph::State& g, Workspace& ws, std::int32_t level, bool serial) {
  return with_bfs_space(serial,
                        [&](auto space) { return td_team_step_on<decltype(space)>(g, ws, level); });
}

}  // namespace bfs_detail
}  // namespace mimd
