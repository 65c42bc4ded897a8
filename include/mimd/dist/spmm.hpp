// Distributed SpMM C = alpha A B + beta C: A a DistCsr, B and C row-distributed like A
// (each rank holds its local_rows() rows of B and C, k columns, in a Kokkos View).
//
// The plan, built once, splits the local rows into the owned part (columns the rank
// holds) and the ghost part (columns of other ranks: compressed to the rows that have
// any), each with its own mimd::SpmmPlan (LSSM by default), and the halo plan: which of
// its rows of B each rank sends to whom. apply() posts the receives, packs and sends
// (MPI_Irecv / MPI_Isend), runs the owned part while the messages travel, waits, then
// adds the ghost part: C = alpha A_owned B + beta C, then C += alpha A_ghost B_ghost.
#pragma once

#include <cstdint>
#include <memory>

#include "mimd/dist/context.hpp"
#include "mimd/dist/csr.hpp"
#include "mimd/spmm.hpp"

namespace mimd::dist {

/// A reusable distributed SpMM plan. Supported: Scalar float or double, Layout
/// Kokkos::LayoutLeft or LayoutRight. The plan keeps its own copy of A's split parts:
/// values changed in `a` after construction are not seen. Cheap to copy (shared state).
template <class Scalar, class Layout>
class SpmmPlan {
 public:
  /// Collective. Builds the halo plan (one all-to-all of counts, one of row ids) and the
  /// two local plans.
  /// @param options  passed to both local mimd::SpmmPlan (algorithm, block size, ...)
  /// @throws as mimd::SpmmPlan, on every rank (agree())
  SpmmPlan(const Context& ctx, const DistCsr<Scalar>& a, int k_hint = 1,
           const SpmmOptions& options = {});

  /// Collective. b: this rank's rows of B (local_rows() x k), c: its rows of C (same
  /// shape). beta = 0 overwrites C (NaN included).
  /// @throws DimensionMismatch naming every extent when b or c do not fit (every rank)
  void apply(Scalar alpha, const DenseConst<Scalar, Layout>& b, Scalar beta,
             const Dense<Scalar, Layout>& c) const;

  /// Bytes this rank sent and received in the last apply().
  CommStats last_call() const;
  std::int64_t ghost_rows() const;  ///< rows of B this rank receives per call
  std::int64_t send_rows() const;   ///< rows of B this rank sends per call
  /// One line: local rows, owned/ghost nonzeros, neighbours, the local plans.
  std::string describe() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace mimd::dist
