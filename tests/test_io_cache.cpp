// The binary CSR cache: created on the first load, reused on the next, rebuilt when
// the source changes (mtime, size, or leading bytes), rebuilt when corrupt (never
// trusted), kept apart per reader variant, and placed in $MIMD_CACHE_DIR when the
// source's folder is read-only.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include "mimd/io.hpp"
#include "support/io_files.hpp"
#include "support/test_context.hpp"

namespace {

using mimd::HostCsr;
using mimd::LoadStats;
using mimd::testing::read_file;
using mimd::testing::TempDir;
using mimd::testing::write_file;

const std::string kMatrix =
    "%%MatrixMarket matrix coordinate real symmetric\n"
    "4 4 5\n1 1 2.0\n2 1 -1.0\n3 2 0.25\n4 4 8.0\n4 1 3.0\n";

mimd::ReadOptions cached() {
  mimd::ReadOptions opt;
  opt.use_cache = true;
  opt.progress = false;
  return opt;
}

HostCsr<double> load(const std::string& path, LoadStats& st,
                     mimd::MatrixMarketInfo* info = nullptr) {
  return mimd::read_matrix_market<double>(path, cached(), info, &st);
}

void expect_same(const HostCsr<double>& a, const HostCsr<double>& b) {
  ASSERT_EQ(a.nrows, b.nrows);
  ASSERT_EQ(a.ncols, b.ncols);
  ASSERT_EQ(a.nnz(), b.nnz());
  for (int r = 0; r <= a.nrows; ++r) EXPECT_EQ(a.row_map(r), b.row_map(r));
  for (std::int64_t j = 0; j < a.nnz(); ++j) {
    EXPECT_EQ(a.entries(j), b.entries(j));
    EXPECT_EQ(a.values(j), b.values(j));
  }
}

// Sets the modification time of `path` to `seconds` after the epoch.
void set_mtime(const std::string& path, long seconds) {
  const timespec t[2] = {{seconds, 0}, {seconds, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), t, 0), 0);
}

TEST(IoCache, CreatedThenReused) {
  mimd::testing::context();
  TempDir dir;
  const std::string src = dir.file("m.mtx");
  write_file(src, kMatrix);
  LoadStats st;
  const auto a = load(src, st);
  EXPECT_FALSE(st.from_cache);
  EXPECT_EQ(st.bytes, kMatrix.size());
  EXPECT_GT(st.cache_bytes, 0u);
  ASSERT_TRUE(std::filesystem::exists(src + ".mm-f64.mimdcsr"));
  mimd::MatrixMarketInfo info;
  const auto b = load(src, st, &info);
  EXPECT_TRUE(st.from_cache);
  EXPECT_EQ(st.bytes, 0u);
  expect_same(a, b);
  // The banner information survives the cache.
  EXPECT_EQ(info.symmetry, "symmetric");
  EXPECT_EQ(info.field, "real");
  EXPECT_EQ(info.entries_stored, 5);
  EXPECT_EQ(info.rows, 4);
  // No temporary file is left behind.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 2);
}

TEST(IoCache, RebuiltWhenTheSourceChanges) {
  mimd::testing::context();
  TempDir dir;
  const std::string src = dir.file("m.mtx");
  write_file(src, kMatrix);
  set_mtime(src, 1000000000);
  LoadStats st;
  load(src, st);
  ASSERT_FALSE(st.from_cache);
  load(src, st);
  ASSERT_TRUE(st.from_cache);

  // Touched only: rebuilt once, then reused.
  set_mtime(src, 1000000100);
  load(src, st);
  EXPECT_FALSE(st.from_cache);
  load(src, st);
  EXPECT_TRUE(st.from_cache);

  // Same size, same mtime, other content: the checksum of the leading bytes catches it.
  std::string changed = kMatrix;
  changed.replace(changed.find("8.0"), 3, "9.5");
  write_file(src, changed);
  set_mtime(src, 1000000100);
  const auto a = load(src, st);
  EXPECT_FALSE(st.from_cache);
  EXPECT_EQ(a.values(a.nnz() - 1), 9.5);

  // Other size.
  write_file(src, changed + "% trailing comment\n");
  set_mtime(src, 1000000100);
  load(src, st);
  EXPECT_FALSE(st.from_cache);
  load(src, st);
  EXPECT_TRUE(st.from_cache);
}

TEST(IoCache, CorruptCacheIsRebuiltNeverTrusted) {
  mimd::testing::context();
  TempDir dir;
  const std::string src = dir.file("m.mtx");
  const std::string cache = src + ".mm-f64.mimdcsr";
  write_file(src, kMatrix);
  LoadStats st;
  const auto good = load(src, st);
  const std::string pristine = read_file(cache);
  ASSERT_GT(pristine.size(), 300u);
  // Flip one byte every 11 (header, row_map, entries, values) and the last one, then
  // cut the cache, extend it, replace it with garbage or empty it. Every time the
  // result is right and the cache is rewritten.
  const std::size_t n = pristine.size();
  std::vector<std::size_t> positions;
  for (std::size_t pos = 0; pos < n; pos += 11) positions.push_back(pos);
  positions.push_back(n - 1);
  int trusted = 0;
  for (const std::size_t pos : positions) {
    std::string bad = pristine;
    bad[pos] = static_cast<char>(bad[pos] ^ 0x10);
    write_file(cache, bad);
    const auto a = load(src, st);
    trusted += st.from_cache;
    expect_same(a, good);
    ASSERT_EQ(read_file(cache), pristine) << "byte " << pos;
  }
  EXPECT_EQ(trusted, 0);
  load(src, st);
  EXPECT_TRUE(st.from_cache);
  for (const std::string& bad :
       {pristine.substr(0, n / 2), pristine + "x", std::string(n, 'z'), std::string()}) {
    write_file(cache, bad);
    expect_same(load(src, st), good);
    EXPECT_FALSE(st.from_cache);
    EXPECT_EQ(read_file(cache), pristine);
  }
}

TEST(IoCache, VariantsAreKeptApart) {
  mimd::testing::context();
  TempDir dir;
  const std::string src = dir.file("g.txt");
  write_file(src, "0 1\n1 2\n");
  auto opt = cached();
  LoadStats st;
  const auto directed = mimd::read_snap(src, opt, &st);
  EXPECT_FALSE(st.from_cache);
  opt.symmetrize = true;
  const auto sym = mimd::read_snap(src, opt, &st);
  EXPECT_FALSE(st.from_cache);
  EXPECT_EQ(sym.nnz(), 4);
  const auto sym2 = mimd::read_snap(src, opt, &st);
  EXPECT_TRUE(st.from_cache);
  EXPECT_EQ(sym2.nnz(), 4);
  opt.symmetrize = false;
  const auto directed2 = mimd::read_snap(src, opt, &st);
  EXPECT_TRUE(st.from_cache);
  EXPECT_EQ(directed2.nnz(), 2);
  // read_matrix reuses the SNAP cache; float and double Matrix Market caches differ.
  const auto a = mimd::read_matrix<float>(src, opt, &st);
  EXPECT_TRUE(st.from_cache);
  EXPECT_EQ(a.nnz(), 2);
  const std::string m = dir.file("m.mtx");
  write_file(m, kMatrix);
  mimd::read_matrix_market<double>(m, cached(), nullptr, &st);
  mimd::read_matrix_market<float>(m, cached(), nullptr, &st);
  EXPECT_FALSE(st.from_cache);
  EXPECT_TRUE(std::filesystem::exists(m + ".mm-f32.mimdcsr"));
  mimd::read_matrix<float>(m, cached(), &st);
  EXPECT_TRUE(st.from_cache);
}

TEST(IoCache, ReadOnlyFolderUsesMimdCacheDir) {
  mimd::testing::context();
  TempDir data, caches;
  const std::string src = data.file("m.mtx");
  write_file(src, kMatrix);
  ASSERT_EQ(::chmod(data.path().c_str(), 0555), 0);
  const char* old = std::getenv("MIMD_CACHE_DIR");
  const std::string saved = old ? old : "";
  ::setenv("MIMD_CACHE_DIR", caches.path().c_str(), 1);
  LoadStats st;
  const auto a = load(src, st);
  EXPECT_FALSE(st.from_cache);
  const auto b = load(src, st);
  EXPECT_TRUE(st.from_cache);
  expect_same(a, b);
  EXPECT_FALSE(std::filesystem::exists(src + ".mm-f64.mimdcsr"));
  int cache_files = 0;
  for (const auto& e : std::filesystem::directory_iterator(caches.path()))
    cache_files += e.path().string().find("m.mtx-") != std::string::npos;
  EXPECT_EQ(cache_files, 1);
  if (old)
    ::setenv("MIMD_CACHE_DIR", saved.c_str(), 1);
  else
    ::unsetenv("MIMD_CACHE_DIR");
  ::chmod(data.path().c_str(), 0755);
}

}  // namespace
