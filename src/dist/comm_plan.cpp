// Halo plan: every rank asks the owners of its ghost columns for those rows of B.
#include "dist/halo.hpp"

#include "dist/mpi_types.hpp"

namespace mimd::dist::detail {

HaloPlan make_halo_plan(const Context& ctx, const ColumnMap& map) {
  const int p = ctx.size();
  HaloPlan h;
  h.recv_counts.resize(p);
  h.send_counts.resize(p);
  for (int q = 0; q < p; ++q) {
    h.recv_counts[q] = static_cast<int>(map.ghost_offsets[q + 1] - map.ghost_offsets[q]);
    h.neighbours += h.recv_counts[q] > 0;
  }
  MPI_Alltoall(h.recv_counts.data(), 1, MPI_INT, h.send_counts.data(), 1, MPI_INT, ctx.comm());
  h.recv_displs = displacements(h.recv_counts);
  h.send_displs = displacements(h.send_counts);
  h.send_rows.resize(static_cast<std::size_t>(h.send_displs[p]));
  MPI_Alltoallv(map.ghosts.data(), h.recv_counts.data(), h.recv_displs.data(), MPI_INT32_T,
                h.send_rows.data(), h.send_counts.data(), h.send_displs.data(), MPI_INT32_T,
                ctx.comm());
  const auto first = static_cast<std::int32_t>(map.first_row());
  for (auto& r : h.send_rows) r -= first;
  return h;
}

}  // namespace mimd::dist::detail
