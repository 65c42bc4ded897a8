// Distributed context: communicator duplicate, node-local rank, per-rank thread share;
// collective error agreement and the abort path.
#include "mimd/dist/context.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace mimd::dist {

struct Context::State {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0, size = 1, local_rank = 0, local_size = 1;
  bool oversubscribed = false;
  ExecutionContext exec;

  State(MPI_Comm c, ExecutionContext e) : comm(c), exec(std::move(e)) {}
  ~State() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
};

namespace {

// The rank's execution context, from its node-local position.
ExecutionContext rank_context(int local_rank, int local_size, const DistOptions& options,
                              bool& oversubscribed) {
  if (options.threads_per_rank < 0)
    throw InvalidArgument("dist::Context: threads_per_rank = " +
                          std::to_string(options.threads_per_rank) + " (expected >= 0)");
  const int cores = discover_topology().cores;
  oversubscribed = local_size > cores;
  ContextOptions copt;
  copt.profile_path = options.profile_path;
  copt.bind = oversubscribed ? BindPolicy::None : options.bind;
  copt.num_threads =
      options.threads_per_rank > 0 ? options.threads_per_rank : std::max(1, cores / local_size);
  if (copt.bind != BindPolicy::None && copt.num_threads * local_size > cores)
    throw InvalidArgument("dist::Context: " + std::to_string(local_size) + " ranks x " +
                          std::to_string(copt.num_threads) + " threads exceed this machine's " +
                          std::to_string(cores) +
                          " cores (ranks x threads must not exceed the cores)");
  copt.first_slot = copt.bind == BindPolicy::None ? 0 : local_rank * copt.num_threads;
  return ExecutionContext(copt);
}

// agree() on a bare communicator (the context's constructor has no context yet).
void agree_on(MPI_Comm comm, std::exception_ptr local_failure) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int failed = local_failure ? rank : size, first = size;
  MPI_Allreduce(&failed, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size) return;
  std::string msg;
  if (rank == first) try {
      std::rethrow_exception(local_failure);
    } catch (const std::exception& e) {
      msg = e.what();
    } catch (...) {
      msg = "unknown exception";
    }
  int len = static_cast<int>(msg.size());
  MPI_Bcast(&len, 1, MPI_INT, first, comm);
  msg.resize(static_cast<std::size_t>(len));
  MPI_Bcast(msg.data(), len, MPI_CHAR, first, comm);
  if (rank == first) std::rethrow_exception(local_failure);
  throw RankFailure(first, msg);
}

}  // namespace

Context::Context(MPI_Comm comm, const DistOptions& options) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) throw RuntimeFailure("dist::Context: MPI is not initialised");
  MPI_Comm dup = MPI_COMM_NULL, node = MPI_COMM_NULL;
  MPI_Comm_dup(comm, &dup);
  int rank = 0, size = 1, local_rank = 0, local_size = 1;
  MPI_Comm_rank(dup, &rank);
  MPI_Comm_size(dup, &size);
  MPI_Comm_split_type(dup, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local_rank);
  MPI_Comm_size(node, &local_size);
  MPI_Comm_free(&node);
  bool oversubscribed = false;
  std::exception_ptr failure;
  std::shared_ptr<State> state;
  try {
    state =
        std::make_shared<State>(dup, rank_context(local_rank, local_size, options, oversubscribed));
  } catch (...) {
    failure = std::current_exception();
  }
  try {
    agree_on(dup, failure);
  } catch (...) {
    if (state)
      state.reset();  // frees dup
    else
      MPI_Comm_free(&dup);
    throw;
  }
  state->rank = rank;
  state->size = size;
  state->local_rank = local_rank;
  state->local_size = local_size;
  state->oversubscribed = oversubscribed;
  state_ = std::move(state);
}

MPI_Comm Context::comm() const {
  return state_->comm;
}
int Context::rank() const {
  return state_->rank;
}
int Context::size() const {
  return state_->size;
}
int Context::local_rank() const {
  return state_->local_rank;
}
int Context::local_size() const {
  return state_->local_size;
}
const ExecutionContext& Context::exec() const {
  return state_->exec;
}
int Context::threads_per_rank() const {
  return state_->exec.num_threads();
}
bool Context::oversubscribed() const {
  return state_->oversubscribed;
}

std::string Context::layout_summary() const {
  const State& s = *state_;
  return "rank " + std::to_string(s.rank) + " of " + std::to_string(s.size) + " (node-local " +
         std::to_string(s.local_rank) + " of " + std::to_string(s.local_size) +
         "): " + s.exec.binding_summary() + (s.oversubscribed ? " (oversubscribed: unbound)" : "");
}

std::vector<std::string> Context::layout_summaries() const {
  const std::string mine = layout_summary();
  const int p = size();
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(static_cast<std::size_t>(p)), displs(static_cast<std::size_t>(p) + 1, 0);
  MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, comm());
  for (int q = 0; q < p; ++q) displs[q + 1] = displs[q] + lens[q];
  std::string all(rank() == 0 ? static_cast<std::size_t>(displs[p]) : 0, ' ');
  MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0,
              comm());
  std::vector<std::string> out;
  if (rank() == 0)
    for (int q = 0; q < p; ++q) out.push_back(all.substr(displs[q], lens[q]));
  return out;
}

void agree(const Context& ctx, std::exception_ptr local_failure) {
  agree_on(ctx.comm(), local_failure);
}

int run_or_abort(MPI_Comm comm, const std::function<int()>& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    std::fprintf(stderr, "mimd rank %d of %d: %s\n", rank, size, e.what());
  } catch (...) {
    std::fprintf(stderr, "mimd: unknown exception\n");
  }
  std::fflush(stderr);
  MPI_Abort(comm, 1);
  return 1;
}

}  // namespace mimd::dist
