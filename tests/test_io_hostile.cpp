// Hostile input found by trying the tools as a new user would: files whose headers
// claim more memory than the machine has, gzip bombs, huge tokens, and paths that are
// not regular files. Each must end quickly in a typed error that names the file, the
// line and the claim; nothing may be allocated from an unchecked claim. The large
// inputs are generated here, in a temporary folder.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <string>

#include "mimd/io.hpp"
#include "support/io_files.hpp"
#include "support/test_context.hpp"

namespace {

using mimd::ParseError;
using mimd::ParseErrorKind;
using mimd::testing::parse_error_of;
using mimd::testing::TempDir;
using mimd::testing::write_file;

// Sets MIMD_MEMORY_BUDGET for the life of the object.
class Budget : public mimd::testing::ScopedEnv {
 public:
  explicit Budget(const char* value) : ScopedEnv("MIMD_MEMORY_BUDGET", value) {}
};

mimd::ReadOptions quiet() {
  mimd::ReadOptions opt;
  opt.progress = false;
  return opt;
}

template <class Read>
std::string io_error_of(Read read) {
  try {
    read();
  } catch (const mimd::IoError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no IoError raised";
  return {};
}

void expect_contains(const std::string& message, const std::string& part) {
  EXPECT_NE(message.find(part), std::string::npos) << message << "\nshould contain: " << part;
}

// gzip of `block` repeated `times` times, deflated as a stream (fast level).
std::string gzip_repeated(const std::string& block, int times) {
  z_stream zs{};
  if (deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("deflateInit2 failed");
  std::string out, buf(1 << 20, '\0');
  for (int i = 0; i <= times; ++i) {
    const bool last = i == times;
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(block.data()));
    zs.avail_in = last ? 0 : static_cast<uInt>(block.size());
    int rc;
    do {
      zs.next_out = reinterpret_cast<Bytef*>(buf.data());
      zs.avail_out = static_cast<uInt>(buf.size());
      rc = deflate(&zs, last ? Z_FINISH : Z_NO_FLUSH);
      out.append(buf.data(), buf.size() - zs.avail_out);
    } while (zs.avail_out == 0 || (last && rc != Z_STREAM_END));
  }
  deflateEnd(&zs);
  return out;
}

// The 78-byte file of the report: a valid one-entry matrix of 2^31 - 1 rows, whose
// row offsets alone would take 16 GiB (the reader allocated them: std::bad_alloc).
TEST(IoHostile, SizeLineOf2To31RowsIsRefusedByTheMemoryBudget) {
  mimd::testing::context();
  TempDir dir;
  const std::string path = dir.file("huge_rows.mtx");
  const std::string text =
      "%%MatrixMarket matrix coordinate real general\n2147483647 2147483647 1\n1 1 1.0\n";
  ASSERT_EQ(text.size(), 78u);
  write_file(path, text);
  Budget budget("1G");
  const ParseError e = parse_error_of([&] { mimd::read_matrix_market<double>(path, quiet()); });
  EXPECT_EQ(e.kind(), ParseErrorKind::TooLarge) << e.what();
  EXPECT_EQ(e.line(), 2u);
  expect_contains(e.what(), path);
  expect_contains(e.what(), "2147483647x2147483647 matrix with 1 entries");
  expect_contains(e.what(), "row offsets alone: 16.0 GiB");
  expect_contains(e.what(), "memory budget of 1.0 GiB (MIMD_MEMORY_BUDGET)");
}

// A claim of 10^12 entries that the file's 2 MiB cannot hold fails at the size line,
// before the data is parsed.
TEST(IoHostile, EntryClaimBeyondTheFileBytesFailsFast) {
  mimd::testing::context();
  TempDir dir;
  const std::string path = dir.file("claims.mtx");
  std::string text = "%%MatrixMarket matrix coordinate real general\n3 3 1000000000000\n";
  while (text.size() < (2 << 20)) text += "% " + std::string(1000, 'c') + "\n";
  write_file(path, text + "1 1 1.0\n");
  const ParseError e = parse_error_of([&] { mimd::read_matrix_market<double>(path, quiet()); });
  EXPECT_EQ(e.kind(), ParseErrorKind::TooFewEntries) << e.what();
  EXPECT_EQ(e.line(), 2u);
  expect_contains(e.what(), path);
  expect_contains(e.what(), "declares 1000000000000 entries, which need at least 6 bytes each");
}

// The one-edge SNAP file of the report: the id 2147483646 sizes a graph of 2^31 - 1
// vertices.
TEST(IoHostile, SnapIdOf2To31IsRefusedByTheMemoryBudget) {
  mimd::testing::context();
  TempDir dir;
  const std::string path = dir.file("huge_id.txt");
  write_file(path, "# one edge\n0 2147483646\n");
  Budget budget("1G");
  const ParseError e = parse_error_of([&] { mimd::read_snap(path, quiet()); });
  EXPECT_EQ(e.kind(), ParseErrorKind::TooLarge) << e.what();
  EXPECT_EQ(e.line(), 2u);
  expect_contains(e.what(), path);
  expect_contains(e.what(), "the id 2147483646 makes a graph of 2147483647 vertices");
  expect_contains(e.what(), "compact_ids");
  expect_contains(e.text(), "0 2147483646");
  // Numbering only the ids used needs two vertices.
  auto opt = quiet();
  opt.compact_ids = true;
  EXPECT_EQ(mimd::read_snap(path, opt).nrows, 2);
}

// `head -c 4G /dev/zero | gzip` (here 256 MiB): the inflation ends at the first NUL
// byte, instead of running for minutes to gigabytes.
TEST(IoHostile, GzipOfZerosEndsAtTheFirstNulByte) {
  mimd::testing::context();
  TempDir dir;
  const std::string path = dir.file("zeros.gz");
  write_file(path, gzip_repeated(std::string(1 << 20, '\0'), 256));
  for (const bool snap : {false, true}) {
    const ParseError e = parse_error_of([&] {
      if (snap)
        mimd::read_snap(path, quiet());
      else
        mimd::read_matrix<double>(path, quiet());
    });
    EXPECT_EQ(e.kind(), ParseErrorKind::NotText) << e.what();
    expect_contains(e.what(), path);
    expect_contains(e.what(), "NUL byte at uncompressed offset 0");
  }
}

// A gzip of valid-looking text that inflates past the memory budget ends there.
TEST(IoHostile, GzipInflatingPastTheBudgetIsTooLarge) {
  mimd::testing::context();
  TempDir dir;
  const std::string path = dir.file("bomb.txt.gz");
  std::string block;
  while (block.size() < (1 << 20)) block += "0 1\n";
  write_file(path, gzip_repeated(block, 64));
  Budget budget("16M");
  const ParseError e = parse_error_of([&] { mimd::read_snap(path, quiet()); });
  EXPECT_EQ(e.kind(), ParseErrorKind::TooLarge) << e.what();
  expect_contains(e.what(), path);
  expect_contains(e.what(), "inflates to more than the memory budget of 16.0 MiB");
}

// A plain file larger than the budget is refused before it is read.
TEST(IoHostile, FileLargerThanTheBudgetIsRefusedBeforeReading) {
  mimd::testing::context();
  TempDir dir;
  const std::string path = dir.file("big.txt");
  std::string text;
  while (text.size() < (2 << 20)) text += "0 1\n";
  write_file(path, text);
  Budget budget("1M");
  const ParseError e = parse_error_of([&] { mimd::read_snap(path, quiet()); });
  EXPECT_EQ(e.kind(), ParseErrorKind::TooLarge) << e.what();
  expect_contains(e.what(), "the file holds 2.0 MiB, more than the memory budget of 1.0 MiB");
}

// A 1 MiB token: the message quotes its start and its length, not the whole token
// (the message used to be built from the whole 1 GB token).
TEST(IoHostile, HugeTokenIsCutInTheMessage) {
  mimd::testing::context();
  TempDir dir;
  const std::string snap = dir.file("token.txt");
  write_file(snap, "0 " + std::string(1 << 20, '7') + "x\n");
  const ParseError e = parse_error_of([&] { mimd::read_snap(snap, quiet()); });
  EXPECT_EQ(e.kind(), ParseErrorKind::NotANumber) << e.what();
  EXPECT_LT(std::string(e.what()).size(), 400u);
  expect_contains(e.what(), "... (1048577 bytes)");
  const std::string mm = dir.file("token.mtx");
  write_file(mm, "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 " +
                     std::string(1 << 20, 'y') + "\n");
  const ParseError f = parse_error_of([&] { mimd::read_matrix_market<double>(mm, quiet()); });
  EXPECT_EQ(f.kind(), ParseErrorKind::NotANumber) << f.what();
  EXPECT_LT(std::string(f.what()).size(), 400u);
}

// A directory gave std::length_error (ftell returned LONG_MAX).
TEST(IoHostile, DirectoryIsAnIoError) {
  mimd::testing::context();
  TempDir dir;
  const std::string m = io_error_of([&] { mimd::read_matrix<double>(dir.path(), quiet()); });
  expect_contains(m, dir.path());
  expect_contains(m, "it is a directory, not a regular file");
}

// A FIFO blocked forever in fopen (waiting for a writer); it is refused before open.
// Also through the cache, which examines the source first.
TEST(IoHostile, FifoIsRefusedBeforeOpenBlocks) {
  mimd::testing::context();
  TempDir dir;
  const std::string fifo = dir.file("pipe.mtx");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const bool cache : {false, true}) {
    auto done = std::async(std::launch::async, [&] {
      auto opt = quiet();
      opt.use_cache = cache;
      return io_error_of([&] { mimd::read_matrix_market<double>(fifo, opt); });
    });
    if (done.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
      ADD_FAILURE() << "reading a FIFO blocked";
      std::_Exit(1);  // the reader thread cannot be joined
    }
    expect_contains(done.get(), "it is a FIFO (named pipe), not a regular file");
  }
}

// A device (/dev/zero would be read forever) is refused.
TEST(IoHostile, DeviceIsRefused) {
  mimd::testing::context();
  const std::string m = io_error_of([&] { mimd::read_snap("/dev/zero", quiet()); });
  expect_contains(m, "/dev/zero: cannot read: it is a character device, not a regular file");
}

}  // namespace
