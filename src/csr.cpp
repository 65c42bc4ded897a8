// Host-side CSR construction, validation, sorting and transposition.
// These run once per matrix (not in the timed kernels), parallelised with OpenMP.
#include "mimd/csr.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace mimd {

namespace {

// Sorts row r's columns (and the matching values) by insertion sort for short rows,
// by an index permutation otherwise.
template <class Scalar>
void sort_row(std::int32_t* cols, Scalar* vals, std::int64_t len) {
  if (len < 2) return;
  bool sorted = true;
  for (std::int64_t i = 1; i < len && sorted; ++i) sorted = cols[i - 1] <= cols[i];
  if (sorted) return;
  if (vals == nullptr) {
    std::sort(cols, cols + len);
    return;
  }
  std::vector<std::int64_t> perm(static_cast<std::size_t>(len));
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(),
                   [&](std::int64_t x, std::int64_t y) { return cols[x] < cols[y]; });
  std::vector<std::int32_t> c(static_cast<std::size_t>(len));
  std::vector<Scalar> v(static_cast<std::size_t>(len));
  for (std::int64_t i = 0; i < len; ++i) {
    c[i] = cols[perm[i]];
    v[i] = vals[perm[i]];
  }
  std::copy(c.begin(), c.end(), cols);
  std::copy(v.begin(), v.end(), vals);
}

template <class Scalar>
void sort_all_rows(std::int32_t nrows, const std::int64_t* row_map, std::int32_t* cols,
                   Scalar* vals) {
#pragma omp parallel for schedule(dynamic, 256)
  for (std::int32_t r = 0; r < nrows; ++r)
    sort_row(cols + row_map[r], vals ? vals + row_map[r] : nullptr, row_map[r + 1] - row_map[r]);
}

void check_fits_ordinal(std::int64_t n, const char* what) {
  if (n < 0 || n > std::numeric_limits<std::int32_t>::max())
    throw InvalidArgument(std::string("csr_from_coo: ") + what + " = " + std::to_string(n) +
                          " does not fit a 32-bit ordinal (max " +
                          std::to_string(std::numeric_limits<std::int32_t>::max()) + ")");
}

template <class Pattern>
void validate_pattern(const Pattern& a, bool require_sorted, std::size_t nvalues, bool has_values) {
  if (a.nrows < 0 || a.ncols < 0)
    throw InvalidMatrix(
        "extents", "negative extent " + std::to_string(a.nrows) + "x" + std::to_string(a.ncols));
  if (a.row_map.extent(0) != static_cast<std::size_t>(a.nrows) + 1)
    throw InvalidMatrix("row_map", "has " + std::to_string(a.row_map.extent(0)) +
                                       " entries, expected nrows + 1 = " +
                                       std::to_string(static_cast<std::int64_t>(a.nrows) + 1));
  if (a.row_map(0) != 0)
    throw InvalidMatrix("row_map[0]", "is " + std::to_string(a.row_map(0)) + ", expected 0");
  const std::int64_t nnz = static_cast<std::int64_t>(a.entries.extent(0));
  if (static_cast<std::int64_t>(a.row_map(a.nrows)) != nnz)
    throw InvalidMatrix("row_map[" + std::to_string(a.nrows) + "]",
                        "is " + std::to_string(a.row_map(a.nrows)) +
                            ", expected the number of entries " + std::to_string(nnz));
  if (has_values && nvalues != static_cast<std::size_t>(nnz))
    throw InvalidMatrix(
        "values", "has " + std::to_string(nvalues) + " entries, expected " + std::to_string(nnz));
  for (std::int64_t r = 0; r < a.nrows; ++r) {
    const auto b = a.row_map(r), e = a.row_map(r + 1);
    if (e < b)
      throw InvalidMatrix("row_map[" + std::to_string(r + 1) + "]",
                          "is " + std::to_string(e) + ", less than row_map[" + std::to_string(r) +
                              "] = " + std::to_string(b) + " (offsets must not decrease)");
    for (auto j = b; j < e; ++j) {
      const auto c = a.entries(j);
      if (c < 0 || c >= a.ncols)
        throw InvalidMatrix(
            "entries[" + std::to_string(j) + "] (row " + std::to_string(r) + ")",
            "column " + std::to_string(c) + " outside [0, " + std::to_string(a.ncols) + ")");
      if (require_sorted && j > b && a.entries(j - 1) >= c)
        throw InvalidMatrix("entries[" + std::to_string(j) + "] (row " + std::to_string(r) + ")",
                            "column " + std::to_string(c) + " not greater than previous column " +
                                std::to_string(a.entries(j - 1)) + " (sorted columns required)");
    }
  }
}

template <class Scalar>
HostCsr<Scalar> transpose_impl(std::int32_t nrows, std::int32_t ncols,
                               const HostPattern::row_map_type& rm,
                               const HostPattern::entries_type& en, const Scalar* vals) {
  HostCsr<Scalar> t;
  t.nrows = ncols;
  t.ncols = nrows;
  const std::int64_t nnz = static_cast<std::int64_t>(en.extent(0));
  t.row_map = HostPattern::row_map_type(Kokkos::ViewAllocateWithoutInitializing("At.row_map"),
                                        static_cast<std::size_t>(ncols) + 1);
  t.entries = HostPattern::entries_type(Kokkos::ViewAllocateWithoutInitializing("At.entries"),
                                        static_cast<std::size_t>(nnz));
  t.values =
      typename HostCsr<Scalar>::values_type(Kokkos::ViewAllocateWithoutInitializing("At.values"),
                                            vals ? static_cast<std::size_t>(nnz) : 0);
  std::vector<std::int64_t> count(static_cast<std::size_t>(ncols) + 1, 0);
  for (std::int64_t j = 0; j < nnz; ++j) ++count[static_cast<std::size_t>(en(j)) + 1];
  std::partial_sum(count.begin(), count.end(), count.begin());
  for (std::int32_t c = 0; c <= ncols; ++c) t.row_map(c) = count[c];
  // Rows are visited in order, so each transposed row receives increasing columns.
  for (std::int32_t r = 0; r < nrows; ++r)
    for (auto j = rm(r); j < rm(r + 1); ++j) {
      const auto pos = count[static_cast<std::size_t>(en(j))]++;
      t.entries(pos) = r;
      if (vals) t.values(pos) = vals[j];
    }
  return t;
}

}  // namespace

template <class Scalar>
HostCsr<Scalar> csr_from_coo(const CooMatrix<Scalar>& coo, DuplicatePolicy policy) {
  check_fits_ordinal(coo.nrows, "nrows");
  check_fits_ordinal(coo.ncols, "ncols");
  const std::size_t n = coo.rows.size();
  if (coo.cols.size() != n || (!coo.values.empty() && coo.values.size() != n))
    throw InvalidArgument("csr_from_coo: rows, cols and values have different lengths (" +
                          std::to_string(n) + ", " + std::to_string(coo.cols.size()) + ", " +
                          std::to_string(coo.values.size()) + ")");
  const auto nrows = static_cast<std::int32_t>(coo.nrows);
  const auto ncols = static_cast<std::int32_t>(coo.ncols);
  for (std::size_t i = 0; i < n; ++i) {
    if (coo.rows[i] < 0 || coo.rows[i] >= nrows || coo.cols[i] < 0 || coo.cols[i] >= ncols)
      throw InvalidMatrix("coordinate entry " + std::to_string(i),
                          "(" + std::to_string(coo.rows[i]) + ", " + std::to_string(coo.cols[i]) +
                              ") outside [0, " + std::to_string(nrows) + ") x [0, " +
                              std::to_string(ncols) + ")");
  }
  std::vector<std::int64_t> offs(static_cast<std::size_t>(nrows) + 1, 0);
  for (std::size_t i = 0; i < n; ++i) ++offs[static_cast<std::size_t>(coo.rows[i]) + 1];
  std::partial_sum(offs.begin(), offs.end(), offs.begin());
  std::vector<std::int32_t> cols(n);
  std::vector<Scalar> vals(n);
  {
    std::vector<std::int64_t> pos(offs.begin(), offs.end() - 1);
    for (std::size_t i = 0; i < n; ++i) {
      const auto p = pos[static_cast<std::size_t>(coo.rows[i])]++;
      cols[p] = coo.cols[i];
      vals[p] = coo.values.empty() ? Scalar(1) : coo.values[i];
    }
  }
  sort_all_rows(nrows, offs.data(), cols.data(), vals.data());
  // Merge duplicates (adjacent after sorting) and compact.
  std::vector<std::int64_t> new_len(static_cast<std::size_t>(nrows), 0);
  std::int32_t first_dup_row = nrows;
#pragma omp parallel for schedule(dynamic, 256) reduction(min : first_dup_row)
  for (std::int32_t r = 0; r < nrows; ++r) {
    std::int64_t w = offs[r];
    for (std::int64_t j = offs[r]; j < offs[r + 1]; ++j) {
      if (j > offs[r] && cols[j] == cols[w - 1]) {
        first_dup_row = std::min(first_dup_row, r);
        vals[w - 1] += vals[j];
      } else {
        cols[w] = cols[j];
        vals[w] = vals[j];
        ++w;
      }
    }
    new_len[r] = w - offs[r];
  }
  if (first_dup_row < nrows && policy == DuplicatePolicy::Reject)
    throw InvalidMatrix("row " + std::to_string(first_dup_row),
                        "holds the same column more than once (DuplicatePolicy::Reject)");
  HostCsr<Scalar> a;
  a.nrows = nrows;
  a.ncols = ncols;
  a.row_map = HostPattern::row_map_type(Kokkos::ViewAllocateWithoutInitializing("A.row_map"),
                                        static_cast<std::size_t>(nrows) + 1);
  a.row_map(0) = 0;
  for (std::int32_t r = 0; r < nrows; ++r) a.row_map(r + 1) = a.row_map(r) + new_len[r];
  const auto nnz = static_cast<std::size_t>(a.row_map(nrows));
  a.entries = HostPattern::entries_type(Kokkos::ViewAllocateWithoutInitializing("A.entries"), nnz);
  a.values = typename HostCsr<Scalar>::values_type(
      Kokkos::ViewAllocateWithoutInitializing("A.values"), nnz);
#pragma omp parallel for schedule(dynamic, 256)
  for (std::int32_t r = 0; r < nrows; ++r) {
    const auto dst = a.row_map(r);
    for (std::int64_t k = 0; k < new_len[r]; ++k) {
      a.entries(dst + k) = cols[offs[r] + k];
      a.values(dst + k) = vals[offs[r] + k];
    }
  }
  return a;
}

template <class Scalar>
void sort_columns(HostCsr<Scalar>& a) {
  sort_all_rows(a.nrows, a.row_map.data(), a.entries.data(), a.values.data());
}
void sort_columns(HostPattern& a) {
  sort_all_rows<double>(a.nrows, a.row_map.data(), a.entries.data(), nullptr);
}

template <class Scalar>
void validate(const HostCsr<Scalar>& a, bool require_sorted) {
  validate_pattern(a, require_sorted, a.values.extent(0), true);
}
void validate(const HostPattern& a, bool require_sorted) {
  validate_pattern(a, require_sorted, 0, false);
}

template <class Scalar>
HostCsr<Scalar> transpose(const HostCsr<Scalar>& a) {
  return transpose_impl<Scalar>(a.nrows, a.ncols, a.row_map, a.entries, a.values.data());
}
HostPattern transpose(const HostPattern& a) {
  auto t = transpose_impl<char>(a.nrows, a.ncols, a.row_map, a.entries, nullptr);
  return t.pattern();
}

RowStats row_stats(const HostPattern& a) {
  RowStats s;
  s.nrows = a.nrows;
  s.nnz = a.nnz();
  if (a.nrows == 0) return s;
  s.mean = static_cast<double>(s.nnz) / static_cast<double>(a.nrows);
  double var = 0;
  for (std::int32_t r = 0; r < a.nrows; ++r) {
    const std::int64_t len = a.row_map(r + 1) - a.row_map(r);
    s.max_row = std::max(s.max_row, len);
    s.empty_rows += len == 0;
    var += (static_cast<double>(len) - s.mean) * (static_cast<double>(len) - s.mean);
  }
  var /= static_cast<double>(a.nrows);
  s.cv = s.mean > 0 ? std::sqrt(var) / s.mean : 0.0;
  return s;
}

#define MIMD_INSTANTIATE_CSR(S)                                              \
  template HostCsr<S> csr_from_coo<S>(const CooMatrix<S>&, DuplicatePolicy); \
  template void sort_columns<S>(HostCsr<S>&);                                \
  template void validate<S>(const HostCsr<S>&, bool);                        \
  template HostCsr<S> transpose<S>(const HostCsr<S>&);
MIMD_INSTANTIATE_CSR(float)
MIMD_INSTANTIATE_CSR(double)
#undef MIMD_INSTANTIATE_CSR

}  // namespace mimd
