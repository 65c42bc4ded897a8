// The binary CSR cache: created on the first load in the cache folder ($MIMD_CACHE_DIR
// here), never beside the data, reused on the next, rebuilt when the source changes
// (mtime, size, leading or trailing bytes), rebuilt when corrupt or forged (never
// trusted), kept apart per reader variant; a read-only data folder is the normal case.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zlib.h>

#include <cstring>
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

// Points MIMD_CACHE_DIR at a fresh temporary folder for the life of the object.
class CacheDir {
 public:
  CacheDir() : env_("MIMD_CACHE_DIR", dir_.path()) {}
  /// The files in the folder.
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(dir_.path()))
      out.push_back(e.path().string());
    return out;
  }
  /// The one cache file of `variant` (fails the test when there is not exactly one).
  std::string cache_of(const std::string& variant) const {
    std::vector<std::string> found;
    for (const auto& f : files())
      if (f.size() > variant.size() + 8 &&
          f.compare(f.size() - variant.size() - 8, std::string::npos, variant + ".mimdcsr") == 0)
        found.push_back(f);
    EXPECT_EQ(found.size(), 1u) << variant;
    return found.empty() ? std::string() : found[0];
  }

 private:
  TempDir dir_;
  mimd::testing::ScopedEnv env_;
};

// A source file m.mtx holding kMatrix, its cache going to a fresh MIMD_CACHE_DIR.
struct Source {
  TempDir dir;
  CacheDir caches;
  std::string src = dir.file("m.mtx");
  Source() {
    mimd::testing::context();
    write_file(src, kMatrix);
  }
};

// The number of entries in folder `dir`.
int count_files(const std::string& dir) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) n += !e.path().empty();
  return n;
}

// Sets the modification time of `path` to `seconds` after the epoch.
void set_mtime(const std::string& path, long seconds) {
  const timespec t[2] = {{seconds, 0}, {seconds, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), t, 0), 0);
}

TEST(IoCache, CreatedThenReused) {
  Source s;
  const std::string& src = s.src;
  LoadStats st;
  const auto a = load(src, st);
  EXPECT_FALSE(st.from_cache);
  EXPECT_EQ(st.bytes, kMatrix.size());
  EXPECT_GT(st.cache_bytes, 0u);
  EXPECT_NE(s.caches.cache_of("mm-f64").find("/m.mtx-"), std::string::npos);
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
  // Nothing beside the data; no temporary file left behind.
  EXPECT_EQ(count_files(s.dir.path()), 1);
  EXPECT_EQ(s.caches.files().size(), 1u);
}

TEST(IoCache, RebuiltWhenTheSourceChanges) {
  Source s;
  const std::string& src = s.src;
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
  Source s;
  const std::string& src = s.src;
  LoadStats st;
  const auto good = load(src, st);
  const std::string cache = s.caches.cache_of("mm-f64");
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
  CacheDir caches;
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
  EXPECT_NE(caches.cache_of("mm-f32").find("/m.mtx-"), std::string::npos);
  mimd::read_matrix<float>(m, cached(), &st);
  EXPECT_TRUE(st.from_cache);
}

TEST(IoCache, ReadOnlyDataFolderIsTheNormalCase) {
  mimd::testing::context();
  TempDir data;
  CacheDir caches;
  const std::string src = data.file("m.mtx");
  write_file(src, kMatrix);
  ASSERT_EQ(::chmod(data.path().c_str(), 0555), 0);
  LoadStats st;
  const auto a = load(src, st);
  EXPECT_FALSE(st.from_cache);
  const auto b = load(src, st);
  EXPECT_TRUE(st.from_cache);
  expect_same(a, b);
  EXPECT_EQ(count_files(data.path()), 1);
  EXPECT_EQ(caches.files().size(), 1u);
  ::chmod(data.path().c_str(), 0755);
}

// Same size and mtime, same first 64 KiB, another last byte: the tail checksum catches it.
TEST(IoCache, RebuiltWhenOnlyTheTailChanges) {
  mimd::testing::context();
  TempDir dir;
  CacheDir caches;
  const std::string src = dir.file("m.mtx");
  const std::string padding = "%" + std::string(70000, 'p') + "\n";
  write_file(src, kMatrix + padding + "% 1\n");
  set_mtime(src, 1000000000);
  LoadStats st;
  load(src, st);
  load(src, st);
  ASSERT_TRUE(st.from_cache);
  write_file(src, kMatrix + padding + "% 2\n");
  set_mtime(src, 1000000000);
  load(src, st);
  EXPECT_FALSE(st.from_cache);
}

// Found by trying the tools: a header forged with nnz = (2^64 + 8) / 12 and valid CRCs
// made nnz * 12 wrap to 8, passed the size check and let a Kokkos allocation error
// escape cache_load (documented never to throw).
TEST(IoCache, ForgedNnzThatWrapsTheSizeCheckIsNotTrusted) {
  Source s;
  const std::string& src = s.src;
  LoadStats st;
  const auto good = load(src, st);
  const std::string cache = s.caches.cache_of("mm-f64");
  std::string forged = read_file(cache);
  // Header layout (version 2): nrows at 72, nnz at 88, payload_bytes at 200, the
  // header CRC at 212 over the bytes before it, 216 bytes in all; payload CRC at 36.
  constexpr std::size_t kHeader = 216;
  ASSERT_GT(forged.size(), kHeader);
  std::int64_t nrows = 0;
  std::memcpy(&nrows, &forged[72], 8);
  ASSERT_EQ(nrows, 4);
  const std::uint64_t nnz = 1537228672809129302ull;  // (2^64 + 8) / 12
  ASSERT_EQ(nnz * 12, 8u);                           // wraps
  const std::uint64_t payload = static_cast<std::uint64_t>(nrows + 1) * 8 + nnz * 12;
  forged.resize(kHeader + payload);
  std::memcpy(&forged[88], &nnz, 8);
  std::memcpy(&forged[200], &payload, 8);
  const auto payload_crc = static_cast<std::uint32_t>(crc32(
      0, reinterpret_cast<const Bytef*>(forged.data() + kHeader), static_cast<uInt>(payload)));
  std::memcpy(&forged[36], &payload_crc, 4);
  const auto header_crc =
      static_cast<std::uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(forged.data()), 212));
  std::memcpy(&forged[212], &header_crc, 4);
  write_file(cache, forged);
  const auto a = load(src, st);
  EXPECT_FALSE(st.from_cache);
  expect_same(a, good);
}

}  // namespace
