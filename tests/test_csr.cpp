// CSR construction, duplicate and zero policy, validation, sorting, transposition.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "mimd/csr.hpp"
#include "mimd/error.hpp"
#include "support/test_context.hpp"

namespace {

using mimd::CooMatrix;
using mimd::HostCsr;

template <class S>
std::vector<S> dense_of(const HostCsr<S>& a) {
  std::vector<S> d(static_cast<std::size_t>(a.nrows) * static_cast<std::size_t>(a.ncols), S(0));
  for (int r = 0; r < a.nrows; ++r)
    for (auto j = a.row_map(r); j < a.row_map(r + 1); ++j)
      d[static_cast<std::size_t>(r) * a.ncols + static_cast<std::size_t>(a.entries(j))] +=
          a.values(j);
  return d;
}

TEST(Csr, FromCooSumsDuplicatesKeepsZerosSortsColumns) {
  CooMatrix<double> coo;
  coo.nrows = 3;
  coo.ncols = 4;
  coo.rows = {2, 0, 0, 2, 0, 2};
  coo.cols = {3, 2, 0, 1, 2, 3};
  coo.values = {1.0, 2.0, 3.0, 0.0, 4.0, 5.0};
  const auto a = mimd::csr_from_coo(coo);
  mimd::validate(a, /*require_sorted=*/true);
  ASSERT_EQ(a.nnz(), 4);  // (0,0) (0,2)=2+4 (2,1)=0 explicit, (2,3)=1+5
  EXPECT_EQ(a.row_map(1), 2);
  EXPECT_EQ(a.row_map(2), 2);  // empty row 1
  EXPECT_EQ(a.entries(0), 0);
  EXPECT_EQ(a.entries(1), 2);
  EXPECT_DOUBLE_EQ(a.values(1), 6.0);
  EXPECT_EQ(a.entries(2), 1);
  EXPECT_DOUBLE_EQ(a.values(2), 0.0) << "explicit zero must be kept";
  EXPECT_DOUBLE_EQ(a.values(3), 6.0);
}

TEST(Csr, RejectPolicyNamesTheRow) {
  CooMatrix<float> coo;
  coo.nrows = 2;
  coo.ncols = 2;
  coo.rows = {0, 1, 1};
  coo.cols = {0, 1, 1};
  try {
    mimd::csr_from_coo(coo, mimd::DuplicatePolicy::Reject);
    FAIL() << "duplicate accepted";
  } catch (const mimd::InvalidMatrix& e) {
    EXPECT_NE(std::string(e.what()).find("row 1"), std::string::npos) << e.what();
  }
}

TEST(Csr, PatternCooGetsOnes) {
  CooMatrix<double> coo;
  coo.nrows = 2;
  coo.ncols = 2;
  coo.rows = {0, 1};
  coo.cols = {1, 0};
  const auto a = mimd::csr_from_coo(coo);
  EXPECT_DOUBLE_EQ(a.values(0), 1.0);
  EXPECT_DOUBLE_EQ(a.values(1), 1.0);
}

TEST(Csr, OutOfRangeCoordinateIsNamed) {
  CooMatrix<double> coo;
  coo.nrows = 2;
  coo.ncols = 3;
  coo.rows = {0, 1};
  coo.cols = {1, 3};
  coo.values = {1, 2};
  try {
    mimd::csr_from_coo(coo);
    FAIL();
  } catch (const mimd::InvalidMatrix& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("(1, 3)"), std::string::npos) << m;
    EXPECT_NE(m.find("[0, 3)"), std::string::npos) << m;
  }
  coo.ncols = static_cast<std::int64_t>(std::numeric_limits<std::int32_t>::max()) + 1;
  EXPECT_THROW(mimd::csr_from_coo(coo), mimd::InvalidArgument);
}

TEST(Csr, ValidateCatchesEveryBrokenInvariant) {
  CooMatrix<double> coo;
  coo.nrows = 3;
  coo.ncols = 3;
  coo.rows = {0, 1, 1, 2};
  coo.cols = {0, 0, 2, 1};
  coo.values = {1, 2, 3, 4};
  auto fresh = [&] { return mimd::csr_from_coo(coo); };
  {
    auto a = fresh();
    a.entries(2) = 3;
    EXPECT_THROW(mimd::validate(a), mimd::InvalidMatrix);
  }
  {
    auto a = fresh();
    a.row_map(1) = 3;  // row_map(2) == 3: still monotone, but row 0 now owns 3 entries
    a.row_map(2) = 2;  // decreasing
    try {
      mimd::validate(a);
      FAIL();
    } catch (const mimd::InvalidMatrix& e) {
      EXPECT_EQ(e.where(), "row_map[2]") << e.what();
    }
  }
  {
    auto a = fresh();
    a.row_map(0) = 1;
    EXPECT_THROW(mimd::validate(a), mimd::InvalidMatrix);
  }
  {
    auto a = fresh();
    std::swap(a.entries(1), a.entries(2));
    std::swap(a.values(1), a.values(2));
    EXPECT_NO_THROW(mimd::validate(a));
    EXPECT_THROW(mimd::validate(a, /*require_sorted=*/true), mimd::InvalidMatrix);
    mimd::sort_columns(a);
    EXPECT_NO_THROW(mimd::validate(a, true));
    EXPECT_DOUBLE_EQ(a.values(1), 2.0) << "values must move with their columns";
  }
}

// Patterns of 2^22 entries and more take the engine's bucketed radix path, smaller ones
// and matrices its scatter path: symmetrize (4.4 M entries, with repeats and
// self-loops) must give what csr_from_coo gives for both directions of every entry.
TEST(Csr, LargePatternPathAgreesWithMatrixPath) {
  mimd::testing::context();
  const std::int32_t n = 1 << 17;
  const std::size_t m = 2200000;
  CooMatrix<float> coo, both;
  coo.nrows = coo.ncols = both.nrows = both.ncols = n;
  std::mt19937 gen(5);
  std::uniform_int_distribution<std::int32_t> vertex(0, n - 1);
  for (std::size_t i = 0; i < m; ++i) {
    const std::int32_t u = vertex(gen), v = i % 1000 == 0 ? u : vertex(gen);
    coo.rows.push_back(u);
    coo.cols.push_back(v);
    if (i % 500 == 0) {  // repeated entries
      coo.rows.push_back(u);
      coo.cols.push_back(v);
    }
  }
  both.rows = coo.rows;
  both.rows.insert(both.rows.end(), coo.cols.begin(), coo.cols.end());
  both.cols = coo.cols;
  both.cols.insert(both.cols.end(), coo.rows.begin(), coo.rows.end());
  const auto got = mimd::symmetrize(mimd::csr_from_coo(coo).pattern());
  const auto want = mimd::csr_from_coo(both);
  ASSERT_EQ(got.nnz(), want.nnz());
  for (std::int32_t r = 0; r <= n; ++r) ASSERT_EQ(got.row_map(r), want.row_map(r)) << r;
  for (std::int64_t j = 0; j < got.nnz(); ++j)
    ASSERT_EQ(got.entries(j), want.entries(j)) << "entry " << j;
}

TEST(Csr, TransposeIsTheTranspose) {
  CooMatrix<double> coo;
  coo.nrows = 3;
  coo.ncols = 5;
  coo.rows = {0, 0, 1, 2, 2, 2};
  coo.cols = {4, 1, 0, 4, 3, 0};
  coo.values = {1, 2, 3, 4, 5, 6};
  const auto a = mimd::csr_from_coo(coo);
  const auto t = mimd::transpose(a);
  mimd::validate(t, true);
  ASSERT_EQ(t.nrows, 5);
  ASSERT_EQ(t.ncols, 3);
  const auto da = dense_of(a), dt = dense_of(t);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j) EXPECT_EQ(da[i * 5 + j], dt[j * 3 + i]) << i << "," << j;
  const auto tt = mimd::transpose(t.pattern());
  EXPECT_EQ(tt.nnz(), a.nnz());
  for (int j = 0; j < a.nnz(); ++j) EXPECT_EQ(tt.entries(j), a.entries(j));
}

// A 200k-entry input with many duplicates, unsorted columns, explicit zeros, empty
// rows and a few long rows (beyond the insertion-sort length).
CooMatrix<double> random_coo(bool pattern) {
  CooMatrix<double> coo;
  coo.nrows = 20000;
  coo.ncols = 3000;
  std::mt19937 gen(20261130);
  std::uniform_int_distribution<std::int32_t> row(0, 19999), col(0, 2999), few(0, 40);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  for (int i = 0; i < 200000; ++i) {
    const int kind = i % 10;
    std::int32_t r = row(gen);
    if (kind == 0) r = 7;                // a long row
    if (kind == 1) r = 19998;            // another one, few distinct columns: many duplicates
    if (r % 3 == 0 && kind > 1) r += 1;  // a third of the rows stay empty
    coo.rows.push_back(r);
    coo.cols.push_back(kind == 1 || kind == 2 ? few(gen) : col(gen));
    if (!pattern) coo.values.push_back(kind == 3 ? 0.0 : val(gen));
  }
  return coo;
}

// Sequential construction: stable sort by (row, col), then sum duplicates in input order.
HostCsr<double> reference_csr(const CooMatrix<double>& coo) {
  std::vector<std::size_t> idx(coo.rows.size());
  std::iota(idx.begin(), idx.end(), std::size_t{0});
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t x, std::size_t y) {
    return coo.rows[x] < coo.rows[y] || (coo.rows[x] == coo.rows[y] && coo.cols[x] < coo.cols[y]);
  });
  std::vector<std::int64_t> rm(static_cast<std::size_t>(coo.nrows) + 1, 0);
  std::vector<std::int32_t> cols;
  std::vector<double> vals;
  std::int32_t last_r = -1, last_c = -1;
  for (const std::size_t i : idx) {
    const double v = coo.values.empty() ? 1.0 : coo.values[i];
    if (coo.rows[i] == last_r && coo.cols[i] == last_c) {
      vals.back() += v;
      continue;
    }
    last_r = coo.rows[i];
    last_c = coo.cols[i];
    cols.push_back(last_c);
    vals.push_back(v);
    ++rm[static_cast<std::size_t>(last_r) + 1];
  }
  std::partial_sum(rm.begin(), rm.end(), rm.begin());
  HostCsr<double> a;
  a.nrows = static_cast<std::int32_t>(coo.nrows);
  a.ncols = static_cast<std::int32_t>(coo.ncols);
  a.row_map = HostCsr<double>::row_map_type("ref.row_map", rm.size());
  a.entries = HostCsr<double>::entries_type("ref.entries", cols.size());
  a.values = HostCsr<double>::values_type("ref.values", vals.size());
  std::copy(rm.begin(), rm.end(), a.row_map.data());
  std::copy(cols.begin(), cols.end(), a.entries.data());
  std::copy(vals.begin(), vals.end(), a.values.data());
  return a;
}

// Bit-identical: same duplicates summed in the same order.
void expect_identical(const HostCsr<double>& got, const HostCsr<double>& want) {
  ASSERT_EQ(got.nrows, want.nrows);
  ASSERT_EQ(got.ncols, want.ncols);
  ASSERT_EQ(got.nnz(), want.nnz());
  for (int r = 0; r <= want.nrows; ++r) ASSERT_EQ(got.row_map(r), want.row_map(r)) << "row " << r;
  for (std::int64_t j = 0; j < want.nnz(); ++j) {
    ASSERT_EQ(got.entries(j), want.entries(j)) << "entry " << j;
    ASSERT_EQ(got.values(j), want.values(j)) << "entry " << j;
  }
}

// Runs `f` with 1 thread, 2 threads and the default count.
template <class F>
void with_thread_counts(F f) {
  const int saved = omp_get_max_threads();
  for (const int t : {1, 2, saved}) {
    SCOPED_TRACE(std::to_string(t) + " OpenMP threads");
    omp_set_num_threads(t);
    f();
  }
  omp_set_num_threads(saved);
}

TEST(Csr, FromCooLargeRandomMatchesSequentialConstruction) {
  mimd::testing::context();
  for (const bool pattern : {false, true}) {
    SCOPED_TRACE(pattern ? "pattern" : "values");
    const auto coo = random_coo(pattern);
    const auto want = reference_csr(coo);
    ASSERT_LT(want.nnz(), 170000) << "the input should hold many duplicates";
    ASSERT_GT(want.row_map(8) - want.row_map(7), 1000) << "row 7 should be long";
    with_thread_counts([&] {
      const auto got = mimd::csr_from_coo(coo);
      mimd::validate(got, true);
      expect_identical(got, want);
      EXPECT_THROW(mimd::csr_from_coo(coo, mimd::DuplicatePolicy::Reject), mimd::InvalidMatrix);
    });
  }
}

TEST(Csr, TransposeLargeRandomMatchesSequentialConstruction) {
  mimd::testing::context();
  const auto coo = random_coo(false);
  const auto a = reference_csr(coo);
  // The transpose of a duplicate-free matrix is the reference built from swapped coordinates.
  CooMatrix<double> swapped;
  swapped.nrows = coo.ncols;
  swapped.ncols = coo.nrows;
  for (int r = 0; r < a.nrows; ++r)
    for (auto j = a.row_map(r); j < a.row_map(r + 1); ++j) {
      swapped.rows.push_back(a.entries(j));
      swapped.cols.push_back(r);
      swapped.values.push_back(a.values(j));
    }
  const auto want = reference_csr(swapped);
  with_thread_counts([&] {
    expect_identical(mimd::transpose(a), want);
    const auto tp = mimd::transpose(a.pattern());
    ASSERT_EQ(tp.nnz(), want.nnz());
    for (std::int64_t j = 0; j < want.nnz(); ++j) ASSERT_EQ(tp.entries(j), want.entries(j));
  });
}

TEST(Csr, SortColumnsKeepsValuesWithTheirColumns) {
  mimd::testing::context();
  const auto want = reference_csr(random_coo(false));
  // Reverse every row, then sort back.
  HostCsr<double> a;
  a.nrows = want.nrows;
  a.ncols = want.ncols;
  a.row_map = want.row_map;
  a.entries = HostCsr<double>::entries_type("a.entries", want.entries.extent(0));
  a.values = HostCsr<double>::values_type("a.values", want.values.extent(0));
  Kokkos::deep_copy(a.entries, want.entries);
  Kokkos::deep_copy(a.values, want.values);
  for (int r = 0; r < a.nrows; ++r) {
    std::reverse(a.entries.data() + a.row_map(r), a.entries.data() + a.row_map(r + 1));
    std::reverse(a.values.data() + a.row_map(r), a.values.data() + a.row_map(r + 1));
  }
  mimd::sort_columns(a);
  expect_identical(a, want);
}

TEST(Csr, WrapDoesNotCopy) {
  std::vector<std::int64_t> rm = {0, 2, 3};
  std::vector<std::int32_t> ci = {0, 1, 1};
  std::vector<double> v = {1, 2, 3};
  auto a = mimd::wrap_csr<double, std::int32_t, std::int64_t>(2, 2, rm.data(), ci.data(), v.data());
  EXPECT_EQ(a.values.data(), v.data());
  a.values(2) = 7;
  EXPECT_DOUBLE_EQ(v[2], 7.0);
  EXPECT_THROW(
      (mimd::wrap_csr<double, std::int32_t, std::int64_t>(2, 2, nullptr, ci.data(), v.data())),
      mimd::InvalidArgument);
}

TEST(Csr, RowStats) {
  CooMatrix<double> coo;
  coo.nrows = 4;
  coo.ncols = 4;
  coo.rows = {0, 0, 0, 0, 2, 2};
  coo.cols = {0, 1, 2, 3, 0, 1};
  const auto s = mimd::row_stats(mimd::csr_from_coo(coo));
  EXPECT_EQ(s.max_row, 4);
  EXPECT_EQ(s.empty_rows, 2);
  EXPECT_DOUBLE_EQ(s.mean, 1.5);
  EXPECT_GT(s.cv, 1.0);
}

// Row lengths 4, 0, 2, 0: weights (length + 1) 5, 1, 3, 1, mean 5 per half.
TEST(Csr, RowSplitImbalance) {
  const std::int64_t row_map[] = {0, 4, 4, 6, 6};
  EXPECT_DOUBLE_EQ(mimd::row_split_imbalance(row_map, 4, 1), 1.0);
  EXPECT_DOUBLE_EQ(mimd::row_split_imbalance(row_map, 4, 2), 6.0 / 5.0);
  // Four parts of one row each: the heaviest (5) over the mean 10 / 4.
  EXPECT_DOUBLE_EQ(mimd::row_split_imbalance(row_map, 4, 4), 2.0);
  // More parts than rows: one row per part, as row_parallel runs it.
  EXPECT_DOUBLE_EQ(mimd::row_split_imbalance(row_map, 4, 64), 2.0);
  const std::int64_t even[] = {0, 3, 6, 9, 12};
  EXPECT_DOUBLE_EQ(mimd::row_split_imbalance(even, 4, 2), 1.0);
  EXPECT_DOUBLE_EQ(mimd::row_split_imbalance(even, 0, 2), 1.0);
}

}  // namespace
