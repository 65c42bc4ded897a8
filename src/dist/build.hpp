// Building blocks of the DistCsr constructors (internal): column maps, slicing a rank's
// rows out of CSR arrays, the root-read fallback.
#pragma once

#include <algorithm>
#include <string>

#include "mimd/dist/csr.hpp"

namespace mimd::dist::detail {

/// The column map of rank `rank`'s rows, whose global columns are `entries` (nnz of
/// them); the columns renumbered to local ones are written to `local`.
ColumnMap make_column_map(const RowPartition& partition, int rank, std::int64_t global_rows,
                          const std::int32_t* entries, std::int64_t nnz, std::int32_t* local);

// This rank's rows of partition `p` as a local CSR with local columns: local row i is
// row base_row + i of the arrays given (offsets into `entries` and `values`, which may
// be null for a pattern).
template <class Scalar>
DistCsr<Scalar> slice(const RowPartition& p, int rank, std::int64_t n, const std::int64_t* row_map,
                      std::int64_t base_row, const std::int32_t* entries, const Scalar* values,
                      std::int64_t global_nnz) {
  const std::int64_t rows = p.rows(rank);
  const std::int64_t first = row_map[base_row], nnz = row_map[base_row + rows] - first;
  DistCsr<Scalar> d;
  d.local.nrows = static_cast<std::int32_t>(rows);
  d.local.row_map = decltype(d.local.row_map)("dist::row_map", static_cast<std::size_t>(rows + 1));
  for (std::int64_t i = 0; i <= rows; ++i) d.local.row_map(i) = row_map[base_row + i] - first;
  d.local.entries =
      decltype(d.local.entries)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "dist::entries"),
                                static_cast<std::size_t>(nnz));
  d.local.values =
      decltype(d.local.values)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "dist::values"),
                               values ? static_cast<std::size_t>(nnz) : 0);
  if (values) std::copy(values + first, values + first + nnz, d.local.values.data());
  d.map = make_column_map(p, rank, n, entries + first, nnz, d.local.entries.data());
  d.local.ncols = d.map.local_cols();
  d.global_nnz = global_nnz;
  return d;
}

inline void require_square(const char* what, std::int64_t rows, std::int64_t cols) {
  if (rows != cols)
    throw DimensionMismatch(what, "the matrix is " + std::to_string(rows) + "x" +
                                      std::to_string(cols) +
                                      ", distributed matrices and graphs must be square");
}

/// dist::read's fallback: rank 0 reads the whole file with mimd::read_matrix, then
/// scatters the rows by the balanced partition.
template <class Scalar>
DistCsr<Scalar> read_on_root(const Context& ctx, const std::string& path,
                             const ReadOptions& options);

}  // namespace mimd::dist::detail
