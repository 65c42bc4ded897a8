// The distributed execution context: an MPI communicator (the caller's, duplicated) and
// the per-rank mimd::ExecutionContext whose threads are bound to this rank's share of
// the cores. Every mimd::dist call is collective over the context's communicator.
//
// Ranks sharing a machine (MPI_COMM_TYPE_SHARED) split its cores: with R ranks on a
// node of C cores, rank r (node-local) gets T = C / R threads bound to cores
// [r T, (r + 1) T). When R > C (an oversubscribed test run) every rank runs one unbound
// thread. The MPI part is optional: these headers exist only in builds with MPI
// (CMake option MIMD_MPI, library MimdKernels::mimd_dist).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mimd/context.hpp"
#include "mimd/error.hpp"

namespace mimd::dist {

/// Another rank failed inside a collective call: the message names that rank and
/// repeats its error ("rank 2 of 4: <file>:<line>: ...").
class RankFailure : public Error {
 public:
  RankFailure(int rank, const std::string& what)
      : Error("rank " + std::to_string(rank) + ": " + what), rank_(rank) {}
  int rank() const noexcept { return rank_; }  ///< the lowest failing rank

 private:
  int rank_;
};

struct DistOptions {
  /// Threads per rank; 0: the node's cores divided by the ranks on the node (at least 1).
  int threads_per_rank = 0;
  BindPolicy bind = BindPolicy::Cores;  ///< forced to None when ranks oversubscribe the cores
  std::string profile_path;             ///< as ContextOptions::profile_path
};

/// MPI communicator + per-rank execution context. Cheap to copy (shared state). The
/// communicator is duplicated (MPI_Comm_dup), so the library's messages never match the
/// caller's; the duplicate is freed with the last copy, which must go before
/// MPI_Finalize. MPI must be initialised (MPI_THREAD_FUNNELED at least: only the
/// calling thread makes MPI calls).
class Context {
 public:
  /// Collective over `comm`.
  /// @throws InvalidArgument when threads_per_rank x ranks on the node exceeds its cores
  ///         with binding requested, or threads_per_rank < 0
  /// @throws RuntimeFailure when MPI is not initialised
  explicit Context(MPI_Comm comm, const DistOptions& options = {});

  MPI_Comm comm() const;
  int rank() const;
  int size() const;
  int local_rank() const;  ///< rank among the ranks on this machine
  int local_size() const;  ///< ranks on this machine
  const ExecutionContext& exec() const;
  int threads_per_rank() const;
  bool oversubscribed() const;  ///< more ranks on the machine than cores
  /// One line, e.g. "rank 1 of 2 (node-local 1 of 2): 1 thread, cores: t0->core1(pu1)".
  std::string layout_summary() const;
  /// Collective: every rank's layout_summary() in rank order on rank 0, empty elsewhere
  /// (what `mimd-topology --ranks` prints under mpirun).
  std::vector<std::string> layout_summaries() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

/// Collective agreement after local work that may have failed on some ranks: every rank
/// passes what it caught (nullptr when it succeeded). If any rank failed, every rank
/// throws: the lowest failing rank rethrows its own exception (its type kept), the
/// others a RankFailure with that rank's message. Never deadlocks on a local failure.
void agree(const Context& ctx, std::exception_ptr local_failure);

/// Runs `body` (a program's main part) and returns its result. An exception escaping it
/// is printed on stderr as "mimd rank R of P: <message>" and the job is ended with
/// MPI_Abort(comm, 1): ranks blocked in a collective do not wait forever.
int run_or_abort(MPI_Comm comm, const std::function<int()>& body);

/// Bytes moved by one distributed call, this rank's share.
struct CommStats {
  std::int64_t bytes_sent = 0;
  std::int64_t bytes_received = 0;
  std::int64_t messages_sent = 0;
};

}  // namespace mimd::dist
