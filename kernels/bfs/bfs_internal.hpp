// Internals shared by the BFS kernels (kernels/bfs/*.cpp): the graph's state, the
// per-search workspace and the step primitives from which the drivers are built.
//
// The decomposition follows GAP (Beamer's bfs.cc) and Ligra: the per-edge logic lives
// in TDStep (top_down.cpp) and BUStep (bottom_up.cpp); QueueToBitmap and BitmapToQueue
// convert the frontier; the drivers only decide which step to take.
//
// Encoding of the parent array during a search (GAP's trick, shifted by one so that
// isolated vertices are representable): an unvisited vertex v holds -(deg(v) + 1) < 0,
// a visited one holds its parent >= 0. Claiming v therefore reveals its out-degree,
// which gives the next frontier's edge count (the "scout count") for free.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/atomic.hpp"
#include "core/serial.hpp"
#include "core/team.hpp"
#include "mimd/bfs.hpp"

namespace mimd {

struct BfsGraph::State {
  HostPattern host_out;
  HostPattern host_in;  ///< same arrays as host_out when undirected
  GraphPattern out;
  GraphPattern in;
  bool directed = false;
};

namespace bfs_detail {

using Exec = Kokkos::DefaultExecutionSpace;
using Mem = DefaultMemorySpace;
using Word = std::uint64_t;

using core_detail::kSerialReachesData;

/// Calls f(space) with an instance of Kokkos::Serial when `serial` (a small graph or
/// frontier, where a parallel launch would cost more than the work) and Serial can
/// reach the data, with an instance of Exec otherwise (core_detail::with_space): the one
/// place where the BFS chooses its execution space; both calls must return the same type.
template <class F>
decltype(auto) with_bfs_space(bool serial, F&& f) {
  return core_detail::with_space(serial, std::forward<F>(f));
}

/// Degrees above this are stored saturated in the parent encoding and the queue's
/// degree array; the exact degree is then read from the row map.
constexpr std::int32_t kMaxEncodedDegree = 0x7ffffffe;

KOKKOS_INLINE_FUNCTION int popcount64(Word w) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __popcll(w);
#else
  return __builtin_popcountll(w);
#endif
}

/// Hint that `p` will be read soon (no-op where the compiler has no prefetch builtin).
KOKKOS_INLINE_FUNCTION void prefetch(const void* p) {
#if defined(__GNUC__) && !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
  __builtin_prefetch(p);
#else
  (void)p;
#endif
}

KOKKOS_INLINE_FUNCTION int lowest_bit64(Word w) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __ffsll(static_cast<long long>(w)) - 1;
#else
  return __builtin_ctzll(w);
#endif
}

/// Reusable buffers of one searcher (BfsRunner), sized for one graph.
struct Workspace {
  std::int32_t n = 0;
  std::int64_t nwords = 0;  ///< 64-bit words of a vertex bitmap
  // TuningProfile::bfs_* knobs the steps read.
  int hub_degree = 0;
  std::int64_t serial_edges = 0;
  int td_blocks_per_thread = 0;
  std::int64_t td_min_block_edges = 0;
  std::int32_t td_prefetch_vertices = 0;
  std::int64_t td_prefetch_edges = 0;
  int bu_chunk_words = 0;
  std::int64_t append_words = 0;
  /// Every step of a search runs in the calling thread on Kokkos::Serial (a small graph,
  /// TuningProfile::bfs_serial_graph, and Serial can reach the data).
  bool serial_search = false;
  bool write_depths = true;

  Kokkos::View<std::int32_t*, Mem> parent;     ///< encoded as described above
  Kokkos::View<std::int32_t*, Mem> depth;      ///< extent 0 unless write_depths
  Kokkos::View<std::int32_t*, Mem> queue;      ///< sliding queue: every vertex once
  Kokkos::View<std::int32_t*, Mem> queue_deg;  ///< out-degree of queue[i]
  Kokkos::View<std::int64_t*, Mem> offsets;    ///< edge prefix of the current window
  Kokkos::View<std::int32_t, Mem> tail;        ///< append position of the queue
  Kokkos::View<Word*, Mem> front;              ///< bitmap frontier (bottom-up)
  Kokkos::View<Word*, Mem> next;
  /// Vertices a bottom-up step need not examine: the visited ones (exact after a
  /// bottom-up step, a subset otherwise: top-down steps do not maintain it) and those
  /// without in-edges, which no step can reach. Lets bottom-up skip whole words.
  Kokkos::View<Word*, Mem> settled;

  // Host view of the queue window [head, tail) holding the current frontier, and the
  // frontier's out-edges (-1: unknown).
  std::int32_t head = 0;
  std::int32_t tail_host = 0;
  std::int64_t frontier_edges = -1;

  /// Steps run by the team kernels (top_down_team.cpp, bottom_up_team.cpp) in `shape`
  /// (the profile's request, clamped per step to the space that runs it).
  bool team = false;
  core_detail::TeamShape shape;

  Workspace(std::int32_t n, const TuningProfile& tuning, bool write_depths);
  std::int32_t frontier_size() const { return tail_host - head; }
};

struct StepStats {
  std::int64_t found = 0;           ///< vertices claimed by the step
  std::int64_t scout = 0;           ///< out-edges of the claimed vertices
  std::int64_t edges_examined = 0;  ///< edges the step looked at
};

/// Resets the workspace for a search from `source` (valid id) and puts the source
/// in the queue. Returns the source's out-degree.
std::int64_t init_search(const BfsGraph::State& g, Workspace& ws, std::int32_t source);

/// Top-down step at `level` (frontier depth): expands the queue window, appends the
/// claimed vertices to the queue and slides the window onto them.
StepStats td_step(const BfsGraph::State& g, Workspace& ws, std::int32_t level);

/// Bottom-up step at `level`: every unvisited vertex looks for an in-neighbour in
/// ws.front; the claimed vertices form ws.next, then front and next are swapped.
StepStats bu_step(const BfsGraph::State& g, Workspace& ws, std::int32_t level);

/// Bottom-up: a step's counts, reduced over its work items.
struct Counts {
  std::int64_t found = 0;
  std::int64_t edges = 0;
  KOKKOS_INLINE_FUNCTION Counts& operator+=(const Counts& o) {
    found += o.found;
    edges += o.edges;
    return *this;
  }
  KOKKOS_INLINE_FUNCTION void operator+=(const volatile Counts& o) volatile {
    found += o.found;
    edges += o.edges;
  }
};

/// Bottom-up: ends a step that wrote ws.next: it becomes the frontier.
inline StepStats bu_finish(Workspace& ws, const Counts& counts) {
  std::swap(ws.front, ws.next);
  StepStats stats;
  stats.found = counts.found;
  stats.edges_examined = counts.edges;
  return stats;
}

/// The team kernels' steps (same contracts as td_step and bu_step, which call them when
/// ws.team), on Kokkos::Serial when `serial` and Serial reaches the data.
StepStats td_team_step(const BfsGraph::State& g, Workspace& ws, std::int32_t level, bool serial);
StepStats bu_team_step(const BfsGraph::State& g, Workspace& ws, std::int32_t level, bool serial);

/// Top-down: ws.offsets[0..f] = the exclusive scan of the frontier's out-degrees (f the
/// window's size); returns the frontier's out-edges (offsets[f]).
template <class Space>
std::int64_t frontier_offsets(const BfsGraph::State& g, Workspace& ws) {
  const std::int32_t f = ws.frontier_size(), head = ws.head;
  const std::int32_t* const queue = ws.queue.data();
  const std::int32_t* const queue_deg = ws.queue_deg.data();
  std::int64_t* const offsets = ws.offsets.data();
  const std::int64_t* const row_map = g.out.row_map.data();
  Kokkos::parallel_scan(
      "mimd::bfs::td_offsets", Kokkos::RangePolicy<Space>(0, f),
      KOKKOS_LAMBDA(const std::int32_t i, std::int64_t& update, const bool final) {
        const std::int32_t u = queue[head + i];
        std::int64_t d = queue_deg[head + i];
        if (d == kMaxEncodedDegree) d = row_map[u + 1] - row_map[u];
        if (final) offsets[i] = update;
        update += d;
        if (final && i == f - 1) offsets[f] = update;
      });
  std::int64_t total = 0;
  Kokkos::deep_copy(total, Kokkos::subview(ws.offsets, f));
  return total;
}

/// What a top-down step's kernel reads and writes (raw pointers, captured by value).
struct TdArrays {
  std::int32_t head;      ///< the frontier is queue[head, head + f)
  std::int32_t* queue;    ///< claimed vertices are appended at *tail
  std::int32_t* out_deg;  ///< the out-degree of queue[i] (encoded as in queue_deg)
  std::int32_t* tail;
  const std::int64_t* offsets;  ///< frontier_offsets' scan
  const std::int64_t* row_map;  ///< out-edges
  const std::int32_t* entries;
  std::int32_t* parent;
  std::int32_t* depth;  ///< null unless depths are written
  std::int32_t next_depth;
};
inline TdArrays td_arrays(const BfsGraph::State& g, const Workspace& ws, std::int32_t level) {
  return {ws.head,
          ws.queue.data(),
          ws.queue_deg.data(),
          ws.tail.data(),
          ws.offsets.data(),
          g.out.row_map.data(),
          g.out.entries.data(),
          ws.parent.data(),
          ws.write_depths ? ws.depth.data() : nullptr,
          level + 1};
}

/// What a bottom-up step's kernel reads and writes (raw pointers, captured by value).
struct BuArrays {
  std::int32_t n;
  const std::int64_t* row_map;  ///< in-edges
  const std::int32_t* entries;
  std::int32_t* parent;
  std::int32_t* depth;  ///< null unless depths are written
  const Word* front;    ///< the frontier bitmap
  Word* next;           ///< the next frontier's bitmap
  Word* settled;
  std::int32_t next_depth;
};
inline BuArrays bu_arrays(const BfsGraph::State& g, const Workspace& ws, std::int32_t level) {
  return {ws.n,
          g.in.row_map.data(),
          g.in.entries.data(),
          ws.parent.data(),
          ws.write_depths ? ws.depth.data() : nullptr,
          ws.front.data(),
          ws.next.data(),
          ws.settled.data(),
          level + 1};
}

/// Top-down: frontier edges per work item (a block of the concatenated adjacency lists):
/// about 8 items per thread, at least 256 edges, at most the hub degree (so a hub vertex
/// is split across workers).
inline std::int64_t td_block_edges(const Workspace& ws, std::int64_t total, int concurrency) {
  const std::int64_t per_item =
      total / (std::int64_t(ws.td_blocks_per_thread) * std::int64_t(std::max(1, concurrency)));
  return std::min<std::int64_t>(std::max(ws.hub_degree, 1),
                                std::max(ws.td_min_block_edges, per_item));
}

/// Top-down: the frontier vertex owning edge e of the concatenated adjacency lists, the
/// last i with offsets[i] <= e (offsets as frontier_offsets leaves them, e < offsets[f]).
KOKKOS_INLINE_FUNCTION std::int32_t edge_owner(const std::int64_t* offsets, std::int32_t f,
                                               std::int64_t e) {
  std::int32_t lo = 0, hi = f - 1;
  while (lo < hi) {
    const std::int32_t mid = lo + (hi - lo) / 2;
    if (offsets[mid + 1] > e)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/// Top-down: ends a step whose claims were appended at ws.tail: slides the window onto
/// them and returns the step's counts.
inline StepStats td_finish(Workspace& ws, std::int64_t edges, std::int64_t scout) {
  std::int32_t new_tail = 0;
  Kokkos::deep_copy(new_tail, ws.tail);
  StepStats stats;
  stats.found = new_tail - ws.tail_host;
  stats.scout = scout;
  stats.edges_examined = edges;
  ws.head = ws.tail_host;
  ws.tail_host = new_tail;
  return stats;
}

/// The queue window as a bitmap in ws.front (the window is consumed).
void queue_to_bitmap(Workspace& ws);
/// ws.front as a fresh queue window (with degrees).
void bitmap_to_queue(const BfsGraph::State& g, Workspace& ws);

/// Records the steps of one search when asked to.
class StepLog {
 public:
  StepLog(bool enabled, BfsResult& result);
  void begin();
  void end(bool bottom_up, std::int64_t frontier, std::int64_t edges);

 private:
  bool enabled_;
  BfsResult& result_;
  Kokkos::Timer timer_;
};

// Drivers: each runs a whole search from `source` into ws (parents, depths) and
// accumulates result.edges_examined and result.steps.
void top_down_bfs(const BfsGraph::State& g, Workspace& ws, std::int32_t source, StepLog& log,
                  BfsResult& result);
void bottom_up_bfs(const BfsGraph::State& g, Workspace& ws, std::int32_t source, StepLog& log,
                   BfsResult& result);
void direction_optimizing_bfs(const BfsGraph::State& g, Workspace& ws, std::int32_t source,
                              int alpha, int beta, StepLog& log, BfsResult& result);
/// Sequential queue BFS on the host graph, writing result.parents/depths directly.
void reference_bfs(const BfsGraph::State& g, std::int32_t source, bool want_parents,
                   bool want_depths, BfsResult& result);

}  // namespace bfs_detail
}  // namespace mimd
