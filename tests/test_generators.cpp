// Generators: determinism across thread counts, structural invariants (symmetry, no
// self-loops, no duplicates, sorted columns), degree distributions, stencil rows, spec
// parsing.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include "mimd/generators.hpp"
#include "support/io_files.hpp"
#include "support/test_context.hpp"

namespace {

using mimd::HostCsr;
using mimd::HostPattern;

// Runs `f` with the OpenMP thread count set to `threads`, then restores it.
template <class F>
auto with_threads(int threads, F f) {
  const int saved = omp_get_max_threads();
  omp_set_num_threads(threads);
  auto result = f();
  omp_set_num_threads(saved);
  return result;
}

template <class V>
void expect_same_view(const V& a, const V& b, const char* what) {
  ASSERT_EQ(a.extent(0), b.extent(0)) << what;
  for (std::size_t i = 0; i < a.extent(0); ++i)
    ASSERT_EQ(a(i), b(i)) << what << " differs at " << i;
}

void expect_same(const HostPattern& a, const HostPattern& b) {
  ASSERT_EQ(a.nrows, b.nrows);
  ASSERT_EQ(a.ncols, b.ncols);
  expect_same_view(a.row_map, b.row_map, "row_map");
  expect_same_view(a.entries, b.entries, "entries");
}

void expect_same(const HostCsr<double>& a, const HostCsr<double>& b) {
  expect_same(a.pattern(), b.pattern());
  expect_same_view(a.values, b.values, "values");
}

bool has_entry(const HostPattern& g, std::int32_t r, std::int32_t c) {
  const auto* b = g.entries.data() + g.row_map(r);
  const auto* e = g.entries.data() + g.row_map(r + 1);
  return std::binary_search(b, e, c);
}

// Sorted strictly increasing columns (so no duplicates), no diagonal, (u,v) <=> (v,u).
void expect_simple_undirected(const HostPattern& g) {
  ASSERT_NO_THROW(mimd::validate(g, /*require_sorted=*/true));
  ASSERT_EQ(g.nrows, g.ncols);
  for (std::int32_t r = 0; r < g.nrows; ++r)
    for (auto j = g.row_map(r); j < g.row_map(r + 1); ++j) {
      const auto c = g.entries(j);
      ASSERT_NE(c, r) << "self-loop at row " << r;
      ASSERT_TRUE(has_entry(g, c, r)) << "edge (" << r << ", " << c << ") has no reverse";
    }
}

TEST(Generators, DeterministicAcrossThreadCounts) {
  mimd::testing::context();
  const std::vector<std::pair<const char*, std::function<HostPattern()>>> graphs = {
      {"kron", [] { return mimd::kronecker(13, 16, 5); }},  // 2 row buckets
      {"urand", [] { return mimd::uniform_random(13, 16, 5); }},
  };
  for (const auto& [name, make] : graphs) {
    SCOPED_TRACE(name);
    expect_same(with_threads(1, make), with_threads(2, make));
  }
  const std::vector<std::pair<const char*, std::function<HostCsr<double>()>>> matrices = {
      {"power_law", [] { return mimd::power_law(5000, 3000, 6.0, 2.0, 3, 1000, 9); }},
      {"uniform_matrix", [] { return mimd::uniform_matrix(3000, 5000, 7.5, 9); }},
      {"graded_matrix", [] { return mimd::graded_matrix(3000, 2000, 2.5, 9.5, 9); }},
      {"stencil3d", [] { return mimd::stencil_3d(9, 27); }},
  };
  for (const auto& [name, make] : matrices) {
    SCOPED_TRACE(name);
    expect_same(with_threads(1, make), with_threads(2, make));
  }
}

// generates_symmetric() lets BFS skip symmetrisation: it must hold for what it names.
TEST(Generators, SymmetricSpecsNeedNoSymmetrisation) {
  mimd::testing::context();
  for (const char* spec :
       {"kron:10", "urand:10:4", "stencil2d:9", "stencil2d:7:9", "stencil3d:5", "stencil3d:4:7"}) {
    SCOPED_TRACE(spec);
    ASSERT_TRUE(mimd::generates_symmetric(spec));
    const HostPattern p = mimd::generate(spec).pattern();
    expect_same(p, mimd::symmetrize(p));
  }
  for (const char* spec : {"powerlaw:1000", "uniform:1000", "kron", "nothing:3", "bcsstk13"})
    EXPECT_FALSE(mimd::generates_symmetric(spec)) << spec;
}

TEST(Generators, SeedChangesTheGraph) {
  const auto a = mimd::kronecker(10, 8, 1);
  const auto b = mimd::kronecker(10, 8, 2);
  ASSERT_EQ(a.nrows, b.nrows);
  bool differ = a.nnz() != b.nnz();
  for (std::int64_t j = 0; !differ && j < a.nnz(); ++j) differ = a.entries(j) != b.entries(j);
  EXPECT_TRUE(differ);
}

TEST(Generators, KroneckerIsSimpleUndirectedAndSkewed) {
  const int scale = 14, ef = 16;
  const auto g = mimd::kronecker(scale, ef);
  EXPECT_EQ(g.nrows, 1 << scale);
  expect_simple_undirected(g);
  // At most 2 * ef * 2^scale stored entries; R-MAT duplicates remove a good share but
  // far from all of them.
  const std::int64_t directed = 2 * static_cast<std::int64_t>(ef) << scale;
  EXPECT_LE(g.nnz(), directed);
  EXPECT_GE(g.nnz(), directed / 4);
  const auto s = mimd::row_stats(g);
  EXPECT_GT(static_cast<double>(s.max_row), 50 * s.mean)
      << "max " << s.max_row << " mean " << s.mean;
  EXPECT_GT(s.cv, 2.0);
  EXPECT_GT(s.empty_rows, 0);  // R-MAT leaves many vertices isolated
}

TEST(Generators, UniformRandomIsNearPoisson) {
  const int scale = 14, ef = 8;
  const auto g = mimd::uniform_random(scale, ef);
  expect_simple_undirected(g);
  // Degrees are Binomial(2m, 2/n) ~ Poisson(2 ef): mean 16, variance 16; duplicates and
  // self-loops are rare (probability ~ 2 ef / n per edge).
  const auto s = mimd::row_stats(g);
  EXPECT_NEAR(s.mean, 2.0 * ef, 0.01 * 2 * ef);
  const double var = (s.cv * s.mean) * (s.cv * s.mean);
  EXPECT_NEAR(var / s.mean, 1.0, 0.1);
  EXPECT_LT(static_cast<double>(s.max_row), s.mean + 8 * std::sqrt(s.mean));
}

// Interior rows (no neighbour outside the grid) have exactly `points` entries summing
// to 0 with the diagonal equal to points - 1; boundary rows have fewer.
void check_stencil(const HostCsr<double>& a, int n, int dims, int points) {
  ASSERT_NO_THROW(mimd::validate(a, true));
  std::int64_t expected_rows = 1;
  for (int d = 0; d < dims; ++d) expected_rows *= n;
  ASSERT_EQ(a.nrows, expected_rows);
  std::int64_t interior = 0;
  for (std::int32_t r = 0; r < a.nrows; ++r) {
    std::int64_t x = r;
    bool inner = true;
    for (int d = 0; d < dims; ++d, x /= n) inner = inner && x % n > 0 && x % n < n - 1;
    const auto len = a.row_map(r + 1) - a.row_map(r);
    double sum = 0, diag = 0;
    for (auto j = a.row_map(r); j < a.row_map(r + 1); ++j) {
      sum += a.values(j);
      if (a.entries(j) == r)
        diag = a.values(j);
      else
        ASSERT_EQ(a.values(j), -1.0);
      ASSERT_TRUE(has_entry(a.pattern(), a.entries(j), r)) << "not symmetric at row " << r;
    }
    ASSERT_EQ(diag, points - 1.0) << "row " << r;
    if (inner) {
      ++interior;
      ASSERT_EQ(len, points) << "interior row " << r;
      ASSERT_EQ(sum, 0.0) << "interior row " << r;  // small integers: exact
    } else {
      ASSERT_LT(len, points) << "boundary row " << r;
      ASSERT_GT(sum, 0.0) << "boundary row " << r;
    }
  }
  std::int64_t expected_interior = 1;
  for (int d = 0; d < dims; ++d) expected_interior *= n - 2;
  EXPECT_EQ(interior, expected_interior);
}

TEST(Generators, Stencils) {
  check_stencil(mimd::stencil_2d(7, 5), 7, 2, 5);
  check_stencil(mimd::stencil_2d(7, 9), 7, 2, 9);
  check_stencil(mimd::stencil_3d(6, 7), 6, 3, 7);
  check_stencil(mimd::stencil_3d(6, 27), 6, 3, 27);
  EXPECT_EQ(mimd::stencil_2d(1, 5).nnz(), 1);
  EXPECT_THROW(mimd::stencil_2d(4, 7), mimd::InvalidArgument);
  EXPECT_THROW(mimd::stencil_3d(4, 9), mimd::InvalidArgument);
  EXPECT_THROW(mimd::stencil_3d(0, 7), mimd::InvalidArgument);
  EXPECT_THROW(mimd::stencil_3d(2000, 7), mimd::InvalidArgument);  // 8e9 rows
}

TEST(Generators, PowerLawHasLongRowsAndTheRequestedMean) {
  const std::int64_t rows = 20000, cols = 30000, long_len = 12000;
  const double mean = 8.0;
  const int long_rows = 3;
  const auto a = mimd::power_law(rows, cols, mean, 2.0, long_rows, long_len, 11);
  ASSERT_NO_THROW(mimd::validate(a, true));
  ASSERT_EQ(a.nrows, rows);
  ASSERT_EQ(a.ncols, cols);
  int found_long = 0;
  std::int64_t short_nnz = 0, short_max = 0;
  for (std::int32_t r = 0; r < a.nrows; ++r) {
    const auto len = a.row_map(r + 1) - a.row_map(r);
    if (len == long_len) {
      ++found_long;
    } else {
      short_nnz += len;
      short_max = std::max(short_max, len);
    }
  }
  EXPECT_EQ(found_long, long_rows);
  // The other rows: mean close to the request (stochastic rounding of rescaled Pareto
  // weights), a heavy tail (max far above the mean) and empty rows.
  const double short_mean = static_cast<double>(short_nnz) / static_cast<double>(rows - long_rows);
  EXPECT_NEAR(short_mean, mean, 0.05 * mean);
  EXPECT_GT(static_cast<double>(short_max), 100 * mean);
  EXPECT_GT(mimd::row_stats(a).empty_rows, 0);
  for (std::int64_t j = 0; j < a.nnz(); ++j) {
    ASSERT_GE(a.values(j), -1.0);
    ASSERT_LT(a.values(j), 1.0);
  }
  // long_len = 0 defaults to cols / 2; a dense long row (long_len = cols) works.
  const auto d = mimd::power_law(100, 64, 2.0, 2.5, 1, 0, 3);
  EXPECT_EQ(mimd::row_stats(d).max_row, 32);
  const auto full = mimd::power_law(100, 64, 2.0, 2.5, 2, 64, 3);
  EXPECT_EQ(mimd::row_stats(full).max_row, 64);
  EXPECT_NO_THROW(mimd::validate(full, true));
}

TEST(Generators, PowerLawRejectsBadArguments) {
  EXPECT_THROW(mimd::power_law(100, 100, 0.0), mimd::InvalidArgument);
  EXPECT_THROW(mimd::power_law(100, 100, 200.0), mimd::InvalidArgument);
  EXPECT_THROW(mimd::power_law(100, 100, 4.0, 1.0), mimd::InvalidArgument);
  EXPECT_THROW(mimd::power_law(100, 100, 4.0, 2.0, 101), mimd::InvalidArgument);
  EXPECT_THROW(mimd::power_law(100, 100, 4.0, 2.0, 1, 101), mimd::InvalidArgument);
  EXPECT_THROW(mimd::power_law(-1, 100, 4.0), mimd::InvalidArgument);
}

TEST(Generators, UniformMatrix) {
  const auto a = mimd::uniform_matrix(4000, 2500, 6.0, 4);
  ASSERT_NO_THROW(mimd::validate(a, true));
  EXPECT_EQ(a.nrows, 4000);
  EXPECT_EQ(a.ncols, 2500);
  // 24000 draws; expected duplicates ~ 4000 * C(6,2) / 2500 = 24.
  EXPECT_LE(a.nnz(), 24000);
  EXPECT_GE(a.nnz(), 23900);
  EXPECT_EQ(mimd::uniform_matrix(0, 10, 3.0).nnz(), 0);
  EXPECT_THROW(mimd::uniform_matrix(10, 10, 11.0), mimd::InvalidArgument);
}

TEST(Generators, GradedMatrixLoadsStaticRangesUnevenly) {
  const std::int64_t rows = 6000, cols = 9000;
  const double lo = 5, hi = 11;
  const auto a = mimd::graded_matrix(rows, cols, lo, hi, 4);
  ASSERT_NO_THROW(mimd::validate(a, true));
  ASSERT_EQ(a.nrows, rows);
  ASSERT_EQ(a.ncols, cols);
  EXPECT_NEAR(static_cast<double>(a.nnz()), rows * (lo + hi) / 2, 0.01 * rows * (lo + hi) / 2);
  // Two static ranges: (lo + 3 hi) / (2 (lo + hi)) of the mean, counting a row as one more.
  const double per_row_ranges = (lo + 1 + 3 * (hi + 1)) / (2 * (lo + 1 + hi + 1));
  EXPECT_NEAR(mimd::row_split_imbalance(a.row_map.data(), rows, 2), per_row_ranges, 0.01);
  const auto window = static_cast<std::int64_t>(8 * hi);
  for (std::int32_t r = 0; r < a.nrows; ++r) {
    const auto len = a.row_map(r + 1) - a.row_map(r);
    const double want = lo + (hi - lo) * r / (rows - 1.0);
    ASSERT_GE(len, std::floor(want)) << "row " << r;
    ASSERT_LE(len, std::ceil(want)) << "row " << r;
    const std::int64_t centre = static_cast<std::int64_t>(r) * cols / rows;
    for (auto j = a.row_map(r); j < a.row_map(r + 1); ++j)
      ASSERT_LE(std::abs(a.entries(j) - centre), window) << "row " << r;
  }
  // A window wider than the matrix is the whole row; lo = hi gives equal rows.
  const auto full = mimd::row_stats(mimd::graded_matrix(10, 10, 10, 10));
  EXPECT_EQ(full.nnz, 100);
  EXPECT_EQ(full.max_row, 10);
  EXPECT_EQ(mimd::graded_matrix(0, 10, 1, 2).nnz(), 0);
  EXPECT_THROW(mimd::graded_matrix(10, 10, -1, 2), mimd::InvalidArgument);
  EXPECT_THROW(mimd::graded_matrix(10, 10, 3, 2), mimd::InvalidArgument);
  EXPECT_THROW(mimd::graded_matrix(10, 10, 1, 11), mimd::InvalidArgument);
  EXPECT_THROW(mimd::graded_matrix(10, 0, 0, 0), mimd::InvalidArgument);
  const auto g = mimd::generate("graded:2000:3:9");
  EXPECT_EQ(g.nrows, 2000);
  EXPECT_NEAR(static_cast<double>(g.nnz()), 12000, 120);
  EXPECT_EQ(mimd::generate("graded:500").nrows, 500);
  EXPECT_THROW(mimd::generate("graded:100:9:3"), mimd::InvalidArgument);
  EXPECT_THROW(mimd::generate("graded:100:1:2:3"), mimd::InvalidArgument);
  EXPECT_FALSE(mimd::generates_symmetric("graded:100"));
}

// A spec is checked against the memory budget of a load before anything is allocated.
TEST(Generators, SpecsOverTheMemoryBudgetAreRefused) {
  for (const char* spec : {"powerlaw:2000000000:1000000", "graded:2000000000:1000:3000",
                           "uniform:2000000000:1000", "stencil3d:1290", "kron:30:1024"}) {
    SCOPED_TRACE(spec);
    try {
      mimd::generate(spec);
      ADD_FAILURE() << "no error";
    } catch (const mimd::InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("more than the memory budget"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find(spec), std::string::npos) << e.what();
    }
  }
  const mimd::testing::ScopedEnv budget("MIMD_MEMORY_BUDGET", "1M");
  // kron:12 stores up to 131072 entries: 3 MiB by the estimate.
  EXPECT_THROW(mimd::generate("kron:12"), mimd::InvalidArgument);
  EXPECT_THROW(mimd::generate("stencil2d:200"), mimd::InvalidArgument);  // 200000 entries
  EXPECT_EQ(mimd::generate("stencil2d:10").nrows, 100);
  EXPECT_EQ(mimd::generate("graded:1000:2:6").nrows, 1000);
}

TEST(Generators, GraphArgumentsChecked) {
  EXPECT_THROW(mimd::kronecker(0), mimd::InvalidArgument);
  EXPECT_THROW(mimd::kronecker(31), mimd::InvalidArgument);
  EXPECT_THROW(mimd::uniform_random(10, 0), mimd::InvalidArgument);
}

TEST(Generators, SpecsBuildTheNamedGenerator) {
  const auto k = mimd::generate("kron:10:4");
  EXPECT_EQ(k.nrows, 1024);
  expect_same(k.pattern(), mimd::kronecker(10, 4));
  for (std::int64_t j = 0; j < k.nnz(); ++j) ASSERT_EQ(k.values(j), 1.0);
  EXPECT_EQ(mimd::generate("urand:9").nrows, 512);
  EXPECT_EQ(mimd::row_stats(mimd::generate("stencil2d:10")).max_row, 5);
  EXPECT_EQ(mimd::row_stats(mimd::generate("stencil2d:10:9")).max_row, 9);
  EXPECT_EQ(mimd::row_stats(mimd::generate("stencil3d:5")).max_row, 27);
  EXPECT_EQ(mimd::row_stats(mimd::generate("stencil3d:5:7")).max_row, 7);
  const auto p = mimd::generate("powerlaw:2000:4:2.5:2");
  EXPECT_EQ(p.nrows, 2000);
  EXPECT_EQ(mimd::row_stats(p).max_row, 1000);
  EXPECT_EQ(mimd::generate("uniform:300:2.5").nrows, 300);
  EXPECT_TRUE(mimd::is_generator_spec("kron:20"));
  EXPECT_TRUE(mimd::is_generator_spec("powerlaw:"));
  EXPECT_FALSE(mimd::is_generator_spec("kron"));
  EXPECT_FALSE(mimd::is_generator_spec("matrix.mtx"));
  EXPECT_FALSE(mimd::is_generator_spec("C:/data/a.mtx"));
}

TEST(Generators, BadSpecsNameTheProblem) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"nope:3", "unknown generator 'nope'"},
      {"kron", "kron takes 1 to 2 fields, got 0"},
      {"kron:", "SCALE '' is not an integer"},
      {"kron:x", "SCALE 'x' is not an integer"},
      {"kron:12abc", "SCALE '12abc' is not an integer"},
      {"kron:0", "SCALE = 0 outside [1, 30]"},
      {"kron:31", "SCALE = 31 outside [1, 30]"},
      {"urand:10:0", "EF = 0 outside"},
      {"kron:10:16:3", "kron takes 1 to 2 fields, got 3"},
      {"stencil2d:10:7", "POINTS must be 5 or 9"},
      {"stencil3d:10:9", "POINTS must be 7 or 27"},
      {"stencil3d:2000", "N = 2000 outside"},
      {"powerlaw:100:abc", "MEAN 'abc' is not a finite number"},
      {"powerlaw:100:4:1", "EXP must be greater than 1"},
      {"powerlaw:100:4:2:101", "LONGROWS = 101 outside"},
      {"powerlaw:100:0", "MEAN must lie in (0, ROWS]"},
      {"uniform:100:nan", "PER_ROW 'nan' is not a finite number"},
      {"uniform:100:200", "PER_ROW must lie in [0, ROWS]"},
      {"uniform:-5", "ROWS = -5 outside"},
  };
  for (const auto& [spec, expected] : cases) {
    try {
      mimd::generate(spec);
      ADD_FAILURE() << spec << " did not throw";
    } catch (const mimd::InvalidArgument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("'" + spec + "'"), std::string::npos) << what;
      EXPECT_NE(what.find(expected), std::string::npos) << spec << ": " << what;
    }
  }
}

}  // namespace
