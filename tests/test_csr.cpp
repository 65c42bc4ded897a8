// CSR construction, duplicate and zero policy, validation, sorting, transposition.
#include <gtest/gtest.h>

#include <limits>
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

}  // namespace
