// Internal: parallel CSR construction from a stream of (row, col, value) entries,
// shared by csr_from_coo, transpose and the readers (which feed their parsed chunks,
// including mirrored entries of symmetric files, without a COO intermediate).
//
// The entries come from a Source split into segments, visited in segment order:
//   std::size_t segments() const;
//   std::size_t weight(std::size_t seg) const;        // entries in seg (for balancing)
//   template <class F> void each(std::size_t seg, F&& f) const;  // f(row, col, value)
// Consecutive segments are grouped into slices, one thread each. Every slice counts
// its rows into its own histogram; a prefix sum over (row, slice) reserves for each
// slice its own range inside every row, so the scatter keeps the input order within
// a row whatever the number of threads. Rows are then sorted stably (insertion sort
// for short rows, a per-thread key buffer for long ones) and duplicates summed in
// input order, so the result is bit-identical for any thread count.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mimd/csr.hpp"

namespace mimd::csr_detail {

/// Parallel exclusive scan over items [0, m) in one parallel region: `size(i)` is
/// called once per item (it may do per-item work), then `apply(i, offset)` with the
/// sum of the sizes of the items before i, each thread on the same block of items;
/// `apply` returns item i's size again. Returns the total.
template <class Size, class Apply>
std::int64_t scan_items(std::size_t m, bool par, Size size, Apply apply) {
  std::vector<std::int64_t> block(static_cast<std::size_t>(omp_get_max_threads()) + 1, 0);
  std::size_t used = 1;
#pragma omp parallel if (par)
  {
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    const auto nt = static_cast<std::size_t>(omp_get_num_threads());
    const std::size_t b = m * t / nt, e = m * (t + 1) / nt;
    std::int64_t s = 0;
    for (std::size_t i = b; i < e; ++i) s += size(i);
    block[t + 1] = s;
#pragma omp barrier
#pragma omp single
    {
      used = nt;
      for (std::size_t k = 0; k < nt; ++k) block[k + 1] += block[k];
    }
    std::int64_t offset = block[t];
    for (std::size_t i = b; i < e; ++i) offset += apply(i, offset);
  }
  return block[used];
}

/// Sorts one row's columns (and values) stably, reusing its buffers across rows.
template <class Scalar>
class RowSorter {
 public:
  /// `vals` may be null (pattern).
  void sort(std::int32_t* cols, Scalar* vals, std::int64_t len) {
    if (len < 2) return;
    if (len <= kInsertion) {
      for (std::int64_t i = 1; i < len; ++i) {
        const std::int32_t c = cols[i];
        if (cols[i - 1] <= c) continue;
        const Scalar v = vals ? vals[i] : Scalar(0);
        std::int64_t j = i;
        for (; j > 0 && cols[j - 1] > c; --j) {
          cols[j] = cols[j - 1];
          if (vals) vals[j] = vals[j - 1];
        }
        cols[j] = c;
        if (vals) vals[j] = v;
      }
      return;
    }
    if (std::is_sorted(cols, cols + len)) return;
    if (vals == nullptr) {
      std::sort(cols, cols + len);
      return;
    }
    const auto n = static_cast<std::size_t>(len);
    if (keys_.size() < n) {
      keys_.resize(n);
      tmp_.resize(n);
    }
    for (std::size_t i = 0; i < n; ++i) keys_[i] = {cols[i], static_cast<std::int64_t>(i)};
    std::sort(keys_.begin(), keys_.begin() + static_cast<std::ptrdiff_t>(n),
              [](const Key& x, const Key& y) {
                return x.col < y.col || (x.col == y.col && x.idx < y.idx);
              });
    for (std::size_t i = 0; i < n; ++i) tmp_[i] = vals[keys_[i].idx];
    for (std::size_t i = 0; i < n; ++i) {
      cols[i] = keys_[i].col;
      vals[i] = tmp_[i];
    }
  }

 private:
  static constexpr std::int64_t kInsertion = 32;
  struct Key {
    std::int32_t col;
    std::int64_t idx;
  };
  std::vector<Key> keys_;
  std::vector<Scalar> tmp_;
};

/// Sorts every row of a CSR array set in parallel.
template <class Scalar>
void sort_rows(std::int32_t nrows, const std::int64_t* row_map, std::int32_t* cols, Scalar* vals) {
#pragma omp parallel if (row_map[nrows] >= (std::int64_t{1} << 16))
  {
    RowSorter<Scalar> sorter;
#pragma omp for schedule(dynamic, 512)
    for (std::int32_t r = 0; r < nrows; ++r)
      sorter.sort(cols + row_map[r], vals ? vals + row_map[r] : nullptr,
                  row_map[r + 1] - row_map[r]);
  }
}

/// Builds CSR from `src` (see the file comment). `Values` false: a pattern (values
/// left empty). `presorted`: the caller guarantees sorted rows without duplicates
/// (transpose), so the sort and merge pass is skipped. Indices must be in range.
/// @throws InvalidMatrix a duplicate under DuplicatePolicy::Reject, naming the first row
template <class Scalar, bool Values, class Source>
HostCsr<Scalar> build_csr(std::int32_t nrows, std::int32_t ncols, const Source& src,
                          DuplicatePolicy policy, bool presorted) {
  using RowMap = HostPattern::row_map_type;
  using Entries = HostPattern::entries_type;
  using ValuesView = typename HostCsr<Scalar>::values_type;
  const auto rows = static_cast<std::size_t>(nrows);
  const std::size_t nseg = src.segments();
  std::vector<std::size_t> wsum(nseg + 1, 0);
  for (std::size_t s = 0; s < nseg; ++s) wsum[s + 1] = wsum[s] + src.weight(s);
  const std::size_t total = wsum[nseg];

  // Slices: at most one per thread, and few enough that their histograms (slices x
  // rows counters) stay within about twice the entries.
  std::size_t nslice = std::min<std::size_t>(static_cast<std::size_t>(omp_get_max_threads()), nseg);
  nslice = std::max<std::size_t>(1, std::min(nslice, 2 * total / (rows + 1)));
  std::vector<std::size_t> first(nslice + 1, nseg);
  first[0] = 0;
  for (std::size_t k = 1; k < nslice; ++k)
    first[k] = std::max(
        first[k - 1],
        static_cast<std::size_t>(std::lower_bound(wsum.begin(), wsum.end(), total / nslice * k) -
                                 wsum.begin()));
  const int slices = static_cast<int>(nslice);
  // Below this many entries a parallel region costs more than it saves.
  const bool par = total >= (std::size_t{1} << 16);

  // hist[k * rows + r]: entries of row r in slice k, then where slice k writes in row r.
  std::unique_ptr<std::int64_t[]> hist(new std::int64_t[nslice * rows]);
#pragma omp parallel for schedule(static, 1) if (par)
  for (int k = 0; k < slices; ++k) {
    std::int64_t* h = hist.get() + static_cast<std::size_t>(k) * rows;
    std::fill(h, h + rows, 0);
    for (std::size_t s = first[k]; s < first[k + 1]; ++s)
      src.each(s, [h](std::int32_t r, std::int32_t, Scalar) { ++h[r]; });
  }
  // Row sizes, each slice's offset within its row, then the row offsets.
  RowMap row_map(Kokkos::ViewAllocateWithoutInitializing("A.row_map"), rows + 1);
  std::int64_t* rm = row_map.data();
  std::int64_t* hs = hist.get();
  const std::int64_t nnz = scan_items(
      rows, par,
      [=](std::size_t r) {
        std::int64_t sum = 0;
        for (std::size_t k = 0; k < nslice; ++k) {
          const std::int64_t x = hs[k * rows + r];
          hs[k * rows + r] = sum;
          sum += x;
        }
        return rm[r] = sum;
      },
      [=](std::size_t r, std::int64_t offset) {
        const std::int64_t x = rm[r];
        rm[r] = offset;
        for (std::size_t k = 0; k < nslice; ++k) hs[k * rows + r] += offset;
        return x;
      });
  rm[rows] = nnz;

  Entries entries(Kokkos::ViewAllocateWithoutInitializing("A.entries"),
                  static_cast<std::size_t>(nnz));
  ValuesView values(Kokkos::ViewAllocateWithoutInitializing("A.values"),
                    Values ? static_cast<std::size_t>(nnz) : 0);
  std::int32_t* en = entries.data();
  Scalar* va = values.data();
#pragma omp parallel for schedule(static, 1) if (par)
  for (int k = 0; k < slices; ++k) {
    std::int64_t* h = hist.get() + static_cast<std::size_t>(k) * rows;
    for (std::size_t s = first[k]; s < first[k + 1]; ++s)
      src.each(s, [h, en, va](std::int32_t r, std::int32_t c, Scalar v) {
        const std::int64_t p = h[r]++;
        en[p] = c;
        if constexpr (Values) va[p] = v;
        (void)v;
        (void)va;
      });
  }
  hist.reset();

  HostCsr<Scalar> a;
  a.nrows = nrows;
  a.ncols = ncols;
  a.row_map = row_map;
  a.entries = entries;
  a.values = values;
  if (presorted) return a;

  // Sort each row, then merge its duplicates (now adjacent, in input order) in place.
  std::unique_ptr<std::int64_t[]> len(new std::int64_t[rows]);
  std::int32_t first_dup_row = nrows;
  std::int64_t kept = 0;
#pragma omp parallel reduction(min : first_dup_row) reduction(+ : kept) if (par)
  {
    RowSorter<Scalar> sorter;
#pragma omp for schedule(dynamic, 512)
    for (std::int32_t r = 0; r < nrows; ++r) {
      const std::int64_t b = rm[r], e = rm[r + 1];
      sorter.sort(en + b, Values ? va + b : nullptr, e - b);
      // Nothing moves before the first duplicate.
      std::int64_t w = b + 1;
      while (w < e && en[w] != en[w - 1]) ++w;
      for (std::int64_t j = w; j < e; ++j) {
        if (en[j] == en[w - 1]) {
          if constexpr (Values) va[w - 1] += va[j];
        } else {
          en[w] = en[j];
          if constexpr (Values) va[w] = va[j];
          ++w;
        }
      }
      w = std::min(w, e);
      if (w < e) first_dup_row = std::min(first_dup_row, r);
      len[r] = w - b;
      kept += w - b;
    }
  }
  if (first_dup_row == nrows) return a;
  if (policy == DuplicatePolicy::Reject)
    throw InvalidMatrix("row " + std::to_string(first_dup_row),
                        "holds the same column more than once (DuplicatePolicy::Reject)");
  HostCsr<Scalar> c;
  c.nrows = nrows;
  c.ncols = ncols;
  c.row_map = RowMap(Kokkos::ViewAllocateWithoutInitializing("A.row_map"), rows + 1);
  c.entries =
      Entries(Kokkos::ViewAllocateWithoutInitializing("A.entries"), static_cast<std::size_t>(kept));
  c.values = ValuesView(Kokkos::ViewAllocateWithoutInitializing("A.values"),
                        Values ? static_cast<std::size_t>(kept) : 0);
  std::int64_t* crm = c.row_map.data();
  std::int32_t* cen = c.entries.data();
  Scalar* cva = c.values.data();
  const std::int64_t* ln = len.get();
  crm[rows] = scan_items(
      rows, par, [=](std::size_t r) { return ln[r]; },
      [=](std::size_t r, std::int64_t offset) {
        crm[r] = offset;
        std::copy(en + rm[r], en + rm[r] + ln[r], cen + offset);
        if constexpr (Values) std::copy(va + rm[r], va + rm[r] + ln[r], cva + offset);
        (void)cva;
        return ln[r];
      });
  return c;
}

}  // namespace mimd::csr_detail
