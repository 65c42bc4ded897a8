// Breadth-first search: the parent and/or depth of every vertex reachable from a source.
//
// Algorithms (kernels/bfs/, one file each, all validated):
//  - Reference:           sequential queue BFS (reference.cpp).
//  - TopDown:             sparse frontier queue; vertices claimed by compare-and-swap on
//                         their parent; the frontier's edges cut into equal blocks, so
//                         hub vertices are split across workers; claimed vertices
//                         gathered in local buffers appended with one atomic add per
//                         buffer (top_down.cpp).
//  - BottomUp:            bitmap frontier; each unvisited vertex scans its in-neighbours
//                         and stops at the first one in the frontier; the next frontier
//                         is built one 64-bit word per work item (bottom_up.cpp).
//  - DirectionOptimizing: Beamer, Asanovic, Patterson (SC'12) with GAP's heuristic:
//                         top-down until the frontier's edges exceed the unexplored
//                         edges / alpha, then bottom-up until the frontier shrinks below
//                         n / beta (direction_optimizing.cpp).
//  - TopDownTeam, BottomUpTeam, DirectionOptimizingTeam: the same searches with steps
//                         shaped for wide devices (one block of frontier edges or of
//                         bitmap words per team, vector lanes over a vertex's edges,
//                         queues appended by team scans with one atomic per team;
//                         top_down_team.cpp, bottom_up_team.cpp), in the profile's
//                         team_size, team_vector and team_scratch_bytes.
// Kokkos-portable (Serial, OpenMP, Threads; nothing host-only inside the kernels).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mimd/context.hpp"
#include "mimd/csr.hpp"

namespace mimd {

using GraphPattern = CsrPattern<std::int32_t, std::int64_t, DefaultMemorySpace>;

/// A graph ready for BFS: out-edges, and in-edges for bottom-up steps (the same
/// arrays when the graph is undirected). Built once, reused across searches.
class BfsGraph {
 public:
  /// An undirected graph from a symmetric pattern (both directions stored; this is a
  /// precondition, not checked: use symmetrize() when unsure). Self-loops, duplicate
  /// edges and isolated vertices are tolerated. The arrays are shared, not copied.
  /// @throws InvalidArgument when the pattern is not square
  static BfsGraph undirected(const HostPattern& symmetric);
  /// A directed graph: the in-edges are built here by transposition.
  /// @throws InvalidArgument when the pattern is not square
  /// @throws InvalidMatrix when the pattern breaks a CSR invariant (also undirected())
  static BfsGraph directed(const HostPattern& out);
  /// The symmetrised pattern of `p`: mimd::symmetrize (csr.hpp), p + p^T, duplicates
  /// merged, self-loops kept, columns sorted. Generated graphs that are already
  /// symmetric (mimd::generates_symmetric) need not go through it.
  /// @throws InvalidArgument when `p` is not square
  static HostPattern symmetrize(const HostPattern& p);

  std::int32_t num_vertices() const;
  std::int64_t num_stored_edges() const;  ///< out-edges as stored
  /// Undirected edges as GAP counts them for TEPS: stored edges / 2 for undirected
  /// graphs, stored edges for directed ones.
  std::int64_t num_teps_edges() const;
  bool is_directed() const;
  const GraphPattern& out() const;
  const GraphPattern& in() const;
  const HostPattern& host_out() const;  ///< host copy for validation

  struct State;

 private:
  friend class BfsRunner;
  std::shared_ptr<State> state_;
};

enum class BfsAlgorithm {
  Reference,
  TopDown,
  BottomUp,
  DirectionOptimizing,
  TopDownTeam,
  BottomUpTeam,
  DirectionOptimizingTeam
};
const char* to_string(BfsAlgorithm a) noexcept;  ///< "reference", "top_down", "top_down_team", ...
/// @throws InvalidArgument listing the valid names
BfsAlgorithm bfs_algorithm_from_string(const std::string& name);
std::vector<BfsAlgorithm> bfs_algorithms();

struct BfsOptions {
  BfsAlgorithm algorithm = BfsAlgorithm::DirectionOptimizing;
  bool want_parents = true;  ///< fill BfsResult::parents
  bool want_depths = true;   ///< fill BfsResult::depths (costs one write per vertex)
  bool log_steps = false;    ///< record a BfsStep per level (fences around every step)
  /// Direction-optimizing only: go bottom-up when the frontier's out-edges exceed the
  /// unexplored edges / alpha; return top-down when the frontier shrinks below
  /// n / beta. Both >= 1 when given; empty: the context's tuning profile (bfs_alpha,
  /// bfs_beta: 15 and 18 by default, GAP's values).
  std::optional<int> alpha;
  std::optional<int> beta;
};

/// One level of a search: which direction expanded it and what it cost.
struct BfsStep {
  bool bottom_up = false;
  std::int64_t frontier = 0;  ///< vertices in the frontier this step expanded
  std::int64_t edges_examined = 0;
  double seconds = 0;
};

/// Host arrays, -1 for unreached vertices; parent[source] == source, depth[source] == 0.
struct BfsResult {
  std::vector<std::int32_t> parents;  ///< empty unless want_parents
  std::vector<std::int32_t> depths;   ///< empty unless want_depths
  std::int64_t reached = 0;
  std::int64_t edges_examined = 0;
  std::vector<BfsStep> steps;  ///< empty unless log_steps
};

/// Runs many searches on one graph reusing every buffer (parents, depths, queue,
/// bitmaps and the result's vectors): allocate once, then call run() per source.
/// The runner holds a shared handle to the graph (no copy; it stays alive).
/// @throws InvalidArgument (constructor) for a default-constructed graph, a negative
///         alpha or beta, or a tuning profile whose bfs_alpha / bfs_beta is not > 0
class BfsRunner {
 public:
  BfsRunner(const ExecutionContext& ctx, const BfsGraph& graph, const BfsOptions& options = {});
  /// One search; the returned reference stays valid until the next run().
  /// @throws InvalidArgument when source is outside [0, num_vertices)
  const BfsResult& run(std::int32_t source);
  const BfsOptions& options() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

/// One search (a BfsRunner used once). Same errors as BfsRunner and BfsRunner::run.
BfsResult bfs(const ExecutionContext& ctx, const BfsGraph& graph, std::int32_t source,
              const BfsOptions& options = {});

struct BfsValidation {
  bool ok = true;
  std::string message;  ///< first violated rule, with the vertices involved
};

/// Graph500's five rules on a BFS tree of `graph` from `source`:
/// 1) the parents form a tree rooted at the source (no cycles);
/// 2) every tree edge exists in the graph;
/// 3) depth increases by exactly one along tree edges;
/// 4) every graph edge joins vertices whose depths differ by at most one, or both
///    endpoints are unreached (directed: depth[v] <= depth[u] + 1 for u -> v);
/// 5) every vertex reachable from the source is in the tree.
/// `depths` may be empty: they are then derived from the parents (a cycle or a chain
/// ending at an unreached vertex breaks rule 1). `parents` may be empty: rules 3-5
/// are then checked on the depths alone (every reached vertex but the source needs an
/// in-neighbour one level up). The first violation is reported, in the rules' order,
/// naming the vertices and edge involved; an array of the wrong size or with values
/// outside [-1, n) also fails validation. Runs sequentially in O(n + m).
/// @throws InvalidArgument when source is outside [0, n) or both arrays are empty
BfsValidation validate_bfs(const BfsGraph& graph, std::int32_t source,
                           const std::vector<std::int32_t>& parents,
                           const std::vector<std::int32_t>& depths);

}  // namespace mimd
