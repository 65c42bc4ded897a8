// The halo plan of a column map (internal): which rows of a row-distributed operand
// each rank sends to and receives from every other rank.
#pragma once

#include <cstdint>
#include <vector>

#include "mimd/dist/csr.hpp"

namespace mimd::dist::detail {

struct HaloPlan {
  std::vector<int> recv_counts, recv_displs;  ///< rows from rank q: the ghosts of q, in order
  std::vector<int> send_counts, send_displs;  ///< rows to rank q
  std::vector<std::int32_t> send_rows;        ///< local row ids, grouped by destination
  int neighbours = 0;                         ///< ranks this rank receives from
};

/// Collective: one MPI_Alltoall of the counts, one MPI_Alltoallv of the requested ids.
HaloPlan make_halo_plan(const Context& ctx, const ColumnMap& map);

}  // namespace mimd::dist::detail
