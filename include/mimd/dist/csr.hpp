// Distributed CSR: a 1D row partition, each rank holding its rows with columns renumbered
// to a local column space (owned columns first, then the ghost columns it reads from
// other ranks), as Tpetra's row and column maps.
//
// The partition is balanced by rows + nonzeros, the weight LSSM uses for its units: rank
// r's first row is the first row whose prefix weight reaches r W / P (W = nrows + nnz).
// Matrices and graphs are square here (B and C of SpMM share A's row partition).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mimd/csr.hpp"
#include "mimd/dist/context.hpp"
#include "mimd/io.hpp"

namespace mimd::dist {

/// Rank r owns the global rows [offsets[r], offsets[r + 1]).
struct RowPartition {
  std::vector<std::int64_t> offsets;  ///< ranks + 1 non-decreasing offsets, from 0 to nrows

  int ranks() const { return static_cast<int>(offsets.size()) - 1; }
  std::int64_t begin(int r) const { return offsets[static_cast<std::size_t>(r)]; }
  std::int64_t end(int r) const { return offsets[static_cast<std::size_t>(r) + 1]; }
  std::int64_t rows(int r) const { return end(r) - begin(r); }
  /// The rank owning global row `row` (in [0, nrows)); the last of equal offsets wins.
  int owner(std::int64_t row) const;
};

/// The balanced partition of a matrix with global offsets `row_map` (nrows + 1) into
/// `parts` ranks (ranks past the rows get none).
/// @throws InvalidArgument for parts < 1
RowPartition balanced_partition(const std::int64_t* row_map, std::int64_t nrows, int parts);

/// Where the columns of a rank's local rows live. Local column j < local_rows() is the
/// owned global row partition.begin(rank) + j; j >= local_rows() is the ghost
/// ghosts[j - local_rows()], owned by another rank.
struct ColumnMap {
  RowPartition partition;
  int rank = 0;
  std::int64_t global_rows = 0;
  std::vector<std::int32_t> ghosts;         ///< global ids, increasing (so grouped by owner)
  std::vector<std::int64_t> ghost_offsets;  ///< ranks + 1: rank q's ghosts are [go[q], go[q+1])

  std::int32_t local_rows() const { return static_cast<std::int32_t>(partition.rows(rank)); }
  std::int32_t local_cols() const {
    return local_rows() + static_cast<std::int32_t>(ghosts.size());
  }
  std::int64_t first_row() const { return partition.begin(rank); }
  /// The global id of local column j.
  std::int32_t global_column(std::int32_t j) const {
    return j < local_rows() ? static_cast<std::int32_t>(first_row() + j)
                            : ghosts[static_cast<std::size_t>(j - local_rows())];
  }
};

/// A distributed matrix: the local rows (local_rows() x local_cols(), local columns).
template <class Scalar>
struct DistCsr {
  ColumnMap map;
  HostCsr<Scalar> local;
  std::int64_t global_nnz = 0;
};

/// A distributed graph (pattern): out-edges of the local vertices, local columns.
struct DistGraph {
  ColumnMap map;
  HostPattern local;
  std::int64_t global_edges = 0;  ///< stored edges over all ranks
};

/// (a) From a global matrix every rank holds identically (a generator's output, which is
/// the same on every rank for a seed): the balanced partition, each rank keeps its rows.
/// @throws InvalidArgument when `global` is not square (every rank throws)
template <class Scalar>
DistCsr<Scalar> distribute(const Context& ctx, const HostCsr<Scalar>& global);
DistGraph distribute(const Context& ctx, const HostPattern& global);

/// (b) A generator spec (mimd::generate's syntax) run on every rank, distributed as (a):
/// the same global matrix as one process. Graph specs give value 1 on every edge.
/// @throws InvalidArgument as mimd::generate, on every rank
DistCsr<double> generate(const Context& ctx, const std::string& spec);

/// (c) From the rows a caller holds on each rank: rank r holds a consecutive block of
/// global rows (rank 0 the first), columns global. The partition is the caller's.
/// @param global_cols  the global column count, the same on every rank; must equal the
///                     total row count (square)
/// @throws InvalidMatrix / DimensionMismatch on every rank when a rank's rows are broken
///         or the sizes do not agree (the failing rank's own error, RankFailure elsewhere)
template <class Scalar>
DistCsr<Scalar> from_local_rows(const Context& ctx, const HostCsr<Scalar>& rows,
                                std::int64_t global_cols);

/// A Matrix Market or SNAP file (plain, .gz, .tar.gz; mimd::read_matrix's rules) read by
/// rank 0 with the library's parallel reader, then scattered by the balanced partition.
/// @throws ParseError / IoError from rank 0 on rank 0, RankFailure on the other ranks
template <class Scalar>
DistCsr<Scalar> read(const Context& ctx, const std::string& path, const ReadOptions& options = {});

/// The whole matrix on rank 0 (global columns, rows in order); empty on other ranks.
template <class Scalar>
HostCsr<Scalar> gather(const Context& ctx, const DistCsr<Scalar>& a);
HostPattern gather(const Context& ctx, const DistGraph& g);

/// The pattern of a distributed matrix as a graph (the same maps and arrays).
template <class Scalar>
DistGraph as_graph(const DistCsr<Scalar>& a) {
  return DistGraph{a.map, a.local.pattern(), a.global_nnz};
}

/// Halo volume of the partition, for SpMM with k columns of `bytes_per_value` each.
struct VolumeModel {
  int ranks = 0;
  std::int64_t ghost_rows_total = 0;  ///< rows of B received, summed over ranks
  std::int64_t ghost_rows_max = 0;    ///< the most any rank receives
  int neighbours_max = 0;             ///< the most ranks one rank receives from
};
/// The halo volume of `global` (rows, its own partition) under the balanced partition
/// into `ranks` parts: what SpMM would exchange per call, computed without running it.
VolumeModel predict_volume(const HostPattern& global, int ranks);

}  // namespace mimd::dist
