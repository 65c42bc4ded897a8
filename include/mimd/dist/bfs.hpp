// Distributed direction-optimizing BFS on a 1D partition of an undirected graph (both
// directions stored), level-synchronous:
//  - top-down: each rank expands its frontier vertices; edges to its own vertices claim
//    them at once, edges to other ranks' vertices are sent as (vertex, parent) pairs in
//    one MPI_Alltoallv per level and claimed by their owner;
//  - bottom-up: the frontier bitmap is assembled on every rank by MPI_Allgatherv of the
//    ranks' words; each rank's unvisited vertices look for a parent in it;
//  - the switch is GAP's (Beamer et al., SC'12) on global counts (MPI_Allreduce): go
//    bottom-up when the frontier's edges exceed the unexplored edges / alpha, back
//    top-down when the frontier shrinks below n / beta.
// Parents (global ids) and depths are distributed like the vertices.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "mimd/bfs.hpp"
#include "mimd/dist/context.hpp"
#include "mimd/dist/csr.hpp"

namespace mimd::dist {

/// This rank's part of a search: arrays over its local vertices, -1 when unreached.
struct BfsResult {
  std::vector<std::int32_t> parents;  ///< global ids; parent of the source is the source
  std::vector<std::int32_t> depths;
  std::int64_t reached = 0;  ///< over all ranks
  int levels = 0;
  int bottom_up_levels = 0;
  CommStats comm;  ///< this rank's bytes for the whole search
};

/// Runs searches on one graph reusing its buffers. Collective calls.
/// @throws InvalidArgument (constructor) for alpha or beta < 1 (BfsOptions::alpha, beta;
///         empty: the tuning profile's bfs_alpha, bfs_beta); the algorithm option is
///         ignored (always direction-optimizing)
class BfsRunner {
 public:
  BfsRunner(const Context& ctx, const DistGraph& graph, const BfsOptions& options = {});
  /// @param source  a global vertex id, the same on every rank
  /// @throws InvalidArgument when source is outside [0, n), on every rank
  const BfsResult& run(std::int32_t source);

  struct State;

 private:
  std::shared_ptr<State> state_;
};

/// Graph500's five rules (mimd::validate_bfs) on a distributed result: graph, parents
/// and depths gathered to rank 0, validated there; the verdict is broadcast. For graphs
/// that fit one process.
BfsValidation validate(const Context& ctx, const DistGraph& graph, std::int32_t source,
                       const BfsResult& result);

/// The depths of every vertex on rank 0 (empty elsewhere).
std::vector<std::int32_t> gather_depths(const Context& ctx, const DistGraph& graph,
                                        const BfsResult& result);

}  // namespace mimd::dist
