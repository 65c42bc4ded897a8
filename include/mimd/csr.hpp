// Compressed sparse row (CSR) matrices and patterns on Kokkos Views.
//
// Row offsets are 64-bit by default so that nnz > 2^31 works; column indices are
// 32-bit by default (matrices with more than 2^31 columns need Ordinal = int64_t).
// The memory space is a template parameter: readers and generators build host
// matrices, `mimd::to_memory_space` moves them to a device.
//
// Conventions, fixed for the whole library:
//  - duplicates (the same (row, col) given twice) are summed when a matrix is built
//    from coordinates (DuplicatePolicy::Sum), or rejected (DuplicatePolicy::Reject);
//  - explicit zeros are kept as stored entries: they are part of the pattern;
//  - column indices within a row are sorted after construction from coordinates;
//    kernels do not require sorted columns unless they say so.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "mimd/error.hpp"

namespace mimd {

using DefaultMemorySpace = Kokkos::DefaultExecutionSpace::memory_space;
using HostMemorySpace = Kokkos::HostSpace;

/// The sparsity pattern of a CSR matrix (a graph): row i holds the column indices
/// entries[row_map[i] .. row_map[i+1]).
template <class Ordinal = std::int32_t, class Offset = std::int64_t,
          class MemorySpace = DefaultMemorySpace>
struct CsrPattern {
  static_assert(std::is_integral<Ordinal>::value && std::is_signed<Ordinal>::value,
                "Ordinal must be a signed integer type");
  static_assert(std::is_integral<Offset>::value, "Offset must be an integer type");
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  using memory_space = MemorySpace;
  using row_map_type = Kokkos::View<Offset*, MemorySpace>;
  using entries_type = Kokkos::View<Ordinal*, MemorySpace>;

  Ordinal nrows = 0;
  Ordinal ncols = 0;
  row_map_type row_map;  ///< nrows + 1 offsets, row_map(0) == 0, non-decreasing
  entries_type entries;  ///< row_map(nrows) column indices in [0, ncols)

  Offset nnz() const { return static_cast<Offset>(entries.extent(0)); }
};

/// A CSR matrix: a pattern plus one value per stored entry.
template <class Scalar, class Ordinal = std::int32_t, class Offset = std::int64_t,
          class MemorySpace = DefaultMemorySpace>
struct CsrMatrix {
  static_assert(std::is_arithmetic<Scalar>::value, "Scalar must be an arithmetic type");
  using scalar_type = Scalar;
  using ordinal_type = Ordinal;
  using offset_type = Offset;
  using memory_space = MemorySpace;
  using pattern_type = CsrPattern<Ordinal, Offset, MemorySpace>;
  using row_map_type = typename pattern_type::row_map_type;
  using entries_type = typename pattern_type::entries_type;
  using values_type = Kokkos::View<Scalar*, MemorySpace>;

  Ordinal nrows = 0;
  Ordinal ncols = 0;
  row_map_type row_map;  ///< nrows + 1 offsets
  entries_type entries;  ///< column indices
  values_type values;    ///< values, same length as entries

  Offset nnz() const { return static_cast<Offset>(entries.extent(0)); }
  /// The pattern, sharing this matrix's arrays (no copy).
  pattern_type pattern() const { return pattern_type{nrows, ncols, row_map, entries}; }
};

/// Host matrices as produced by readers and generators.
template <class Scalar>
using HostCsr = CsrMatrix<Scalar, std::int32_t, std::int64_t, HostMemorySpace>;
using HostPattern = CsrPattern<std::int32_t, std::int64_t, HostMemorySpace>;

/// What to do when the same (row, col) appears more than once in coordinate input.
enum class DuplicatePolicy {
  Sum,     ///< add the values (Matrix Market and SuiteSparse convention)
  Reject,  ///< throw InvalidMatrix naming the entry
};

/// Coordinate (triplet) form on the host, 0-based. `values` is empty for a pattern.
template <class Scalar>
struct CooMatrix {
  std::int64_t nrows = 0;
  std::int64_t ncols = 0;
  std::vector<std::int32_t> rows;
  std::vector<std::int32_t> cols;
  std::vector<Scalar> values;  ///< empty: every entry is 1 (pattern)
  std::size_t nnz() const { return rows.size(); }
};

/// Builds a host CSR matrix from coordinates: counts per row, scatters, sorts the
/// columns of every row, then merges duplicates according to `policy`. Runs in
/// parallel on the host execution space. Explicit zeros are kept.
/// @throws InvalidMatrix   an index outside [0, nrows) x [0, ncols), naming the entry;
///                         a duplicate under DuplicatePolicy::Reject
/// @throws InvalidArgument sizes that do not fit int32 ordinals
template <class Scalar>
HostCsr<Scalar> csr_from_coo(const CooMatrix<Scalar>& coo,
                             DuplicatePolicy policy = DuplicatePolicy::Sum);

/// Sorts the column indices (and values) of every row in place.
template <class Scalar>
void sort_columns(HostCsr<Scalar>& a);
void sort_columns(HostPattern& a);

/// What validate_csr() requires beyond the invariants every CSR array set meets.
struct CsrChecks {
  bool sorted = false;  ///< strictly increasing columns within a row (so no duplicates)
  bool values = true;   ///< a values array of one entry per column index (false: a pattern)
};

/// The one CSR check of the library, called once at every public entry point that
/// accepts a matrix (SpmmPlan and spmm(), the C API, the binary cache, BfsGraph).
/// Checks, in this order: non-negative extents; row_map has nrows + 1 entries, starts at
/// 0 and ends at `nentries`; values (when checks.values) has `nvalues` == nentries
/// entries; then row by row: offsets do not decrease and every column index lies in
/// [0, ncols) (strictly increasing within the row when checks.sorted). The first
/// offending row in row order is reported, whatever the number of threads. O(nnz),
/// one parallel pass over the host arrays (row_map and entries are read once).
/// @param row_map  `row_map_size` offsets; entries: `nentries` column indices
/// @throws InvalidMatrix naming the array, the position, the row and the bad value
///         (e.g. where() == "entries[4] (row 2)", "column 7 outside [0, 3)")
void validate_csr(std::int64_t nrows, std::int64_t ncols, const std::int64_t* row_map,
                  std::size_t row_map_size, const std::int32_t* entries, std::size_t nentries,
                  std::size_t nvalues, const CsrChecks& checks);

/// validate_csr() on a matrix or pattern in any memory space (arrays outside host
/// memory are first copied to the host).
/// @param require_sorted  also require strictly increasing columns within a row
/// @throws InvalidMatrix naming the first offending position and value
template <class Scalar, class Space>
void validate(const CsrMatrix<Scalar, std::int32_t, std::int64_t, Space>& a,
              bool require_sorted = false) {
  const auto rm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.row_map);
  const auto en = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.entries);
  validate_csr(a.nrows, a.ncols, rm.data(), rm.extent(0), en.data(), en.extent(0),
               a.values.extent(0), CsrChecks{require_sorted, true});
}
template <class Space>
void validate(const CsrPattern<std::int32_t, std::int64_t, Space>& a, bool require_sorted = false) {
  const auto rm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.row_map);
  const auto en = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.entries);
  validate_csr(a.nrows, a.ncols, rm.data(), rm.extent(0), en.data(), en.extent(0), 0,
               CsrChecks{require_sorted, false});
}

/// The transpose (equivalently: the CSC form of `a`, read as CSR). Columns of the
/// result are sorted. Used for the pull (bottom-up) step of directed graphs.
template <class Scalar>
HostCsr<Scalar> transpose(const HostCsr<Scalar>& a);
HostPattern transpose(const HostPattern& a);

/// The symmetrised pattern p + p^T: both directions of every entry, duplicates merged,
/// self-loops kept, columns sorted. Validates `p` first.
/// @throws InvalidArgument when `p` is not square
/// @throws InvalidMatrix when `p` breaks a CSR invariant
HostPattern symmetrize(const HostPattern& p);

/// Wraps caller-owned host arrays as a CSR matrix without copying. The arrays must
/// outlive the returned matrix and every copy of it.
/// @param row_map  nrows + 1 offsets; entries/values: row_map[nrows] elements each
/// @throws InvalidArgument on null pointers with a non-zero length
template <class Scalar, class Ordinal, class Offset>
CsrMatrix<Scalar, Ordinal, Offset, HostMemorySpace> wrap_csr(Ordinal nrows, Ordinal ncols,
                                                             Offset* row_map, Ordinal* entries,
                                                             Scalar* values) {
  if (nrows < 0 || ncols < 0) throw InvalidArgument("wrap_csr: negative extent");
  if (row_map == nullptr) throw InvalidArgument("wrap_csr: row_map is null");
  const Offset nnz = row_map[nrows];
  if (nnz > 0 && (entries == nullptr || values == nullptr))
    throw InvalidArgument("wrap_csr: entries or values is null while nnz = " + std::to_string(nnz));
  using M = CsrMatrix<Scalar, Ordinal, Offset, HostMemorySpace>;
  M m;
  m.nrows = nrows;
  m.ncols = ncols;
  m.row_map = typename M::row_map_type(row_map, static_cast<std::size_t>(nrows) + 1);
  m.entries = typename M::entries_type(entries, static_cast<std::size_t>(nnz));
  m.values = typename M::values_type(values, static_cast<std::size_t>(nnz));
  return m;
}

/// Copies a matrix into another memory space (no copy when the spaces are the same
/// and the Views are already accessible there).
template <class Target, class Scalar, class Ordinal, class Offset, class Space>
CsrMatrix<Scalar, Ordinal, Offset, Target> to_memory_space(
    const CsrMatrix<Scalar, Ordinal, Offset, Space>& a) {
  CsrMatrix<Scalar, Ordinal, Offset, Target> out;
  out.nrows = a.nrows;
  out.ncols = a.ncols;
  out.row_map = Kokkos::create_mirror_view_and_copy(Target(), a.row_map);
  out.entries = Kokkos::create_mirror_view_and_copy(Target(), a.entries);
  out.values = Kokkos::create_mirror_view_and_copy(Target(), a.values);
  return out;
}

template <class Target, class Ordinal, class Offset, class Space>
CsrPattern<Ordinal, Offset, Target> to_memory_space(const CsrPattern<Ordinal, Offset, Space>& a) {
  CsrPattern<Ordinal, Offset, Target> out;
  out.nrows = a.nrows;
  out.ncols = a.ncols;
  out.row_map = Kokkos::create_mirror_view_and_copy(Target(), a.row_map);
  out.entries = Kokkos::create_mirror_view_and_copy(Target(), a.entries);
  return out;
}

/// The same matrix with its values converted to Target (the pattern's arrays shared, no
/// copy; the values copied, also when Target is Scalar).
template <class Target, class Scalar>
HostCsr<Target> convert_values(const HostCsr<Scalar>& a) {
  HostCsr<Target> out;
  out.nrows = a.nrows;
  out.ncols = a.ncols;
  out.row_map = a.row_map;
  out.entries = a.entries;
  out.values = typename HostCsr<Target>::values_type(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "values"), a.values.extent(0));
  for (std::size_t p = 0; p < a.values.extent(0); ++p)
    out.values(p) = static_cast<Target>(a.values(p));
  return out;
}

/// A matrix with the pattern `p` (sharing its arrays, no copy) and value 1 on every
/// entry: how graphs enter the numeric kernels.
template <class Scalar>
HostCsr<Scalar> with_unit_values(const HostPattern& p);

/// Row-length statistics, used by `auto` algorithm choice and reported by the benchmark.
struct RowStats {
  std::int64_t nrows = 0;
  std::int64_t nnz = 0;
  std::int64_t max_row = 0;
  std::int64_t empty_rows = 0;
  double mean = 0;  ///< nnz / nrows
  /// Coefficient of variation of the row lengths: sqrt(var) / mean (0 when mean is 0),
  /// var the population variance sum_r (len_r - mean)^2 / nrows, summed around the
  /// mean (two passes) so that it never goes negative by cancellation.
  double cv = 0;
};
/// The library's one row-length statistics routine. O(nrows), reads row_map only.
/// @param row_map  the nrows + 1 row offsets, in host memory (row_map[0] = 0)
/// @param nrows    >= 0
RowStats row_stats(const std::int64_t* row_map, std::int64_t nrows);
/// row_stats of a host pattern's row offsets.
RowStats row_stats(const HostPattern& a);
template <class Scalar>
RowStats row_stats(const HostCsr<Scalar>& a) {
  return row_stats(a.pattern());
}

/// How unevenly a static split of the rows loads its parts: the rows cut into
/// min(parts, nrows) contiguous ranges of equal row count (the row-parallel schedule,
/// OpenMP's schedule(static)), a row weighing its length + 1 (its nonzeros and the write
/// of its row of the result); returns the heaviest range's weight over the mean weight.
/// 1 for a perfect split, `parts` when one range holds everything; 1 when nrows is 0.
/// O(parts), reads row_map only.
/// @param row_map  the nrows + 1 row offsets, in host memory (row_map[0] = 0)
/// @param parts    >= 1
double row_split_imbalance(const std::int64_t* row_map, std::int64_t nrows, int parts);

}  // namespace mimd
