// Distributed SpMM: halo exchange (MPI_Irecv / MPI_Isend) overlapped with the owned part
// of the local rows, then the ghost part added (see mimd/dist/spmm.hpp).
#include "mimd/dist/spmm.hpp"

#include <optional>

#include "dist/halo.hpp"
#include "dist/mpi_types.hpp"

namespace mimd::dist {

using detail::mpi_type;

template <class Scalar, class Layout>
struct SpmmPlan<Scalar, Layout>::State {
  Context ctx;
  std::int32_t nlocal = 0, nghost = 0;
  Csr<Scalar> owned, ghost;  ///< nlocal x nlocal; ghost rows x nghost (compressed rows)
  Kokkos::View<std::int32_t*> ghost_rows;  ///< local row of each row of `ghost`
  std::optional<mimd::SpmmPlan<Scalar, Layout>> owned_plan, ghost_plan;
  detail::HaloPlan halo;
  Kokkos::View<std::int32_t*> send_rows;
  Kokkos::View<Scalar*> send_buf, recv_buf;
  Dense<Scalar, Layout> halo_b, partial;  ///< B's ghost rows (LayoutLeft copy), A_ghost B_ghost
  CommStats last;

  explicit State(const Context& c) : ctx(c) {}
};

namespace {

// Splits the local rows into the owned columns and the ghost columns (renumbered from 0,
// rows without ghost entries dropped).
template <class Scalar>
void split(const HostCsr<Scalar>& a, std::int32_t nlocal, HostCsr<Scalar>& owned,
           HostCsr<Scalar>& ghost, std::vector<std::int32_t>& ghost_rows) {
  const std::int32_t n = a.nrows;
  std::vector<std::int64_t> own_rm(static_cast<std::size_t>(n) + 1, 0), gh_rm(1, 0);
  std::vector<std::int32_t> own_c, gh_c;
  std::vector<Scalar> own_v, gh_v;
  own_c.reserve(static_cast<std::size_t>(a.nnz()));
  own_v.reserve(static_cast<std::size_t>(a.nnz()));
  for (std::int32_t i = 0; i < n; ++i) {
    const std::size_t before = gh_c.size();
    for (std::int64_t j = a.row_map(i); j < a.row_map(i + 1); ++j) {
      const std::int32_t c = a.entries(j);
      if (c < nlocal) {
        own_c.push_back(c);
        own_v.push_back(a.values(j));
      } else {
        gh_c.push_back(c - nlocal);
        gh_v.push_back(a.values(j));
      }
    }
    own_rm[i + 1] = static_cast<std::int64_t>(own_c.size());
    if (gh_c.size() > before) {
      ghost_rows.push_back(i);
      gh_rm.push_back(static_cast<std::int64_t>(gh_c.size()));
    }
  }
  auto fill = [](HostCsr<Scalar>& m, std::int32_t rows, std::int32_t cols,
                 const std::vector<std::int64_t>& rm, const std::vector<std::int32_t>& c,
                 const std::vector<Scalar>& v) {
    m.nrows = rows;
    m.ncols = cols;
    m.row_map = typename HostCsr<Scalar>::row_map_type("dist::spmm::row_map", rm.size());
    m.entries = typename HostCsr<Scalar>::entries_type("dist::spmm::entries", c.size());
    m.values = typename HostCsr<Scalar>::values_type("dist::spmm::values", v.size());
    std::copy(rm.begin(), rm.end(), m.row_map.data());
    std::copy(c.begin(), c.end(), m.entries.data());
    std::copy(v.begin(), v.end(), m.values.data());
  };
  fill(owned, n, nlocal, own_rm, own_c, own_v);
  fill(ghost, static_cast<std::int32_t>(ghost_rows.size()), a.ncols - nlocal, gh_rm, gh_c, gh_v);
}

}  // namespace

template <class Scalar, class Layout>
SpmmPlan<Scalar, Layout>::SpmmPlan(const Context& ctx, const DistCsr<Scalar>& a, int k_hint,
                                   const SpmmOptions& options)
    : state_(std::make_shared<State>(ctx)) {
  State& s = *state_;
  s.nlocal = a.map.local_rows();
  s.nghost = static_cast<std::int32_t>(a.map.ghosts.size());
  std::exception_ptr failure;
  try {
    if (a.local.nrows != s.nlocal || a.local.ncols != a.map.local_cols())
      throw DimensionMismatch("dist::SpmmPlan", "local rows are " + std::to_string(a.local.nrows) +
                                                    "x" + std::to_string(a.local.ncols) +
                                                    ", the column map says " +
                                                    std::to_string(s.nlocal) + "x" +
                                                    std::to_string(a.map.local_cols()));
    validate(a.local);
    HostCsr<Scalar> owned, ghost;
    std::vector<std::int32_t> rows;
    split(a.local, s.nlocal, owned, ghost, rows);
    s.owned = to_memory_space<DefaultMemorySpace>(owned);
    s.ghost = to_memory_space<DefaultMemorySpace>(ghost);
    s.ghost_rows = Kokkos::View<std::int32_t*>("dist::spmm::ghost_rows", rows.size());
    auto gr = Kokkos::create_mirror_view(s.ghost_rows);
    std::copy(rows.begin(), rows.end(), gr.data());
    Kokkos::deep_copy(s.ghost_rows, gr);
    s.owned_plan.emplace(ctx.exec(), s.owned, k_hint, options);
    if (!rows.empty()) s.ghost_plan.emplace(ctx.exec(), s.ghost, k_hint, options);
  } catch (...) {
    failure = std::current_exception();
  }
  agree(ctx, failure);
  s.halo = detail::make_halo_plan(ctx, a.map);
  s.send_rows = Kokkos::View<std::int32_t*>("dist::spmm::send_rows", s.halo.send_rows.size());
  auto sr = Kokkos::create_mirror_view(s.send_rows);
  std::copy(s.halo.send_rows.begin(), s.halo.send_rows.end(), sr.data());
  Kokkos::deep_copy(s.send_rows, sr);
}

template <class Scalar, class Layout>
void SpmmPlan<Scalar, Layout>::apply(Scalar alpha, const DenseConst<Scalar, Layout>& b, Scalar beta,
                                     const Dense<Scalar, Layout>& c) const {
  State& s = *state_;
  const auto k = static_cast<std::int64_t>(b.extent(1));
  std::exception_ptr failure;
  if (static_cast<std::int64_t>(b.extent(0)) != s.nlocal ||
      static_cast<std::int64_t>(c.extent(0)) != s.nlocal ||
      static_cast<std::int64_t>(c.extent(1)) != k)
    failure = std::make_exception_ptr(DimensionMismatch(
        "dist::SpmmPlan::apply",
        "rank " + std::to_string(s.ctx.rank()) + " holds " + std::to_string(s.nlocal) +
            " rows, B is " + std::to_string(b.extent(0)) + "x" + std::to_string(k) + ", C is " +
            std::to_string(c.extent(0)) + "x" + std::to_string(c.extent(1))));
  agree(s.ctx, failure);
  const auto nsend = static_cast<std::int64_t>(s.halo.send_rows.size());
  const auto need_send = static_cast<std::size_t>(nsend * k);
  const auto need_recv = static_cast<std::size_t>(static_cast<std::int64_t>(s.nghost) * k);
  if (s.send_buf.extent(0) < need_send)
    s.send_buf = Kokkos::View<Scalar*>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "dist::spmm::send"), need_send);
  if (s.recv_buf.extent(0) < need_recv)
    s.recv_buf = Kokkos::View<Scalar*>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "dist::spmm::recv"), need_recv);

  const int p = s.ctx.size();
  const MPI_Comm comm = s.ctx.comm();
  std::vector<MPI_Request> requests;
  requests.reserve(2 * static_cast<std::size_t>(p));
  for (int q = 0; q < p; ++q)
    if (s.halo.recv_counts[q] > 0) {
      requests.emplace_back();
      MPI_Irecv(s.recv_buf.data() + s.halo.recv_displs[q] * k,
                static_cast<int>(s.halo.recv_counts[q] * k), mpi_type<Scalar>(), q, 0, comm,
                &requests.back());
    }
  const auto send_rows = s.send_rows;
  const auto send_buf = s.send_buf;
  Kokkos::parallel_for(
      "mimd::dist::spmm::pack", Kokkos::RangePolicy<>(0, nsend), KOKKOS_LAMBDA(std::int64_t i) {
        const std::int32_t r = send_rows(i);
        for (std::int64_t t = 0; t < k; ++t) send_buf(i * k + t) = b(r, t);
      });
  Kokkos::fence();
  std::int64_t messages = 0;
  for (int q = 0; q < p; ++q)
    if (s.halo.send_counts[q] > 0) {
      requests.emplace_back();
      MPI_Isend(s.send_buf.data() + s.halo.send_displs[q] * k,
                static_cast<int>(s.halo.send_counts[q] * k), mpi_type<Scalar>(), q, 0, comm,
                &requests.back());
      ++messages;
    }
  s.owned_plan->apply(alpha, s.owned, b, beta, c);
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  s.last = {static_cast<std::int64_t>(need_send * sizeof(Scalar)),
            static_cast<std::int64_t>(need_recv * sizeof(Scalar)), messages};
  if (!s.ghost_plan) return;

  const DenseConst<Scalar, Kokkos::LayoutRight> received(s.recv_buf.data(), s.nghost, k);
  DenseConst<Scalar, Layout> halo_b;
  if constexpr (std::is_same_v<Layout, Kokkos::LayoutRight>) {
    halo_b = received;
  } else {
    if (s.halo_b.extent(0) != static_cast<std::size_t>(s.nghost) ||
        s.halo_b.extent(1) != static_cast<std::size_t>(k))
      s.halo_b = Dense<Scalar, Layout>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "dist::spmm::halo"), s.nghost, k);
    Kokkos::deep_copy(s.halo_b, received);
    halo_b = s.halo_b;
  }
  const auto nrows = static_cast<std::int64_t>(s.ghost.nrows);
  if (s.partial.extent(0) != static_cast<std::size_t>(nrows) ||
      s.partial.extent(1) != static_cast<std::size_t>(k))
    s.partial = Dense<Scalar, Layout>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "dist::spmm::partial"), nrows, k);
  s.ghost_plan->apply(alpha, s.ghost, halo_b, Scalar(0), s.partial);
  const auto partial = s.partial;
  const auto rows = s.ghost_rows;
  Kokkos::parallel_for(
      "mimd::dist::spmm::add_ghost", Kokkos::RangePolicy<>(0, nrows),
      KOKKOS_LAMBDA(std::int64_t i) {
        const std::int32_t r = rows(i);
        for (std::int64_t t = 0; t < k; ++t) c(r, t) += partial(i, t);
      });
  Kokkos::fence();
}

template <class Scalar, class Layout>
CommStats SpmmPlan<Scalar, Layout>::last_call() const {
  return state_->last;
}

template <class Scalar, class Layout>
std::int64_t SpmmPlan<Scalar, Layout>::ghost_rows() const {
  return state_->nghost;
}

template <class Scalar, class Layout>
std::int64_t SpmmPlan<Scalar, Layout>::send_rows() const {
  return static_cast<std::int64_t>(state_->halo.send_rows.size());
}

template <class Scalar, class Layout>
std::string SpmmPlan<Scalar, Layout>::describe() const {
  const State& s = *state_;
  return "rank " + std::to_string(s.ctx.rank()) + ": " + std::to_string(s.nlocal) + " rows, " +
         std::to_string(s.owned.nnz()) + " owned + " + std::to_string(s.ghost.nnz()) +
         " ghost nonzeros in " + std::to_string(s.ghost.nrows) + " rows, " +
         std::to_string(s.nghost) + " halo rows from " + std::to_string(s.halo.neighbours) +
         " ranks; owned part: " + s.owned_plan->describe();
}

template class SpmmPlan<float, Kokkos::LayoutRight>;
template class SpmmPlan<float, Kokkos::LayoutLeft>;
template class SpmmPlan<double, Kokkos::LayoutRight>;
template class SpmmPlan<double, Kokkos::LayoutLeft>;

}  // namespace mimd::dist
