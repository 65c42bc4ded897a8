// Matrix Market reader and writer on hand-made files: every field and symmetry,
// array format, comments, CRLF, a last line without newline, duplicates, explicit
// zeros, gzip and SuiteSparse-style tar.gz, and write/read round trips.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <tuple>

#include "mimd/io.hpp"
#include "support/io_files.hpp"
#include "support/test_context.hpp"

namespace {

using mimd::HostCsr;
using mimd::testing::gzip;
using mimd::testing::tar;
using mimd::testing::TempDir;
using mimd::testing::write_file;

using Dense = std::map<std::pair<int, int>, double>;

// Entries of a CSR matrix as (row, col) -> value, 0-based; checks sorted rows too.
template <class Scalar>
Dense entries_of(const HostCsr<Scalar>& a) {
  mimd::validate(a, /*require_sorted=*/true);
  Dense d;
  for (int r = 0; r < a.nrows; ++r)
    for (auto j = a.row_map(r); j < a.row_map(r + 1); ++j)
      d[{r, a.entries(j)}] = static_cast<double>(a.values(j));
  return d;
}

HostCsr<double> read_text(const TempDir& dir, const std::string& name, const std::string& text,
                          mimd::MatrixMarketInfo* info = nullptr) {
  write_file(dir.file(name), text);
  mimd::ReadOptions opt;
  opt.progress = false;
  return mimd::read_matrix_market<double>(dir.file(name), opt, info);
}

TEST(IoMatrixMarket, CoordinateRealGeneralWithCommentsAndBlankLines) {
  mimd::testing::context();
  TempDir dir;
  mimd::MatrixMarketInfo info;
  const auto a = read_text(dir, "a.mtx",
                           "%%MatrixMarket matrix coordinate real general\n"
                           "% a comment\n%\n\n"
                           "2 3 4\n"
                           "1 3 -2.5e1\n"
                           "% comment between entries\n"
                           "2 1 .5\n\n"
                           "  1   1\t+7  \n"
                           "2 2 0\n",
                           &info);
  EXPECT_EQ(a.nrows, 2);
  EXPECT_EQ(a.ncols, 3);
  EXPECT_EQ(info.format, "coordinate");
  EXPECT_EQ(info.field, "real");
  EXPECT_EQ(info.symmetry, "general");
  EXPECT_EQ(info.rows, 2);
  EXPECT_EQ(info.cols, 3);
  EXPECT_EQ(info.entries_stored, 4);
  // The explicit zero (2,2) is kept as a stored entry.
  EXPECT_EQ(entries_of(a), (Dense{{{0, 0}, 7.0}, {{0, 2}, -25.0}, {{1, 0}, 0.5}, {{1, 1}, 0.0}}));
}

TEST(IoMatrixMarket, SymmetricIsExpandedIncludingEntriesAboveTheDiagonal) {
  mimd::testing::context();
  TempDir dir;
  const auto a = read_text(dir, "s.mtx",
                           "%%MatrixMarket matrix coordinate real symmetric\n"
                           "3 3 4\n1 1 4\n2 1 -1\n3 3 5\n2 3 2\n");
  EXPECT_EQ(a.nnz(), 6);
  EXPECT_EQ(entries_of(a), (Dense{{{0, 0}, 4.0},
                                  {{0, 1}, -1.0},
                                  {{1, 0}, -1.0},
                                  {{1, 2}, 2.0},
                                  {{2, 1}, 2.0},
                                  {{2, 2}, 5.0}}));
}

TEST(IoMatrixMarket, SkewSymmetricMirrorIsNegated) {
  mimd::testing::context();
  TempDir dir;
  const auto a = read_text(dir, "k.mtx",
                           "%%MatrixMarket matrix coordinate real skew-symmetric\n"
                           "3 3 2\n2 1 3\n3 2 -1.5\n");
  EXPECT_EQ(entries_of(a), (Dense{{{1, 0}, 3.0}, {{0, 1}, -3.0}, {{2, 1}, -1.5}, {{1, 2}, 1.5}}));
}

TEST(IoMatrixMarket, RealHermitianIsSymmetric) {
  mimd::testing::context();
  TempDir dir;
  const auto a = read_text(dir, "h.mtx",
                           "%%MatrixMarket matrix coordinate real hermitian\n"
                           "2 2 2\n1 1 1\n2 1 9\n");
  EXPECT_EQ(entries_of(a), (Dense{{{0, 0}, 1.0}, {{1, 0}, 9.0}, {{0, 1}, 9.0}}));
}

TEST(IoMatrixMarket, PatternValuesAreOne) {
  mimd::testing::context();
  TempDir dir;
  const auto g = read_text(dir, "p.mtx",
                           "%%MatrixMarket matrix coordinate pattern general\n"
                           "3 2 3\n1 2\n3 1\n2 2\n");
  EXPECT_EQ(entries_of(g), (Dense{{{0, 1}, 1.0}, {{2, 0}, 1.0}, {{1, 1}, 1.0}}));
  const auto s = read_text(dir, "ps.mtx",
                           "%%MatrixMarket matrix coordinate pattern symmetric\n"
                           "3 3 2\n3 1\n2 2\n");
  EXPECT_EQ(entries_of(s), (Dense{{{2, 0}, 1.0}, {{0, 2}, 1.0}, {{1, 1}, 1.0}}));
}

TEST(IoMatrixMarket, IntegerField) {
  mimd::testing::context();
  TempDir dir;
  const auto a = read_text(dir, "i.mtx",
                           "%%MatrixMarket matrix coordinate integer symmetric\n"
                           "2 2 2\n2 1 -7\n2 2 +12\n");
  EXPECT_EQ(entries_of(a), (Dense{{{1, 0}, -7.0}, {{0, 1}, -7.0}, {{1, 1}, 12.0}}));
}

TEST(IoMatrixMarket, ArrayGeneralIsColumnMajor) {
  mimd::testing::context();
  TempDir dir;
  const auto a = read_text(dir, "ag.mtx",
                           "%%MatrixMarket matrix array real general\n% comment\n"
                           "2 3\n1\n2\n3\n4\n0\n6\n");
  // [1 3 0; 2 4 6]: every value stored, the zero included.
  EXPECT_EQ(entries_of(a), (Dense{{{0, 0}, 1.0},
                                  {{1, 0}, 2.0},
                                  {{0, 1}, 3.0},
                                  {{1, 1}, 4.0},
                                  {{0, 2}, 0.0},
                                  {{1, 2}, 6.0}}));
}

TEST(IoMatrixMarket, ArraySymmetricAndSkewStoreTheLowerTriangle) {
  mimd::testing::context();
  TempDir dir;
  const auto s = read_text(dir, "as.mtx",
                           "%%MatrixMarket matrix array real symmetric\n3 3\n"
                           "1\n2\n3\n4\n5\n6\n");
  // Columns of the lower triangle: (1,2,3), (4,5), (6).
  EXPECT_EQ(entries_of(s), (Dense{{{0, 0}, 1.0},
                                  {{1, 0}, 2.0},
                                  {{2, 0}, 3.0},
                                  {{0, 1}, 2.0},
                                  {{1, 1}, 4.0},
                                  {{2, 1}, 5.0},
                                  {{0, 2}, 3.0},
                                  {{1, 2}, 5.0},
                                  {{2, 2}, 6.0}}));
  const auto k = read_text(dir, "ak.mtx",
                           "%%MatrixMarket matrix array integer skew-symmetric\n3 3\n"
                           "1\n2\n3\n");
  EXPECT_EQ(entries_of(k), (Dense{{{1, 0}, 1.0},
                                  {{2, 0}, 2.0},
                                  {{2, 1}, 3.0},
                                  {{0, 1}, -1.0},
                                  {{0, 2}, -2.0},
                                  {{1, 2}, -3.0}}));
}

TEST(IoMatrixMarket, CrlfAndNoTrailingNewline) {
  mimd::testing::context();
  TempDir dir;
  const std::string lf =
      "%%MatrixMarket matrix coordinate real general\n% c\n3 3 3\n1 1 1.5\n2 3 2\n3 2 -1";
  std::string crlf;
  for (char c : lf) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  const Dense expect{{{0, 0}, 1.5}, {{1, 2}, 2.0}, {{2, 1}, -1.0}};
  EXPECT_EQ(entries_of(read_text(dir, "lf.mtx", lf)), expect);
  EXPECT_EQ(entries_of(read_text(dir, "crlf.mtx", crlf)), expect);
  EXPECT_EQ(entries_of(read_text(dir, "crlf2.mtx", crlf + "\r\n")), expect);
}

TEST(IoMatrixMarket, DuplicatesAreSummedAndBannerIsCaseInsensitive) {
  mimd::testing::context();
  TempDir dir;
  const auto a = read_text(dir, "d.mtx",
                           "%%MatrixMarket MATRIX Coordinate Real General\n"
                           "2 2 4\n1 1 1\n2 2 5\n1 1 2.5\n2 2 -5\n");
  EXPECT_EQ(entries_of(a), (Dense{{{0, 0}, 3.5}, {{1, 1}, 0.0}}));
}

TEST(IoMatrixMarket, EmptyMatrixAndEmptyRows) {
  mimd::testing::context();
  TempDir dir;
  const auto z = read_text(dir, "z.mtx", "%%MatrixMarket matrix coordinate real general\n4 5 0\n");
  EXPECT_EQ(z.nrows, 4);
  EXPECT_EQ(z.ncols, 5);
  EXPECT_EQ(z.nnz(), 0);
  const auto e =
      read_text(dir, "e.mtx", "%%MatrixMarket matrix coordinate real general\n4 4 1\n4 1 2\n");
  EXPECT_EQ(entries_of(e), (Dense{{{3, 0}, 2.0}}));
  EXPECT_EQ(e.row_map(3), 0);
}

const std::string kSmall =
    "%%MatrixMarket matrix coordinate real symmetric\n%%comment\n"
    "4 4 5\n1 1 2\n2 1 -1\n3 2 0.25\n4 4 8\n4 1 3\n";

TEST(IoMatrixMarket, GzipAndSuiteSparseTarGz) {
  mimd::testing::context();
  TempDir dir;
  const Dense expect = entries_of(read_text(dir, "plain.mtx", kSmall));
  mimd::ReadOptions opt;
  opt.progress = false;
  write_file(dir.file("s.mtx.gz"), gzip(kSmall));
  mimd::LoadStats st;
  EXPECT_EQ(entries_of(mimd::read_matrix_market<double>(dir.file("s.mtx.gz"), opt, nullptr, &st)),
            expect);
  EXPECT_EQ(st.bytes, kSmall.size());  // uncompressed bytes
  // Concatenated gzip members form one stream.
  write_file(dir.file("two.mtx.gz"), gzip(kSmall.substr(0, 60)) + gzip(kSmall.substr(60)));
  EXPECT_EQ(entries_of(mimd::read_matrix_market<double>(dir.file("two.mtx.gz"), opt)), expect);
  // The collection's layout: Name/Name.mtx, sometimes next to Name/Name_b.mtx.
  write_file(dir.file("Small.tar.gz"), gzip(tar({{"Small/Small_b.mtx",
                                                  "%%MatrixMarket matrix array real general\n4 1\n"
                                                  "1\n2\n3\n4\n"},
                                                 {"Small/Small.mtx", kSmall}})));
  mimd::MatrixMarketInfo info;
  EXPECT_EQ(entries_of(mimd::read_matrix_market<double>(dir.file("Small.tar.gz"), opt, &info)),
            expect);
  EXPECT_EQ(info.symmetry, "symmetric");
  // A single .mtx member, whatever its folder, is taken too; the name does not matter.
  write_file(dir.file("renamed.bin"), gzip(tar({{"x/y.mtx", kSmall}})));
  EXPECT_EQ(entries_of(mimd::read_matrix_market<double>(dir.file("renamed.bin"), opt)), expect);
  EXPECT_EQ(entries_of(mimd::read_matrix<double>(dir.file("renamed.bin"), opt)), expect);
}

TEST(IoMatrixMarket, FloatScalar) {
  mimd::testing::context();
  TempDir dir;
  write_file(dir.file("f.mtx"), kSmall);
  mimd::ReadOptions opt;
  opt.progress = false;
  const auto a = mimd::read_matrix_market<float>(dir.file("f.mtx"), opt);
  EXPECT_EQ(entries_of(a), entries_of(read_text(dir, "d.mtx", kSmall)));
}

template <class Scalar>
HostCsr<Scalar> random_matrix(int nrows, int ncols, int nnz, unsigned seed) {
  std::mt19937 rng(seed);
  mimd::CooMatrix<Scalar> coo;
  coo.nrows = nrows;
  coo.ncols = ncols;
  std::uniform_int_distribution<int> r(0, nrows - 1), c(0, ncols - 1);
  std::normal_distribution<double> v(0.0, 1e3);
  for (int i = 0; i < nnz; ++i) {
    coo.rows.push_back(r(rng));
    coo.cols.push_back(c(rng));
    // Awkward values: tiny, huge, negative zero, subnormal, exact zero.
    const double x = i % 97 == 0   ? 0.0
                     : i % 89 == 0 ? std::numeric_limits<double>::denorm_min()
                     : i % 83 == 0 ? -1e300 * (sizeof(Scalar) == 4 ? 0 : 1)
                                   : v(rng) * std::pow(10.0, (i % 13) - 6);
    coo.values.push_back(static_cast<Scalar>(x));
  }
  return mimd::csr_from_coo(coo);
}

template <class Scalar>
void expect_identical(const HostCsr<Scalar>& a, const HostCsr<Scalar>& b) {
  ASSERT_EQ(a.nrows, b.nrows);
  ASSERT_EQ(a.ncols, b.ncols);
  ASSERT_EQ(a.nnz(), b.nnz());
  for (int r = 0; r <= a.nrows; ++r) ASSERT_EQ(a.row_map(r), b.row_map(r)) << "row_map " << r;
  for (std::int64_t j = 0; j < a.nnz(); ++j) {
    ASSERT_EQ(a.entries(j), b.entries(j)) << "entry " << j;
    ASSERT_EQ(a.values(j), b.values(j)) << "value " << j;  // bit-exact round trip
  }
}

TEST(IoMatrixMarket, WriteReadRoundTripIsExact) {
  mimd::testing::context();
  TempDir dir;
  mimd::ReadOptions opt;
  opt.progress = false;
  const auto a = random_matrix<double>(300, 170, 5000, 7);
  mimd::write_matrix_market(dir.file("rt.mtx"), a);
  expect_identical(a, mimd::read_matrix_market<double>(dir.file("rt.mtx"), opt));
  const auto f = random_matrix<float>(50, 400, 3000, 8);
  mimd::write_matrix_market(dir.file("rtf.mtx"), f);
  expect_identical(f, mimd::read_matrix_market<float>(dir.file("rtf.mtx"), opt));
  // Empty rows at the end and an empty matrix survive (sizes come from the size line).
  mimd::CooMatrix<double> coo;
  coo.nrows = 5;
  coo.ncols = 6;
  const auto empty = mimd::csr_from_coo(coo);
  mimd::write_matrix_market(dir.file("empty.mtx"), empty);
  expect_identical(empty, mimd::read_matrix_market<double>(dir.file("empty.mtx"), opt));
}

TEST(IoMatrixMarket, WriteToAnImpossiblePathIsAnIoError) {
  mimd::testing::context();
  const auto a = random_matrix<double>(3, 3, 3, 1);
  EXPECT_THROW(mimd::write_matrix_market("/nonexistent-dir/x.mtx", a), mimd::IoError);
}

}  // namespace
