// MPI tests of mimd::dist, run under mpirun with 1 to 4 ranks: distributed SpMM against a
// sequential sum on the global matrix, distributed BFS against the single-process BFS
// (depths) and Graph500's rules (parents), partitions with empty ranks and a one-row
// rank, the three ways of building a DistCsr, and errors agreed on every rank.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>

#include "dist_testing.hpp"
#include "mimd/bfs.hpp"
#include "mimd/datasets.hpp"
#include "mimd/dist/bfs.hpp"
#include "mimd/dist/csr.hpp"
#include "mimd/dist/spmm.hpp"
#include "mimd/generators.hpp"
#include "mimd/io.hpp"

namespace {

using mimd::HostCsr;
using mimd::dist::testing::context;

double b_value(std::int64_t row, std::int64_t t) {
  return ((row * 7 + t * 13) % 17 - 8) / 8.0;
}
double c_value(std::int64_t row, std::int64_t t) {
  return ((row * 3 + t * 5) % 11 - 5) / 5.0;
}

// C = alpha A B + beta C distributed, each rank's rows checked against a sequential sum
// over the global matrix; tolerance 32 eps (|alpha| sum |a||b| + |beta c|).
template <class Scalar, class Layout>
void check_spmm(const HostCsr<double>& global, int k, Scalar alpha, Scalar beta) {
  const auto& ctx = context();
  const HostCsr<Scalar> g = mimd::convert_values<Scalar>(global);
  const auto a = mimd::dist::distribute(ctx, g);
  mimd::dist::SpmmPlan<Scalar, Layout> plan(ctx, a, k);
  const std::int32_t n = a.map.local_rows();
  const std::int64_t first = a.map.first_row();
  mimd::Dense<Scalar, Layout> b("b", n, k), c("c", n, k);
  for (std::int32_t i = 0; i < n; ++i)
    for (int t = 0; t < k; ++t) {
      b(i, t) = static_cast<Scalar>(b_value(first + i, t));
      c(i, t) = beta == Scalar(0) ? std::numeric_limits<Scalar>::quiet_NaN()
                                  : static_cast<Scalar>(c_value(first + i, t));
    }
  plan.apply(alpha, b, beta, c);
  const double eps = std::numeric_limits<Scalar>::epsilon();
  int bad = 0;
  for (std::int32_t i = 0; i < n && bad < 5; ++i)
    for (int t = 0; t < k; ++t) {
      const std::int64_t row = first + i;
      double sum = 0, mag = 0;
      for (std::int64_t j = g.row_map(row); j < g.row_map(row + 1); ++j) {
        const double term =
            double(g.values(j)) * double(static_cast<Scalar>(b_value(g.entries(j), t)));
        sum += term;
        mag += std::abs(term);
      }
      const double c0 = beta == Scalar(0) ? 0.0 : double(static_cast<Scalar>(c_value(row, t)));
      const double want = double(alpha) * sum + double(beta) * c0;
      const double tol =
          32 * eps * (std::abs(double(alpha)) * mag + std::abs(double(beta) * c0)) + 1e-30;
      if (!(std::abs(double(c(i, t)) - want) <= tol)) {
        ADD_FAILURE() << "rank " << ctx.rank() << " row " << row << " col " << t << ": expected "
                      << want << ", got " << c(i, t) << " (tolerance " << tol << ")";
        ++bad;
      }
    }
  const auto s = plan.last_call();
  EXPECT_EQ(s.bytes_received, plan.ghost_rows() * k * static_cast<std::int64_t>(sizeof(Scalar)));
  EXPECT_EQ(s.bytes_sent, plan.send_rows() * k * static_cast<std::int64_t>(sizeof(Scalar)));
}

template <class Scalar, class Layout>
void check_all_k(const HostCsr<double>& global) {
  for (int k : {1, 8, 33}) {
    check_spmm<Scalar, Layout>(global, k, Scalar(1), Scalar(0));
    check_spmm<Scalar, Layout>(global, k, Scalar(-0.5), Scalar(2));
  }
}

void check_every_type(const HostCsr<double>& global) {
  check_all_k<double, Kokkos::LayoutRight>(global);
  check_all_k<double, Kokkos::LayoutLeft>(global);
  check_all_k<float, Kokkos::LayoutRight>(global);
  check_all_k<float, Kokkos::LayoutLeft>(global);
}

TEST(DistSpmm, Stencil3d) {
  check_every_type(mimd::generate("stencil3d:10"));
}

TEST(DistSpmm, PowerLawWithLongRows) {
  check_every_type(mimd::generate("powerlaw:3000:8:2:6"));
}

TEST(DistSpmm, KroneckerGraph) {
  check_every_type(mimd::generate("kron:9"));
}

// 2 rows: with 3 or 4 ranks some ranks own nothing.
TEST(DistSpmm, EmptyRanks) {
  mimd::CooMatrix<double> coo;
  coo.nrows = coo.ncols = 2;
  coo.rows = {0, 0, 1};
  coo.cols = {0, 1, 1};
  coo.values = {2, -1, 3};
  check_every_type(mimd::csr_from_coo(coo));
}

// Row 0 holds every column, the other rows nothing: row 0 weighs half the matrix, so
// rank 0 owns it alone (and with 4 ranks, rank 1 owns nothing).
TEST(DistSpmm, OneLongRowOnARank) {
  const std::int32_t n = 500;
  mimd::CooMatrix<double> coo;
  coo.nrows = coo.ncols = n;
  for (std::int32_t j = 0; j < n; ++j) {
    coo.rows.push_back(0);
    coo.cols.push_back(j);
    coo.values.push_back(1.0 / (j + 1));
  }
  const auto a = mimd::csr_from_coo(coo);
  if (context().size() > 1) {
    const auto d = mimd::dist::distribute(context(), a);
    EXPECT_EQ(d.map.partition.rows(0), 1);
  }
  check_every_type(a);
}

TEST(DistCsr, BalancedPartition) {
  const auto a = mimd::generate("powerlaw:2000:8");
  for (int parts : {1, 2, 3, 7}) {
    const auto p = mimd::dist::balanced_partition(a.row_map.data(), a.nrows, parts);
    ASSERT_EQ(p.ranks(), parts);
    EXPECT_EQ(p.offsets.front(), 0);
    EXPECT_EQ(p.offsets.back(), a.nrows);
    const double share = double(a.nrows + a.nnz()) / parts;
    for (int r = 0; r < parts; ++r) {
      const double w = double(p.rows(r) + a.row_map(p.end(r)) - a.row_map(p.begin(r)));
      EXPECT_LE(w, share + 1 + double(mimd::row_stats(a).max_row))
          << "rank " << r << " of " << parts;
    }
  }
}

// Uneven blocks of rows held by the caller give the same matrix back when gathered.
TEST(DistCsr, FromLocalRowsAndGather) {
  const auto& ctx = context();
  const auto g = mimd::generate("powerlaw:1500:6");
  const int p = ctx.size(), r = ctx.rank();
  // rank r holds a share proportional to r + 1
  const std::int64_t total = std::int64_t(p) * (p + 1) / 2;
  const std::int64_t b = g.nrows * (std::int64_t(r) * (r + 1) / 2) / total;
  const std::int64_t e = g.nrows * (std::int64_t(r + 1) * (r + 2) / 2) / total;
  HostCsr<double> rows;
  rows.nrows = static_cast<std::int32_t>(e - b);
  rows.ncols = g.ncols;
  rows.row_map = decltype(rows.row_map)("rm", e - b + 1);
  for (std::int64_t i = b; i <= e; ++i) rows.row_map(i - b) = g.row_map(i) - g.row_map(b);
  rows.entries = Kokkos::subview(g.entries, std::make_pair(g.row_map(b), g.row_map(e)));
  rows.values = Kokkos::subview(g.values, std::make_pair(g.row_map(b), g.row_map(e)));
  const auto d = mimd::dist::from_local_rows(ctx, rows, g.ncols);
  EXPECT_EQ(d.map.first_row(), b);
  EXPECT_EQ(d.global_nnz, g.nnz());
  const auto back = mimd::dist::gather(ctx, d);
  if (r == 0) {
    ASSERT_EQ(back.nnz(), g.nnz());
    for (std::int64_t i = 0; i <= g.nrows; ++i) ASSERT_EQ(back.row_map(i), g.row_map(i)) << i;
    for (std::int64_t j = 0; j < g.nnz(); ++j) {
      ASSERT_EQ(back.entries(j), g.entries(j)) << j;
      ASSERT_EQ(back.values(j), g.values(j)) << j;
    }
  }
}

TEST(DistCsr, GeneratedEqualsSingleProcess) {
  const auto& ctx = context();
  const auto d = mimd::dist::generate(ctx, "stencil3d:8");
  const auto back = mimd::dist::gather(ctx, d);
  const auto g = mimd::generate("stencil3d:8");
  if (ctx.rank() == 0) {
    ASSERT_EQ(back.nnz(), g.nnz());
    for (std::int64_t j = 0; j < g.nnz(); ++j) ASSERT_EQ(back.entries(j), g.entries(j)) << j;
  }
}

// A real matrix read by rank 0 and scattered: SpMM as for generated inputs.
TEST(DistCsr, RealMatrixRead) {
  std::string path;
  try {
    path = mimd::find_dataset("bcsstk13");
  } catch (const mimd::IoError&) {
    GTEST_SKIP() << "bcsstk13 not found in the dataset search path";
  }
  const auto& ctx = context();
  const auto d = mimd::dist::read<double>(ctx, path);
  const auto global = mimd::read_matrix_market<double>(path);
  EXPECT_EQ(d.global_nnz, global.nnz());
  check_spmm<double, Kokkos::LayoutRight>(global, 8, 1.0, 0.0);
  check_spmm<float, Kokkos::LayoutLeft>(global, 3, 2.0f, 1.0f);
}

// A file name shared by every rank, in the temporary folder (rank 0's pid in it).
std::string shared_temp_path(const std::string& name) {
  int pid = static_cast<int>(getpid());
  MPI_Bcast(&pid, 1, MPI_INT, 0, context().comm());
  return (std::filesystem::temp_directory_path() /
          ("mimd-dist-" + std::to_string(pid) + "-" + name))
      .string();
}

// Rank 0 writes `text`; every rank reads it with dist::read; the gathered matrix must be
// what the single-process reader makes of the same file.
void check_read(const std::string& name, const std::string& text) {
  const auto& ctx = context();
  const std::string path = shared_temp_path(name);
  if (ctx.rank() == 0) std::ofstream(path, std::ios::binary) << text;
  MPI_Barrier(ctx.comm());
  const auto d = mimd::dist::read<double>(ctx, path);
  const auto back = mimd::dist::gather(ctx, d);
  if (ctx.rank() == 0) {
    const auto want = mimd::read_matrix_market<double>(path);
    EXPECT_EQ(d.global_nnz, want.nnz());
    ASSERT_EQ(back.nnz(), want.nnz());
    for (std::int64_t i = 0; i <= want.nrows; ++i) ASSERT_EQ(back.row_map(i), want.row_map(i)) << i;
    for (std::int64_t j = 0; j < want.nnz(); ++j) {
      ASSERT_EQ(back.entries(j), want.entries(j)) << j;
      ASSERT_EQ(back.values(j), want.values(j)) << j;
    }
  }
  MPI_Barrier(ctx.comm());
  if (ctx.rank() == 0) std::remove(path.c_str());
}

// Every rank parses its own byte range: a generated file, and an uneven one (one line
// padded to most of the file, so other ranks' ranges hold nothing; comments, blank and
// CRLF lines between the entries; symmetric storage; duplicates; no final newline).
TEST(DistRead, ParallelByteRanges) {
  const auto& ctx = context();
  const std::string path = shared_temp_path("generated.mtx");
  if (ctx.rank() == 0) mimd::write_matrix_market(path, mimd::generate("powerlaw:3000:8"));
  MPI_Barrier(ctx.comm());
  std::ifstream in(path, std::ios::binary);
  const std::string generated((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
  check_read("generated-copy.mtx", generated);
  MPI_Barrier(ctx.comm());
  if (ctx.rank() == 0) std::remove(path.c_str());

  std::string uneven = "%%MatrixMarket matrix coordinate real symmetric\n% a comment\n6 6 8\n";
  uneven += "1 1 4.0\n2 1 -1" + std::string(200000, ' ') + "\n% inside the data\n\n";
  uneven += "3 2 -1\r\n4 3 -1\n5 4 -1\n6 5 -1\n6 5 0.5\n6 6";
  uneven += " 2";
  check_read("uneven.mtx", uneven);
}

// A broken line: the rank whose range holds it throws ParseError with the file's line
// number, the others RankFailure repeating it.
TEST(DistRead, ErrorNamesTheLineOnEveryRank) {
  const auto& ctx = context();
  std::string text = "%%MatrixMarket matrix coordinate real general\n100 100 100\n";
  for (int i = 1; i <= 100; ++i)
    text += std::to_string(i) + " " + std::to_string(i) + (i == 90 ? " x1\n" : " 1.5\n");
  const std::string path = shared_temp_path("broken.mtx");
  if (ctx.rank() == 0) std::ofstream(path, std::ios::binary) << text;
  MPI_Barrier(ctx.comm());
  try {
    mimd::dist::read<double>(ctx, path);
    ADD_FAILURE() << "no exception";
  } catch (const mimd::ParseError& e) {
    EXPECT_EQ(e.line(), 92u);
    EXPECT_EQ(e.kind(), mimd::ParseErrorKind::NotANumber);
  } catch (const mimd::dist::RankFailure& e) {
    EXPECT_NE(std::string(e.what()).find(":92: "), std::string::npos) << e.what();
  }
  MPI_Barrier(ctx.comm());
  if (ctx.rank() == 0) std::remove(path.c_str());
}

// Depths equal the single-process BFS, parents pass Graph500's rules, for the default
// switch and for top-down only (alpha huge) and eager bottom-up (alpha 1).
void check_bfs(const mimd::HostPattern& graph, const std::vector<std::int32_t>& sources) {
  const auto& ctx = context();
  const auto dg = mimd::dist::distribute(ctx, graph);
  const auto single = mimd::BfsGraph::undirected(graph);
  for (const std::optional<int> alpha :
       {std::optional<int>(), std::optional<int>(1 << 30), std::optional<int>(1)}) {
    mimd::BfsOptions opt;
    opt.alpha = alpha;
    mimd::dist::BfsRunner runner(ctx, dg, opt);
    for (const std::int32_t s : sources) {
      const auto& r = runner.run(s);
      const auto depths = mimd::dist::gather_depths(ctx, dg, r);
      const auto v = mimd::dist::validate(ctx, dg, s, r);
      EXPECT_TRUE(v.ok) << "source " << s << ": " << v.message;
      if (ctx.rank() == 0) {
        const auto ref = mimd::bfs(ctx.exec(), single, s);
        EXPECT_EQ(r.reached, ref.reached) << "source " << s;
        EXPECT_EQ(depths, ref.depths) << "source " << s;
      }
    }
  }
}

TEST(DistBfs, Kronecker) {
  check_bfs(mimd::kronecker(11), {0, 17, 1000});
}

TEST(DistBfs, UniformRandom) {
  check_bfs(mimd::uniform_random(10, 4), {3, 500});
}

// A long diameter: many levels, frontiers crossing the rank boundaries one row at a time.
TEST(DistBfs, Grid) {
  check_bfs(mimd::generate("stencil2d:40").pattern(), {0, 820});
}

TEST(DistBfs, EmptyRanks) {
  mimd::CooMatrix<double> coo;
  coo.nrows = coo.ncols = 3;
  coo.rows = {0, 1, 1, 2};
  coo.cols = {1, 0, 2, 1};
  check_bfs(mimd::csr_from_coo(coo).pattern(), {0, 2});
}

TEST(DistBfs, RealGraph) {
  std::string path;
  try {
    path = mimd::find_dataset("CA-GrQc");
  } catch (const mimd::IoError&) {
    GTEST_SKIP() << "CA-GrQc not found in the dataset search path";
  }
  mimd::ReadOptions opt;
  opt.symmetrize = true;
  check_bfs(mimd::read_snap(path, opt), {0, 4000});
}

TEST(DistErrors, AgreeGivesEveryRankTheError) {
  const auto& ctx = context();
  const int bad = ctx.size() - 1;
  std::exception_ptr failure;
  if (ctx.rank() == bad)
    failure = std::make_exception_ptr(mimd::InvalidArgument("boom on the last rank"));
  if (ctx.rank() == bad) {
    EXPECT_THROW(mimd::dist::agree(ctx, failure), mimd::InvalidArgument);
  } else {
    try {
      mimd::dist::agree(ctx, failure);
      ADD_FAILURE() << "no exception";
    } catch (const mimd::dist::RankFailure& e) {
      EXPECT_EQ(e.rank(), bad);
      EXPECT_NE(std::string(e.what()).find("boom on the last rank"), std::string::npos) << e.what();
    }
  }
}

TEST(DistErrors, BrokenRowsOnOneRank) {
  const auto& ctx = context();
  HostCsr<double> rows = mimd::generate("stencil2d:4");  // every rank claims 16 rows
  const std::int64_t n = std::int64_t(rows.nrows) * ctx.size();
  if (ctx.rank() == ctx.size() - 1) rows.entries(3) = static_cast<std::int32_t>(n + 5);
  rows.ncols = static_cast<std::int32_t>(n);
  if (ctx.rank() == ctx.size() - 1) {
    EXPECT_THROW(mimd::dist::from_local_rows(ctx, rows, n), mimd::InvalidMatrix);
  } else {
    EXPECT_THROW(mimd::dist::from_local_rows(ctx, rows, n), mimd::dist::RankFailure);
  }
}

TEST(DistErrors, WrongOperandOnOneRank) {
  const auto& ctx = context();
  const auto a = mimd::dist::generate(ctx, "stencil2d:6");
  mimd::dist::SpmmPlan<double, Kokkos::LayoutRight> plan(ctx, a, 2);
  const std::int32_t n = a.map.local_rows();
  const bool bad = ctx.rank() == 0;
  mimd::Dense<double, Kokkos::LayoutRight> b("b", n + (bad ? 1 : 0), 2), c("c", n, 2);
  if (bad) {
    EXPECT_THROW(plan.apply(1.0, b, 0.0, c), mimd::DimensionMismatch);
  } else {
    EXPECT_THROW(plan.apply(1.0, b, 0.0, c), mimd::dist::RankFailure);
  }
}

}  // namespace
