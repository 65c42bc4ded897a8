// Host-side CSR construction, sorting, transposition and row statistics.
// These run once per matrix (not in the timed kernels), parallelised with OpenMP.
#include "mimd/csr.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "sparse/csr_build.hpp"

namespace mimd {

namespace {

void check_fits_ordinal(std::int64_t n, const char* what) {
  if (n < 0 || n > std::numeric_limits<std::int32_t>::max())
    throw InvalidArgument(std::string("csr_from_coo: ") + what + " = " + std::to_string(n) +
                          " does not fit a 32-bit ordinal (max " +
                          std::to_string(std::numeric_limits<std::int32_t>::max()) + ")");
}

// The rows of a CSR matrix as a Source for build_csr. Transpose: entry (r, c) gives
// (c, r); visiting rows in order gives every transposed row increasing columns.
// Symmetrize: (r, c) gives both (r, c) and (c, r).
enum class Emit { Transpose, Symmetrize };
template <class Scalar, bool Values, Emit kEmit>
struct RowsSource {
  std::int32_t nrows;
  const std::int64_t* rm;
  const std::int32_t* en;
  const Scalar* vals;
  std::size_t rows_per_seg;
  std::size_t segments() const {
    return (static_cast<std::size_t>(nrows) + rows_per_seg - 1) / rows_per_seg;
  }
  std::size_t begin(std::size_t seg) const { return seg * rows_per_seg; }
  std::size_t end(std::size_t seg) const {
    return std::min(static_cast<std::size_t>(nrows), (seg + 1) * rows_per_seg);
  }
  std::size_t weight(std::size_t seg) const {
    return static_cast<std::size_t>(rm[end(seg)] - rm[begin(seg)]) *
           (kEmit == Emit::Symmetrize ? 2 : 1);
  }
  template <class F>
  void each(std::size_t seg, F&& f) const {
    for (std::size_t r = begin(seg); r < end(seg); ++r)
      for (std::int64_t j = rm[r]; j < rm[r + 1]; ++j) {
        const Scalar v = Values ? vals[j] : Scalar(0);
        f(en[j], static_cast<std::int32_t>(r), v);
        if constexpr (kEmit == Emit::Symmetrize) f(static_cast<std::int32_t>(r), en[j], v);
      }
  }
};

// Builds from the rows of (nrows x ncols) arrays through RowsSource; the result has
// ncols rows (transpose) or nrows (symmetrize, square).
template <class Scalar, bool Values, Emit kEmit>
HostCsr<Scalar> build_from_rows(std::int32_t nrows, std::int32_t ncols,
                                const HostPattern::row_map_type& rm,
                                const HostPattern::entries_type& en, const Scalar* vals) {
  const std::size_t segs = 16 * static_cast<std::size_t>(omp_get_max_threads());
  const RowsSource<Scalar, Values, kEmit> src{
      nrows, rm.data(), en.data(), vals,
      std::max<std::size_t>(1, (static_cast<std::size_t>(nrows) + segs - 1) / segs)};
  return csr_detail::build_csr<Scalar, Values>(ncols, nrows, src, DuplicatePolicy::Sum,
                                               /*presorted=*/kEmit == Emit::Transpose);
}

// A CooMatrix as a Source for build_csr, in fixed-size segments.
template <class Scalar>
struct CooSource {
  const CooMatrix<Scalar>& coo;
  static constexpr std::size_t kSegment = 1 << 16;
  std::size_t segments() const { return (coo.rows.size() + kSegment - 1) / kSegment; }
  std::size_t weight(std::size_t seg) const {
    return std::min(coo.rows.size(), (seg + 1) * kSegment) - seg * kSegment;
  }
  template <class F>
  void each(std::size_t seg, F&& f) const {
    const std::size_t b = seg * kSegment, e = b + weight(seg);
    if (coo.values.empty())
      for (std::size_t i = b; i < e; ++i) f(coo.rows[i], coo.cols[i], Scalar(1));
    else
      for (std::size_t i = b; i < e; ++i) f(coo.rows[i], coo.cols[i], coo.values[i]);
  }
};

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
  std::size_t bad = n;
#pragma omp parallel for schedule(static) reduction(min : bad) if (n >= (std::size_t{1} << 16))
  for (std::size_t i = 0; i < n; ++i)
    if (coo.rows[i] < 0 || coo.rows[i] >= nrows || coo.cols[i] < 0 || coo.cols[i] >= ncols)
      bad = std::min(bad, i);
  if (bad < n)
    throw InvalidMatrix("coordinate entry " + std::to_string(bad),
                        "(" + std::to_string(coo.rows[bad]) + ", " + std::to_string(coo.cols[bad]) +
                            ") outside [0, " + std::to_string(nrows) + ") x [0, " +
                            std::to_string(ncols) + ")");
  return csr_detail::build_csr<Scalar, true>(nrows, ncols, CooSource<Scalar>{coo}, policy,
                                             /*presorted=*/false);
}

template <class Scalar>
void sort_columns(HostCsr<Scalar>& a) {
  csr_detail::sort_rows(a.nrows, a.row_map.data(), a.entries.data(), a.values.data());
}
void sort_columns(HostPattern& a) {
  csr_detail::sort_rows<double>(a.nrows, a.row_map.data(), a.entries.data(), nullptr);
}

template <class Scalar>
HostCsr<Scalar> transpose(const HostCsr<Scalar>& a) {
  return build_from_rows<Scalar, true, Emit::Transpose>(a.nrows, a.ncols, a.row_map, a.entries,
                                                        a.values.data());
}
HostPattern transpose(const HostPattern& a) {
  return build_from_rows<float, false, Emit::Transpose>(a.nrows, a.ncols, a.row_map, a.entries,
                                                        nullptr)
      .pattern();
}

HostPattern symmetrize(const HostPattern& p) {
  if (p.nrows != p.ncols)
    throw InvalidArgument("symmetrize: the pattern must be square, got " + std::to_string(p.nrows) +
                          "x" + std::to_string(p.ncols));
  validate(p);
  return build_from_rows<float, false, Emit::Symmetrize>(p.nrows, p.ncols, p.row_map, p.entries,
                                                         nullptr)
      .pattern();
}

template <class Scalar>
HostCsr<Scalar> with_unit_values(const HostPattern& p) {
  HostCsr<Scalar> a;
  a.nrows = p.nrows;
  a.ncols = p.ncols;
  a.row_map = p.row_map;
  a.entries = p.entries;
  a.values = typename HostCsr<Scalar>::values_type(
      Kokkos::ViewAllocateWithoutInitializing("A.values"), p.entries.extent(0));
  Scalar* const v = a.values.data();
  const auto n = static_cast<std::int64_t>(p.entries.extent(0));
#pragma omp parallel for schedule(static)
  for (std::int64_t j = 0; j < n; ++j) v[j] = Scalar(1);
  return a;
}

RowStats row_stats(const std::int64_t* row_map, std::int64_t nrows) {
  RowStats s;
  s.nrows = nrows;
  if (nrows == 0) return s;
  s.nnz = row_map[nrows];
  s.mean = static_cast<double>(s.nnz) / static_cast<double>(nrows);
  double var = 0;
  for (std::int64_t r = 0; r < nrows; ++r) {
    const std::int64_t len = row_map[r + 1] - row_map[r];
    s.max_row = std::max(s.max_row, len);
    s.empty_rows += len == 0;
    var += (static_cast<double>(len) - s.mean) * (static_cast<double>(len) - s.mean);
  }
  var /= static_cast<double>(nrows);
  s.cv = s.mean > 0 ? std::sqrt(var) / s.mean : 0.0;
  return s;
}

RowStats row_stats(const HostPattern& a) {
  return row_stats(a.row_map.data(), a.nrows);
}

double row_split_imbalance(const std::int64_t* row_map, std::int64_t nrows, int parts) {
  if (nrows == 0) return 1.0;
  const std::int64_t p = std::max<std::int64_t>(1, std::min<std::int64_t>(parts, nrows));
  std::int64_t heaviest = 0;
  for (std::int64_t w = 0; w < p; ++w) {
    const std::int64_t r0 = w * nrows / p, r1 = (w + 1) * nrows / p;
    heaviest = std::max(heaviest, row_map[r1] - row_map[r0] + (r1 - r0));
  }
  const double mean = static_cast<double>(row_map[nrows] + nrows) / static_cast<double>(p);
  return static_cast<double>(heaviest) / mean;
}

#define MIMD_INSTANTIATE_CSR(S)                                              \
  template HostCsr<S> with_unit_values<S>(const HostPattern&);               \
  template HostCsr<S> csr_from_coo<S>(const CooMatrix<S>&, DuplicatePolicy); \
  template void sort_columns<S>(HostCsr<S>&);                                \
  template HostCsr<S> transpose<S>(const HostCsr<S>&);
MIMD_INSTANTIATE_CSR(float)
MIMD_INSTANTIATE_CSR(double)
#undef MIMD_INSTANTIATE_CSR

}  // namespace mimd
