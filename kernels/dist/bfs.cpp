// Distributed direction-optimizing BFS on a 1D partition (see mimd/dist/bfs.hpp).
//
// Invariants: a vertex is claimed once, by a compare-and-swap on its parent (its owner
// does every claim); the vertices of level L + 1 are all claimed during step L. The
// structure follows GAP's DOBFS (TDStep, BUStep, QueueToBitmap, BitmapToQueue) with the
// frontier exchanged between steps: top-down sends (vertex, parent) pairs to the owners,
// bottom-up reads every rank's frontier words, gathered.
#include "mimd/dist/bfs.hpp"

#include <algorithm>

#include "core/atomic.hpp"
#include "dist/mpi_types.hpp"

namespace mimd::dist {

using detail::displacements;
using Host = Kokkos::DefaultHostExecutionSpace;

struct BfsRunner::State {
  Context ctx;
  DistGraph g;
  int alpha = 15, beta = 18;
  std::int32_t nlocal = 0, first = 0;
  std::vector<std::int64_t> owned_end;  ///< per local row: its owned entries come first
  std::vector<std::int32_t> entries;    ///< the rows' columns, owned ones first
  std::vector<int> ghost_owner;         ///< owning rank of each ghost column
  std::vector<std::int64_t> bit;        ///< per local column: its bit in the gathered bitmap
  std::vector<int> word_counts, word_displs;
  std::vector<std::int32_t> queue, next;
  std::vector<std::uint64_t> front, next_front, gathered;
  std::vector<std::int32_t> pairs, sorted_pairs, received;
  BfsResult result;

  State(const Context& c, const DistGraph& graph) : ctx(c), g(graph) {}

  std::int64_t degree(std::int32_t u) const { return g.local.row_map(u + 1) - g.local.row_map(u); }
  bool claim(std::int32_t v, std::int32_t parent, int depth) {
    if (relaxed_load(&result.parents[v]) != -1) return false;
    if (Kokkos::atomic_compare_exchange(&result.parents[v], -1, parent) != -1) return false;
    result.depths[v] = depth;
    return true;
  }
  std::int64_t allreduce(std::int64_t x) const {
    std::int64_t sum = 0;
    MPI_Allreduce(&x, &sum, 1, MPI_INT64_T, MPI_SUM, ctx.comm());
    return sum;
  }
  void push(std::int64_t& count, std::int32_t v) {
    next[static_cast<std::size_t>(Kokkos::atomic_fetch_add(&count, std::int64_t(1)))] = v;
  }
  std::pair<std::int64_t, std::int64_t> top_down(int level);
  std::int64_t bottom_up(int level);
  void queue_to_bitmap();
  void bitmap_to_queue();
};

BfsRunner::BfsRunner(const Context& ctx, const DistGraph& graph, const BfsOptions& options)
    : state_(std::make_shared<State>(ctx, graph)) {
  State& s = *state_;
  s.alpha = options.alpha.value_or(ctx.exec().tuning().bfs_alpha);
  s.beta = options.beta.value_or(ctx.exec().tuning().bfs_beta);
  if (s.alpha < 1 || s.beta < 1)
    throw InvalidArgument("dist::BfsRunner: alpha = " + std::to_string(s.alpha) +
                          ", beta = " + std::to_string(s.beta) + " (both must be >= 1)");
  const ColumnMap& m = graph.map;
  s.nlocal = m.local_rows();
  s.first = static_cast<std::int32_t>(m.first_row());
  const auto& rm = graph.local.row_map;
  s.owned_end.resize(static_cast<std::size_t>(s.nlocal));
  s.entries.resize(static_cast<std::size_t>(graph.local.nnz()));
  for (std::int32_t i = 0; i < s.nlocal; ++i) {
    const auto b = graph.local.entries.data() + rm(i), e = graph.local.entries.data() + rm(i + 1);
    auto out =
        std::copy_if(b, e, s.entries.begin() + rm(i), [&](std::int32_t c) { return c < s.nlocal; });
    s.owned_end[i] = out - s.entries.begin();
    std::copy_if(b, e, out, [&](std::int32_t c) { return c >= s.nlocal; });
  }
  const int p = ctx.size();
  s.ghost_owner.resize(m.ghosts.size());
  for (int q = 0; q < p; ++q)
    std::fill(s.ghost_owner.begin() + m.ghost_offsets[q],
              s.ghost_owner.begin() + m.ghost_offsets[q + 1], q);
  s.word_counts.resize(p);
  for (int q = 0; q < p; ++q) s.word_counts[q] = static_cast<int>((m.partition.rows(q) + 63) / 64);
  s.word_displs = displacements(s.word_counts);
  s.bit.resize(static_cast<std::size_t>(m.local_cols()));
  for (std::int32_t j = 0; j < m.local_cols(); ++j) {
    const int q = j < s.nlocal ? ctx.rank() : s.ghost_owner[j - s.nlocal];
    s.bit[j] = std::int64_t(s.word_displs[q]) * 64 + (m.global_column(j) - m.partition.begin(q));
  }
  s.queue.reserve(static_cast<std::size_t>(s.nlocal));
  s.next.resize(static_cast<std::size_t>(s.nlocal));
  s.front.resize(static_cast<std::size_t>(s.word_counts[ctx.rank()]));
  s.next_front.resize(s.front.size());
  s.gathered.resize(static_cast<std::size_t>(s.word_displs[p]));
  s.result.parents.resize(static_cast<std::size_t>(s.nlocal));
  s.result.depths.resize(static_cast<std::size_t>(s.nlocal));
}

// Expands the queue: owned neighbours claimed here, the others sent to their owners.
// Returns the next frontier's global size and its global out-degree sum.
std::pair<std::int64_t, std::int64_t> BfsRunner::State::top_down(int level) {
  const int p = ctx.size();
  const auto nq = static_cast<std::int64_t>(queue.size());
  std::vector<std::int64_t> at(static_cast<std::size_t>(nq) + 1, 0);
  for (std::int64_t i = 0; i < nq; ++i)
    at[i + 1] = at[i] + g.local.row_map(queue[i] + 1) - owned_end[queue[i]];
  pairs.resize(static_cast<std::size_t>(2 * at[nq]));
  std::int64_t count = 0;
  const auto& rm = g.local.row_map;
  Kokkos::parallel_for("mimd::dist::bfs::top_down",
                       Kokkos::RangePolicy<Host, Kokkos::Schedule<Kokkos::Dynamic>>(0, nq),
                       [&](std::int64_t i) {
                         const std::int32_t u = queue[i];
                         for (std::int64_t j = rm(u); j < owned_end[u]; ++j)
                           if (claim(entries[j], first + u, level + 1)) push(count, entries[j]);
                         std::int64_t o = 2 * at[i];
                         for (std::int64_t j = owned_end[u]; j < rm(u + 1); ++j) {
                           pairs[o++] = entries[j] - nlocal;
                           pairs[o++] = first + u;
                         }
                       });
  // Pairs binned by owner (ghost ids are grouped by owner, so a counting sort), sent.
  std::vector<int> send_counts(p, 0), recv_counts(p);
  const std::int64_t npairs = at[nq];
  for (std::int64_t i = 0; i < npairs; ++i) send_counts[ghost_owner[pairs[2 * i]]] += 2;
  auto sd = displacements(send_counts);
  std::vector<int> fill(sd.begin(), sd.end() - 1);
  sorted_pairs.resize(pairs.size());
  for (std::int64_t i = 0; i < npairs; ++i) {
    const std::int32_t ghost = pairs[2 * i];
    int& o = fill[ghost_owner[ghost]];
    sorted_pairs[o++] = g.map.ghosts[ghost];
    sorted_pairs[o++] = pairs[2 * i + 1];
  }
  MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, ctx.comm());
  const auto rd = displacements(recv_counts);
  received.resize(static_cast<std::size_t>(rd[p]));
  MPI_Alltoallv(sorted_pairs.data(), send_counts.data(), sd.data(), MPI_INT32_T, received.data(),
                recv_counts.data(), rd.data(), MPI_INT32_T, ctx.comm());
  const int me = ctx.rank();
  result.comm.bytes_sent += 4 * std::int64_t(sd[p] - send_counts[me]);
  result.comm.bytes_received += 4 * std::int64_t(rd[p] - recv_counts[me]);
  Kokkos::parallel_for("mimd::dist::bfs::top_down_remote", Kokkos::RangePolicy<Host>(0, rd[p] / 2),
                       [&](int i) {
                         const std::int32_t v = received[2 * i] - first;
                         if (claim(v, received[2 * i + 1], level + 1)) push(count, v);
                       });
  queue.assign(next.begin(), next.begin() + count);
  std::int64_t scout = 0;
  for (const std::int32_t v : queue) scout += degree(v);
  std::int64_t local[2] = {count, scout}, global[2] = {0, 0};
  MPI_Allreduce(local, global, 2, MPI_INT64_T, MPI_SUM, ctx.comm());
  return {global[0], global[1]};
}

// Every unvisited local vertex looks for a neighbour in the gathered frontier bitmap.
// Returns the global number of vertices it woke.
std::int64_t BfsRunner::State::bottom_up(int level) {
  const int me = ctx.rank(), p = ctx.size();
  MPI_Allgatherv(front.data(), word_counts[me], MPI_UINT64_T, gathered.data(), word_counts.data(),
                 word_displs.data(), MPI_UINT64_T, ctx.comm());
  result.comm.bytes_sent += 8 * std::int64_t(word_counts[me]) * (p - 1);
  result.comm.bytes_received += 8 * std::int64_t(word_displs[p] - word_counts[me]);
  std::fill(next_front.begin(), next_front.end(), 0);
  const auto& rm = g.local.row_map;
  std::int64_t awake = 0;
  Kokkos::parallel_reduce(
      "mimd::dist::bfs::bottom_up",
      Kokkos::RangePolicy<Host, Kokkos::Schedule<Kokkos::Dynamic>>(0, nlocal),
      [&](std::int32_t u, std::int64_t& woke) {
        if (result.parents[u] != -1) return;
        for (std::int64_t j = rm(u); j < rm(u + 1); ++j) {
          const std::int32_t c = entries[j];
          const std::int64_t b = bit[c];
          if ((gathered[b >> 6] >> (b & 63)) & 1) {
            result.parents[u] = g.map.global_column(c);
            result.depths[u] = level + 1;
            Kokkos::atomic_fetch_or(&next_front[u >> 6], std::uint64_t(1) << (u & 63));
            ++woke;
            break;
          }
        }
      },
      awake);
  front.swap(next_front);
  return allreduce(awake);
}

void BfsRunner::State::queue_to_bitmap() {
  std::fill(front.begin(), front.end(), 0);
  for (const std::int32_t u : queue) front[u >> 6] |= std::uint64_t(1) << (u & 63);
}

void BfsRunner::State::bitmap_to_queue() {
  queue.clear();
  for (std::size_t w = 0; w < front.size(); ++w)
    for (std::uint64_t bits = front[w]; bits != 0; bits &= bits - 1)
      queue.push_back(static_cast<std::int32_t>(w * 64) + __builtin_ctzll(bits));
}

const BfsResult& BfsRunner::run(std::int32_t source) {
  State& s = *state_;
  const std::int64_t n = s.g.map.global_rows;
  if (source < 0 || source >= n)
    throw InvalidArgument("dist::BfsRunner::run: source " + std::to_string(source) +
                          " outside [0, " + std::to_string(n) + ")");
  BfsResult& r = s.result;
  std::fill(r.parents.begin(), r.parents.end(), -1);
  std::fill(r.depths.begin(), r.depths.end(), -1);
  r.comm = {};
  r.levels = r.bottom_up_levels = 0;
  s.queue.clear();
  std::int64_t scout = 0;
  if (source >= s.first && source < s.first + s.nlocal) {
    const std::int32_t u = source - s.first;
    r.parents[u] = source;
    r.depths[u] = 0;
    s.queue.push_back(u);
    scout = s.degree(u);
  }
  scout = s.allreduce(scout);
  std::int64_t edges_to_check = s.g.global_edges, frontier = 1, reached = 1;
  int level = 0;
  while (frontier > 0) {
    if (scout > edges_to_check / s.alpha) {
      s.queue_to_bitmap();
      std::int64_t awake = frontier, old = 0;
      do {
        old = awake;
        awake = s.bottom_up(level++);
        reached += awake;
        ++r.bottom_up_levels;
      } while (awake >= old || awake > n / s.beta);
      s.bitmap_to_queue();
      frontier = awake;
      scout = 1;
    } else {
      edges_to_check -= scout;
      std::tie(frontier, scout) = s.top_down(level++);
      reached += frontier;
    }
  }
  r.levels = level;
  r.reached = reached;
  return r;
}

namespace {

// This rank's array gathered on rank 0 in global order.
std::vector<std::int32_t> gather_vertices(const Context& ctx, const ColumnMap& map,
                                          const std::vector<std::int32_t>& local) {
  const int p = ctx.size();
  std::vector<int> counts(p);
  for (int q = 0; q < p; ++q) counts[q] = static_cast<int>(map.partition.rows(q));
  const auto d = displacements(counts);
  std::vector<std::int32_t> all(ctx.rank() == 0 ? static_cast<std::size_t>(d[p]) : 0);
  MPI_Gatherv(local.data(), static_cast<int>(local.size()), MPI_INT32_T, all.data(), counts.data(),
              d.data(), MPI_INT32_T, 0, ctx.comm());
  return all;
}

}  // namespace

std::vector<std::int32_t> gather_depths(const Context& ctx, const DistGraph& graph,
                                        const BfsResult& result) {
  return gather_vertices(ctx, graph.map, result.depths);
}

BfsValidation validate(const Context& ctx, const DistGraph& graph, std::int32_t source,
                       const BfsResult& result) {
  const HostPattern whole = gather(ctx, graph);
  const auto parents = gather_vertices(ctx, graph.map, result.parents);
  const auto depths = gather_vertices(ctx, graph.map, result.depths);
  BfsValidation v;
  std::exception_ptr failure;
  if (ctx.rank() == 0) try {
      v = validate_bfs(BfsGraph::undirected(whole), source, parents, depths);
    } catch (...) {
      failure = std::current_exception();
    }
  agree(ctx, failure);
  int ok = v.ok ? 1 : 0;
  MPI_Bcast(&ok, 1, MPI_INT, 0, ctx.comm());
  int len = static_cast<int>(v.message.size());
  MPI_Bcast(&len, 1, MPI_INT, 0, ctx.comm());
  v.message.resize(static_cast<std::size_t>(len));
  MPI_Bcast(v.message.data(), len, MPI_CHAR, 0, ctx.comm());
  v.ok = ok != 0;
  return v;
}

}  // namespace mimd::dist
