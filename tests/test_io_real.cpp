// Every real file of the shared dataset folder, loaded and checked against its
// MANIFEST.tsv row: rows, cols and nnz (expanded for symmetric Matrix Market files;
// for SNAP edge lists rows = cols = max id + 1 and nnz = the stored edges, read as a
// directed pattern), and the longest row. The complex matrix must be rejected.
// Skipped when the folder is absent.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "mimd/datasets.hpp"
#include "mimd/io.hpp"
#include "support/io_files.hpp"
#include "support/test_context.hpp"

namespace {

struct Shared {
  std::string dir;
  std::vector<mimd::ManifestEntry> entries;
};

Shared shared() {
  Shared s;
  s.dir = mimd::shared_dataset_dir();
  if (!s.dir.empty()) s.entries = mimd::read_manifest(s.dir);
  return s;
}

mimd::ReadOptions quiet() {
  mimd::ReadOptions opt;
  opt.progress = false;
  return opt;
}

void check_entry(const std::string& dir, const mimd::ManifestEntry& e) {
  SCOPED_TRACE(e.path + " (" + e.name + ")");
  const std::string path = dir + "/" + e.path;
  if (e.is_complex()) {
    try {
      mimd::read_matrix_market<double>(path, quiet());
      ADD_FAILURE() << "a complex matrix was accepted";
    } catch (const mimd::ParseError& err) {
      EXPECT_EQ(err.kind(), mimd::ParseErrorKind::UnsupportedField) << err.what();
      EXPECT_EQ(err.line(), 1u);
    }
    return;
  }
  mimd::RowStats st;
  if (e.is_snap()) {
    const auto g = mimd::read_snap(path, quiet());
    mimd::validate(g, true);
    EXPECT_EQ(g.nrows, e.rows);
    EXPECT_EQ(g.ncols, e.cols);
    EXPECT_EQ(g.nnz(), e.nnz_stored);
    st = mimd::row_stats(g);
  } else {
    mimd::MatrixMarketInfo info;
    const auto a = mimd::read_matrix_market<double>(path, quiet(), &info);
    mimd::validate(a, true);
    EXPECT_EQ(a.nrows, e.rows);
    EXPECT_EQ(a.ncols, e.cols);
    EXPECT_EQ(info.entries_stored, e.nnz_stored);
    EXPECT_EQ(a.nnz(), e.nnz_expanded);
    EXPECT_EQ("matrixmarket " + info.format + " " + info.field + " " + info.symmetry, e.format);
    st = mimd::row_stats(a);
  }
  EXPECT_EQ(st.max_row, e.max_row_len);
}

// One test per folder of the shared dataset tree, so that each shows up in ctest.
void check_folder(const std::string& folder) {
  mimd::testing::context();
  const Shared s = shared();
  if (s.dir.empty()) GTEST_SKIP() << "no shared dataset folder (set MIMD_DATASETS)";
  int n = 0;
  for (const auto& e : s.entries)
    if (e.path.rfind(folder + "/", 0) == 0) {
      check_entry(s.dir, e);
      ++n;
    }
  if (n == 0) GTEST_SKIP() << "no file under " << s.dir << "/" << folder;
}

TEST(IoReal, SuiteSparse) {
  check_folder("suitesparse");
}
TEST(IoReal, Snap) {
  check_folder("snap");
}
TEST(IoReal, SuiteSparseLarge) {
  check_folder("suitesparse-large");
}
TEST(IoReal, SnapLarge) {
  check_folder("snap-large");
}

std::vector<std::int64_t> sorted_degrees(const mimd::HostPattern& g) {
  std::vector<std::int64_t> d;
  for (int r = 0; r < g.nrows; ++r) d.push_back(g.row_map(r + 1) - g.row_map(r));
  std::sort(d.begin(), d.end());
  return d;
}

// The same collaboration graph in both collections: SNAP ids are sparse and both
// directions are stored, SuiteSparse renumbered it 1..5242 and stores one triangle.
TEST(IoReal, CaGrQcSameGraphInBothReaders) {
  mimd::testing::context();
  const Shared s = shared();
  if (s.dir.empty()) GTEST_SKIP() << "no shared dataset folder (set MIMD_DATASETS)";
  auto opt = quiet();
  opt.compact_ids = true;
  const auto snap = mimd::read_snap(mimd::find_dataset("CA-GrQc"), opt);
  const auto mm = mimd::read_matrix_market<double>(mimd::find_dataset("ca-GrQc"), quiet());
  EXPECT_EQ(snap.nrows, 5242);
  EXPECT_EQ(mm.nrows, 5242);
  EXPECT_EQ(snap.nnz(), mm.nnz());
  EXPECT_EQ(sorted_degrees(snap), sorted_degrees(mm.pattern()));
  // Symmetrising changes nothing: both directions are already stored.
  opt.symmetrize = true;
  EXPECT_EQ(mimd::read_snap(mimd::find_dataset("CA-GrQc"), opt).nnz(), snap.nnz());
}

// Throughput of the reader on the largest inputs, cold and from the binary cache
// (the cache goes to a fresh $MIMD_CACHE_DIR, so that the first load is cold).
// Prints the figures; asserts only that the cache is used and gives the same matrix.
TEST(IoReal, LoadThroughputColdAndCached) {
  mimd::testing::context();
  const Shared s = shared();
  if (s.dir.empty()) GTEST_SKIP() << "no shared dataset folder (set MIMD_DATASETS)";
  mimd::testing::TempDir caches;
  const mimd::testing::ScopedEnv cache_dir("MIMD_CACHE_DIR", caches.path());
  auto opt = quiet();
  opt.use_cache = true;
  for (const char* name : {"coAuthorsDBLP", "soc-Slashdot0902"}) {
    std::string path;
    try {
      path = mimd::find_dataset(name);
    } catch (const mimd::IoError&) {
      continue;
    }
    mimd::LoadStats cold, warm;
    const bool snap = path.find(".txt") != std::string::npos;
    std::int64_t nnz_cold = 0, nnz_warm = 0;
    if (snap) {
      nnz_cold = mimd::read_snap(path, opt, &cold).nnz();
      nnz_warm = mimd::read_snap(path, opt, &warm).nnz();
    } else {
      nnz_cold = mimd::read_matrix_market<double>(path, opt, nullptr, &cold).nnz();
      nnz_warm = mimd::read_matrix_market<double>(path, opt, nullptr, &warm).nnz();
    }
    EXPECT_FALSE(cold.from_cache) << name;
    EXPECT_TRUE(warm.from_cache) << name;
    EXPECT_EQ(nnz_cold, nnz_warm) << name;
    std::printf(
        "[ io      ] %-17s %9lld nnz  cold: %.3f s, %.1f MB text, %.0f MB/s  "
        "cache: %.3f s, %.1f MB, %.0f MB/s (%.1fx faster)\n",
        name, static_cast<long long>(nnz_cold), cold.seconds, cold.bytes / 1e6,
        cold.bytes / 1e6 / cold.seconds, warm.seconds, warm.cache_bytes / 1e6,
        warm.cache_bytes / 1e6 / warm.seconds, cold.seconds / warm.seconds);
  }
}

}  // namespace
