// Internal: the library's one host CSR engine. Every CSR built on the host comes from
// build_csr: csr_from_coo, transpose and symmetrize (sparse/csr.cpp), the readers
// (which feed their parsed chunks, mirrored entries of symmetric files included,
// without a COO intermediate) and the generators (edge lists).
//
// The entries come from a Source split into segments, visited in segment order:
//   std::size_t segments() const;
//   std::size_t weight(std::size_t seg) const;        // entries in seg (for balancing)
//   template <class F> void each(std::size_t seg, F&& f) const;  // f(row, col, value)
// Matrices: consecutive segments are grouped into slices, one thread each. Every slice
// counts its rows into its own histogram; a prefix sum over (row, slice) reserves for
// each slice its own range inside every row, so the scatter keeps the input order
// within a row whatever the number of threads. Rows are then sorted stably (insertion
// sort for short rows, a per-thread key buffer for long ones) and duplicates summed in
// input order, so the result is bit-identical for any thread count.
// Large patterns (no values, so no order to keep; kBucketedEntries and more):
// build_pattern's cache-friendly bucketed radix sort. Both give sorted rows without
// duplicates, so which one ran never shows in the result.
#pragma once

#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mimd/csr.hpp"

namespace mimd::csr_detail {

/// Uninitialised scratch array of trivially copyable T (edge lists, the pattern
/// build's partitions: up to gigabytes): mapped directly and advised to use transparent huge pages,
/// which divides the page faults of the first touch by 512.
template <class T>
class Scratch {
 public:
  explicit Scratch(std::size_t n) : bytes_(std::max<std::size_t>(1, n * sizeof(T))) {
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    madvise(p, bytes_, MADV_HUGEPAGE);  // advisory: ignored where THP is unavailable
    data_ = static_cast<T*>(p);
  }
  Scratch(Scratch&& o) noexcept : data_(std::exchange(o.data_, nullptr)), bytes_(o.bytes_) {}
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  Scratch& operator=(Scratch&&) = delete;
  ~Scratch() { reset(); }
  void reset() {
    if (data_ != nullptr) munmap(data_, bytes_);
    data_ = nullptr;
  }
  T* get() const { return data_; }

 private:
  T* data_ = nullptr;
  std::size_t bytes_;
};

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

/// From this many entries on, build_csr builds patterns with build_pattern: 2^22
/// column indices (16 MiB) outgrow a last-level cache, so a direct scatter misses on
/// most entries; below, the direct scatter is cheaper than the extra pass (measured:
/// a 0.9 M-edge SNAP graph loads 1.7x slower through build_pattern).
constexpr std::size_t kBucketedEntries = std::size_t{1} << 22;

/// A pattern from `src` (build_csr with Values false and rows to sort). Without
/// values the input order within a row does not matter, so instead of one random
/// scatter over the whole matrix (a cache miss per entry) the entries are first
/// partitioned into buckets of consecutive rows (streaming writes, one histogram per
/// slice), sized so that a bucket (about 2^17 entries) stays in cache; each bucket is
/// then radix-sorted by (row, column) and deduplicated while it is cache resident.
/// @throws InvalidMatrix a duplicate under DuplicatePolicy::Reject, naming the first row
template <class Source>
HostPattern build_pattern(std::int32_t nrows, std::int32_t ncols, const Source& src,
                          DuplicatePolicy policy) {
  struct Entry {
    std::int32_t r, c;
  };
  const std::size_t nseg = src.segments();
  std::size_t total = 0;
  for (std::size_t s = 0; s < nseg; ++s) total += src.weight(s);
  const bool par = total >= (std::size_t{1} << 16);
  constexpr std::int64_t kBucketEntries = std::int64_t{1} << 17;
  const std::int64_t target =
      std::clamp<std::int64_t>(static_cast<std::int64_t>(total) / kBucketEntries, 1, 4096);
  int shift = 0;
  while (((static_cast<std::int64_t>(nrows) - 1) >> shift) + 1 > target) ++shift;
  const std::int64_t nbuckets =
      nrows == 0 ? 0 : ((static_cast<std::int64_t>(nrows) - 1) >> shift) + 1;

  // Phase 1: partition the entries by bucket = row >> shift, slice by slice (consecutive
  // segments), every slice into its own range of every bucket.
  std::vector<std::int64_t> bucket_start(static_cast<std::size_t>(nbuckets) + 1, 0);
  std::vector<std::int64_t> pos;
  std::optional<Scratch<Entry>> part;
#pragma omp parallel if (par)
  {
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    const auto nt = static_cast<std::size_t>(omp_get_num_threads());
#pragma omp single
    pos.assign(nt * static_cast<std::size_t>(nbuckets), 0);
    std::int64_t* const mine = pos.data() + t * static_cast<std::size_t>(nbuckets);
    const std::size_t first = nseg * t / nt, last = nseg * (t + 1) / nt;
    for (std::size_t s = first; s < last; ++s)
      src.each(s, [mine, shift](std::int32_t r, std::int32_t, auto) { ++mine[r >> shift]; });
#pragma omp barrier
#pragma omp single
    {
      std::int64_t sum = 0;
      for (std::int64_t b = 0; b < nbuckets; ++b) {
        bucket_start[b] = sum;
        for (std::size_t k = 0; k < nt; ++k) {
          const auto c = pos[k * nbuckets + b];
          pos[k * nbuckets + b] = sum;
          sum += c;
        }
      }
      bucket_start[nbuckets] = sum;
      part.emplace(static_cast<std::size_t>(sum));
    }
    Entry* const out = part->get();
    for (std::size_t s = first; s < last; ++s)
      src.each(s, [mine, shift, out](std::int32_t r, std::int32_t c, auto) {
        out[mine[r >> shift]++] = Entry{r, c};
      });
  }

  // Phase 2: inside each bucket, an LSD radix sort of the keys (row - r0, col) puts every
  // row's columns in order; duplicates are then adjacent and dropped while the columns
  // are written to `cols` at the bucket's start. len[r]: row r's length, at[r]: its start.
  const std::int64_t stored = bucket_start[nbuckets];
  const auto rows = static_cast<std::size_t>(nrows);
  Scratch<std::int32_t> cols(static_cast<std::size_t>(stored));
  std::unique_ptr<std::int64_t[]> len(new std::int64_t[rows]), at(new std::int64_t[rows]);
  int col_bits = 1;
  while (col_bits < 31 && (std::int64_t{1} << col_bits) < ncols) ++col_bits;
  const int key_bits = shift + col_bits;
  const int passes = (key_bits + 11) / 12;
  const int digit = (key_bits + passes - 1) / passes;
  const std::uint64_t col_mask = (std::uint64_t{1} << col_bits) - 1;
  std::int64_t kept = 0;
  std::int32_t first_dup_row = nrows;
#pragma omp parallel reduction(+ : kept) reduction(min : first_dup_row) if (par)
  {
    std::vector<std::uint64_t> keys, tmp;
    std::vector<std::uint32_t> hist(std::size_t{1} << digit);
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t b = 0; b < nbuckets; ++b) {
      const std::int64_t r0 = b << shift;
      const std::int64_t r1 = std::min<std::int64_t>(nrows, (b + 1) << shift);
      const std::int64_t begin = bucket_start[b], end = bucket_start[b + 1];
      const auto n = static_cast<std::size_t>(end - begin);
      keys.resize(n);
      tmp.resize(n);
      for (std::size_t i = 0; i < n; ++i) {
        const Entry x = part->get()[static_cast<std::size_t>(begin) + i];
        keys[i] =
            (static_cast<std::uint64_t>(x.r - r0) << col_bits) | static_cast<std::uint32_t>(x.c);
      }
      for (int pass = 0; pass < passes; ++pass) {
        const int sh = pass * digit;
        const std::uint64_t mask = hist.size() - 1;
        std::fill(hist.begin(), hist.end(), 0u);
        for (const auto k : keys) ++hist[(k >> sh) & mask];
        std::uint32_t sum = 0;
        for (auto& h : hist) sum += std::exchange(h, sum);
        for (const auto k : keys) tmp[hist[(k >> sh) & mask]++] = k;
        keys.swap(tmp);
      }
      for (std::int64_t r = r0; r < r1; ++r) len[r] = 0;
      std::int64_t w = begin;
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t k = keys[i];
        const auto r = static_cast<std::int32_t>(r0 + static_cast<std::int64_t>(k >> col_bits));
        if (i > 0 && k == keys[i - 1]) {
          first_dup_row = std::min(first_dup_row, r);
          continue;
        }
        cols.get()[w++] = static_cast<std::int32_t>(k & col_mask);
        ++len[r];
      }
      for (std::int64_t r = r0, start = begin; r < r1; ++r) {
        at[r] = start;
        start += len[r];
      }
      kept += w - begin;
    }
  }
  part.reset();
  if (first_dup_row < nrows && policy == DuplicatePolicy::Reject)
    throw InvalidMatrix("row " + std::to_string(first_dup_row),
                        "holds the same column more than once (DuplicatePolicy::Reject)");

  HostPattern p;
  p.nrows = nrows;
  p.ncols = ncols;
  p.row_map =
      HostPattern::row_map_type(Kokkos::ViewAllocateWithoutInitializing("A.row_map"), rows + 1);
  p.entries = HostPattern::entries_type(Kokkos::ViewAllocateWithoutInitializing("A.entries"),
                                        static_cast<std::size_t>(kept));
  std::int64_t* const rm = p.row_map.data();
  std::int32_t* const en = p.entries.data();
  const std::int32_t* const cs = cols.get();
  const std::int64_t* const ln = len.get();
  const std::int64_t* const st = at.get();
  rm[rows] = scan_items(
      rows, par, [=](std::size_t r) { return ln[r]; },
      [=](std::size_t r, std::int64_t offset) {
        rm[r] = offset;
        std::copy(cs + st[r], cs + st[r] + ln[r], en + offset);
        return ln[r];
      });
  return p;
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
  if constexpr (!Values) {
    if (!presorted && total >= kBucketedEntries) {
      HostCsr<Scalar> a;
      const HostPattern p = build_pattern(nrows, ncols, src, policy);
      a.nrows = p.nrows;
      a.ncols = p.ncols;
      a.row_map = p.row_map;
      a.entries = p.entries;
      return a;
    }
  }

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
