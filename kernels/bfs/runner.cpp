// BFS entry points: algorithm names, the workspace, BfsRunner (one workspace reused by
// many searches) and the dispatch to the drivers of kernels/bfs/*.cpp.
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "bfs/bfs_internal.hpp"
#include "mimd/error.hpp"
#include "mimd/memory.hpp"

namespace mimd {

const char* to_string(BfsAlgorithm a) noexcept {
  switch (a) {
    case BfsAlgorithm::Reference:
      return "reference";
    case BfsAlgorithm::TopDown:
      return "top_down";
    case BfsAlgorithm::BottomUp:
      return "bottom_up";
    case BfsAlgorithm::DirectionOptimizing:
      return "direction_optimizing";
    case BfsAlgorithm::TopDownTeam:
      return "top_down_team";
    case BfsAlgorithm::BottomUpTeam:
      return "bottom_up_team";
    case BfsAlgorithm::DirectionOptimizingTeam:
      return "direction_optimizing_team";
  }
  return "unknown";
}

std::vector<BfsAlgorithm> bfs_algorithms() {
  return {BfsAlgorithm::Reference,
          BfsAlgorithm::TopDown,
          BfsAlgorithm::BottomUp,
          BfsAlgorithm::DirectionOptimizing,
          BfsAlgorithm::TopDownTeam,
          BfsAlgorithm::BottomUpTeam,
          BfsAlgorithm::DirectionOptimizingTeam};
}

BfsAlgorithm bfs_algorithm_from_string(const std::string& name) {
  std::string valid;
  for (BfsAlgorithm a : bfs_algorithms()) {
    if (name == to_string(a)) return a;
    valid += valid.empty() ? "" : ", ";
    valid += to_string(a);
  }
  throw InvalidArgument("unknown BFS algorithm '" + name + "' (valid: " + valid + ")");
}

namespace bfs_detail {

// The searches read these arrays at random: huge pages, first touched by the workers.
constexpr Placement kPlacement = Placement::FirstTouch;
constexpr Pages kPages = Pages::Huge;

Workspace::Workspace(std::int32_t n_, const TuningProfile& tuning, bool write_depths_)
    : n(n_),
      nwords((static_cast<std::int64_t>(n_) + 63) / 64),
      hub_degree(tuning.bfs_hub_degree),
      serial_edges(tuning.bfs_serial_edges),
      write_depths(write_depths_),
      parent(allocate<std::int32_t>("mimd::bfs::parent", n_, kPlacement, kPages)),
      depth(allocate<std::int32_t>("mimd::bfs::depth", write_depths_ ? n_ : 0, kPlacement, kPages)),
      queue(allocate<std::int32_t>("mimd::bfs::queue", n_, kPlacement, kPages)),
      queue_deg(allocate<std::int32_t>("mimd::bfs::queue_deg", n_, kPlacement, kPages)),
      offsets(allocate<std::int64_t>("mimd::bfs::offsets", static_cast<std::size_t>(n_) + 1,
                                     kPlacement, kPages)),
      tail("mimd::bfs::tail"),
      front(allocate<Word>("mimd::bfs::front", nwords, kPlacement, kPages)),
      next(allocate<Word>("mimd::bfs::next", nwords, kPlacement, kPages)),
      settled(allocate<Word>("mimd::bfs::settled", nwords, kPlacement, kPages)),
      shape(core_detail::requested_shape(tuning)) {}

namespace {

template <class Space>
std::int64_t init_search_on(const BfsGraph::State& g, Workspace& ws, std::int32_t source) {
  const std::int32_t n = ws.n;
  const std::int64_t* const row_map = g.out.row_map.data();
  const std::int64_t* const in_row_map = g.in.row_map.data();
  std::int32_t* const parent = ws.parent.data();
  std::int32_t* const depth = ws.write_depths ? ws.depth.data() : nullptr;
  std::int32_t* const queue = ws.queue.data();
  std::int32_t* const queue_deg = ws.queue_deg.data();
  Word* const settled = ws.settled.data();
  // One word of vertices per iteration, so that its `settled` word is written once.
  Kokkos::parallel_for(
      "mimd::bfs::init", Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(0, ws.nwords),
      KOKKOS_LAMBDA(const std::int64_t w) {
        const std::int32_t begin = static_cast<std::int32_t>(w * 64);
        const std::int32_t end = n - begin < 64 ? n : begin + 64;
        Word word = 0;
        for (std::int32_t v = begin; v < end; ++v) {
          const std::int64_t d = row_map[v + 1] - row_map[v];
          parent[v] =
              -(d < kMaxEncodedDegree ? static_cast<std::int32_t>(d) : kMaxEncodedDegree) - 1;
          word |= Word(in_row_map[v + 1] == in_row_map[v]) << (v - begin);
        }
        if (depth) {
          for (std::int32_t v = begin; v < end; ++v) depth[v] = -1;
        }
        if (source >= begin && source < end) {
          queue[0] = source;
          queue_deg[0] = -parent[source] - 1;
          parent[source] = source;
          if (depth) depth[source] = 0;
          word |= Word(1) << (source - begin);
        }
        settled[w] = word;
      });
  Kokkos::deep_copy(ws.tail, 1);
  ws.head = 0;
  ws.tail_host = 1;
  ws.frontier_edges = g.host_out.row_map(source + 1) - g.host_out.row_map(source);
  return ws.frontier_edges;
}

/// Decodes the parents (negative: unreached) into `out` (or in place when null), copies
/// the depths into `out_depth` when given, and returns the number of reached vertices.
template <class Space>
std::int64_t decode_on(std::int32_t n, std::int32_t* parent, const std::int32_t* depth,
                       std::int32_t* out, std::int32_t* out_depth) {
  std::int64_t reached = 0;
  Kokkos::parallel_reduce(
      "mimd::bfs::decode", Kokkos::RangePolicy<Space>(0, n),
      KOKKOS_LAMBDA(const std::int32_t v, std::int64_t& count) {
        const std::int32_t p = parent[v] >= 0 ? parent[v] : -1;
        count += p >= 0 ? 1 : 0;
        if (out)
          out[v] = p;
        else
          parent[v] = p;
        if (out_depth) out_depth[v] = depth[v];
      },
      reached);
  return reached;
}

}  // namespace

std::int64_t init_search(const BfsGraph::State& g, Workspace& ws, std::int32_t source) {
  return with_bfs_space(ws.serial_search,
                        [&](auto space) { return init_search_on<decltype(space)>(g, ws, source); });
}

StepLog::StepLog(bool enabled, BfsResult& result) : enabled_(enabled), result_(result) {}

void StepLog::begin() {
  if (enabled_) {
    Kokkos::fence();
    timer_.reset();
  }
}

void StepLog::end(bool bottom_up, std::int64_t frontier, std::int64_t edges) {
  if (!enabled_) return;
  Kokkos::fence();
  BfsStep s;
  s.bottom_up = bottom_up;
  s.frontier = frontier;
  s.edges_examined = edges;
  s.seconds = timer_.seconds();
  result_.steps.push_back(s);
}

}  // namespace bfs_detail

struct BfsRunner::State {
  ExecutionContext ctx;
  BfsGraph graph;
  BfsOptions options;
  int alpha = 15;
  int beta = 18;
  std::unique_ptr<bfs_detail::Workspace> ws;  ///< absent for the reference algorithm
  BfsResult result;
};

BfsRunner::BfsRunner(const ExecutionContext& ctx, const BfsGraph& graph, const BfsOptions& options)
    : state_(std::make_shared<State>(State{ctx, graph, options, 0, 0, nullptr, {}})) {
  if (!graph.state_) throw InvalidArgument("BfsRunner: the graph is empty (default-constructed)");
  if ((options.alpha && *options.alpha < 1) || (options.beta && *options.beta < 1))
    throw InvalidArgument("BfsRunner: alpha and beta must be >= 1 when given, got alpha = " +
                          (options.alpha ? std::to_string(*options.alpha) : "none") +
                          ", beta = " + (options.beta ? std::to_string(*options.beta) : "none"));
  const TuningProfile& tune = ctx.tuning();
  state_->alpha = options.alpha.value_or(tune.bfs_alpha);
  state_->beta = options.beta.value_or(tune.bfs_beta);
  if (state_->alpha <= 0 || state_->beta <= 0)
    throw InvalidArgument("BfsRunner: the tuning profile's bfs_alpha and bfs_beta must be > 0");
  if (options.algorithm != BfsAlgorithm::Reference) {
    state_->ws =
        std::make_unique<bfs_detail::Workspace>(graph.num_vertices(), tune, options.want_depths);
    state_->ws->team = options.algorithm == BfsAlgorithm::TopDownTeam ||
                       options.algorithm == BfsAlgorithm::BottomUpTeam ||
                       options.algorithm == BfsAlgorithm::DirectionOptimizingTeam;
    state_->ws->serial_search =
        bfs_detail::kSerialReachesData &&
        graph.num_vertices() + graph.num_stored_edges() < tune.bfs_serial_graph;
  }
}

const BfsOptions& BfsRunner::options() const {
  return state_->options;
}

const BfsResult& BfsRunner::run(std::int32_t source) {
  State& s = *state_;
  const std::int32_t n = s.graph.num_vertices();
  if (source < 0 || source >= n)
    throw InvalidArgument("bfs: source " + std::to_string(source) + " is outside [0, " +
                          std::to_string(n) + ")");
  BfsResult& r = s.result;
  r.reached = 0;
  r.edges_examined = 0;
  r.steps.clear();
  const BfsGraph::State& g = *s.graph.state_;
  const BfsOptions& o = s.options;
  if (o.algorithm == BfsAlgorithm::Reference) {
    bfs_detail::reference_bfs(g, source, o.want_parents, o.want_depths, r);
    return r;
  }
  bfs_detail::Workspace& ws = *s.ws;
  bfs_detail::StepLog log(o.log_steps, r);
  switch (o.algorithm) {  // ws.team picks the team kernels' steps
    case BfsAlgorithm::TopDown:
    case BfsAlgorithm::TopDownTeam:
      bfs_detail::top_down_bfs(g, ws, source, log, r);
      break;
    case BfsAlgorithm::BottomUp:
    case BfsAlgorithm::BottomUpTeam:
      bfs_detail::bottom_up_bfs(g, ws, source, log, r);
      break;
    default:
      bfs_detail::direction_optimizing_bfs(g, ws, source, s.alpha, s.beta, log, r);
      break;
  }

  // Decode the parents (negative: unreached) and count the reached vertices, writing
  // straight into the result when the execution space can reach host memory.
  r.parents.resize(o.want_parents ? static_cast<std::size_t>(n) : 0);
  r.depths.resize(o.want_depths ? static_cast<std::size_t>(n) : 0);
  using HostView = Kokkos::View<std::int32_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  HostView host_parents(r.parents.data(), r.parents.size());
  HostView host_depths(r.depths.data(), r.depths.size());
  std::int32_t* const parent = ws.parent.data();
  constexpr bool direct =
      Kokkos::SpaceAccessibility<bfs_detail::Exec, Kokkos::HostSpace>::accessible;
  std::int32_t* const out = direct && o.want_parents ? r.parents.data() : nullptr;
  const std::int32_t* const depth = ws.depth.data();
  std::int32_t* const out_depth = direct && o.want_depths ? r.depths.data() : nullptr;
  r.reached = bfs_detail::with_bfs_space(ws.serial_search, [&](auto space) {
    return bfs_detail::decode_on<decltype(space)>(n, parent, depth, out, out_depth);
  });
  if (!direct) {
    if (o.want_parents) Kokkos::deep_copy(host_parents, ws.parent);
    if (o.want_depths) Kokkos::deep_copy(host_depths, ws.depth);
  }
  return r;
}

BfsResult bfs(const ExecutionContext& ctx, const BfsGraph& graph, std::int32_t source,
              const BfsOptions& options) {
  BfsRunner runner(ctx, graph, options);
  return runner.run(source);
}

}  // namespace mimd
