// The table of broken input files (tests/data/broken/TABLE.tsv): each file must raise
// mimd::ParseError of the listed kind, at the listed line, with a message holding the
// listed text and naming the file. Broken gzip and tar.gz inputs are made here.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>

#include "mimd/io.hpp"
#include "support/io_files.hpp"
#include "support/test_context.hpp"

namespace {

using mimd::ParseError;
using mimd::ParseErrorKind;
using mimd::testing::gzip;
using mimd::testing::parse_error_of;
using mimd::testing::tar;
using mimd::testing::TempDir;
using mimd::testing::write_file;

const std::string kBroken = std::string(MIMD_TEST_DATA_DIR) + "/broken";

ParseErrorKind kind_named(const std::string& name) {
  static const std::map<std::string, ParseErrorKind> kinds = {
      {"EmptyFile", ParseErrorKind::EmptyFile},
      {"BadBanner", ParseErrorKind::BadBanner},
      {"UnsupportedField", ParseErrorKind::UnsupportedField},
      {"BadSizeLine", ParseErrorKind::BadSizeLine},
      {"SizeOverflow", ParseErrorKind::SizeOverflow},
      {"NotANumber", ParseErrorKind::NotANumber},
      {"IndexOutOfRange", ParseErrorKind::IndexOutOfRange},
      {"TooFewEntries", ParseErrorKind::TooFewEntries},
      {"TooManyEntries", ParseErrorKind::TooManyEntries},
      {"Truncated", ParseErrorKind::Truncated},
      {"BadArchive", ParseErrorKind::BadArchive},
      {"NotText", ParseErrorKind::NotText},
      {"TooLarge", ParseErrorKind::TooLarge},
  };
  const auto it = kinds.find(name);
  if (it == kinds.end()) throw std::runtime_error("unknown ParseErrorKind in TABLE.tsv: " + name);
  return it->second;
}

// Reads `path` with the reader its extension names (.txt, .txt.gz: SNAP) and returns
// the error raised.
ParseError error_reading(const std::string& path) {
  mimd::ReadOptions opt;
  opt.progress = false;
  const bool snap = path.find(".txt") != std::string::npos;
  if (snap) return parse_error_of([&] { mimd::read_snap(path, opt); });
  return parse_error_of([&] { mimd::read_matrix_market<double>(path, opt); });
}

void expect_error(const ParseError& e, const std::string& file, ParseErrorKind kind,
                  std::uint64_t line, const std::string& contains) {
  EXPECT_EQ(e.kind(), kind) << "got '" << mimd::to_string(e.kind()) << "': " << e.what();
  EXPECT_EQ(e.line(), line) << e.what();
  EXPECT_NE(std::string(e.what()).find(contains), std::string::npos)
      << "message: " << e.what() << "\nexpected to contain: " << contains;
  EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find(mimd::to_string(kind)), std::string::npos) << e.what();
}

TEST(IoBroken, EveryFileOfTheTableRaisesItsError) {
  mimd::testing::context();
  std::ifstream table(kBroken + "/TABLE.tsv");
  ASSERT_TRUE(table) << kBroken << "/TABLE.tsv";
  std::string row;
  std::getline(table, row);
  ASSERT_EQ(row, "file\tkind\tline\tmessage_contains");
  int rows = 0;
  while (std::getline(table, row)) {
    if (row.empty()) continue;
    std::string f[4];
    std::size_t b = 0;
    for (int k = 0; k < 4; ++k) {
      const auto e = row.find('\t', b);
      ASSERT_TRUE(k == 3 || e != std::string::npos) << "malformed TABLE.tsv row: " << row;
      f[k] = row.substr(b, k == 3 ? std::string::npos : e - b);
      b = e + 1;
    }
    SCOPED_TRACE(f[0]);
    const std::string path = kBroken + "/" + f[0];
    expect_error(error_reading(path), path, kind_named(f[1]), std::stoull(f[2]), f[3]);
    ++rows;
  }
  EXPECT_GE(rows, 40);
}

TEST(IoBroken, MissingFileIsAnIoError) {
  mimd::testing::context();
  EXPECT_THROW(mimd::read_matrix_market<double>(kBroken + "/no-such-file.mtx"), mimd::IoError);
  EXPECT_THROW(mimd::read_snap(kBroken + "/no-such-file.txt"), mimd::IoError);
}

// Errors far into a file that is parsed in several chunks carry the global line.
TEST(IoBroken, LineNumbersAreGlobalAcrossParallelChunks) {
  mimd::testing::context();
  TempDir dir;
  const int n = 200000, bad = 173457;  // ~2.6 MB: several chunks
  std::string mm =
      "%%MatrixMarket matrix coordinate real general\n% c\n1000 1000 " + std::to_string(n) + "\n";
  std::string snap = "# c\n";
  for (int i = 0; i < n; ++i) {
    const std::string r = std::to_string(i % 1000 + 1), c = std::to_string(i / 200 % 1000 + 1);
    mm += r + " " + c + (i + 4 == bad ? " 1.5q\n" : " 1.25\n");
    snap += r + "\t" + (i + 2 == bad ? "z" : c) + "\n";
  }
  write_file(dir.file("big.mtx"), mm);
  write_file(dir.file("big.txt"), snap);
  expect_error(error_reading(dir.file("big.mtx")), "big.mtx", ParseErrorKind::NotANumber, bad,
               "'1.5q'");
  expect_error(error_reading(dir.file("big.txt")), "big.txt", ParseErrorKind::NotANumber, bad,
               "'z'");
  // One entry too many, at the very end.
  write_file(dir.file("many.mtx"), mm.replace(mm.find(" 1.5q"), 5, " 1.50") + "7 7 7\n");
  expect_error(error_reading(dir.file("many.mtx")), "many.mtx", ParseErrorKind::TooManyEntries,
               n + 4, "(text: '7 7 7')");
}

const std::string kGood =
    "%%MatrixMarket matrix coordinate real general\n"
    "3 3 3\n1 1 1.0\n2 2 2.0\n3 3 3.0\n";

TEST(IoBroken, TruncatedGzip) {
  mimd::testing::context();
  TempDir dir;
  std::string big = kGood;
  for (int i = 0; i < 2000; ++i) big += "% padding comment " + std::to_string(i) + "\n";
  const std::string gz = gzip(big);
  write_file(dir.file("t.mtx.gz"), gz.substr(0, gz.size() / 2));
  expect_error(error_reading(dir.file("t.mtx.gz")), "t.mtx.gz", ParseErrorKind::Truncated, 0,
               "gzip stream ends early");
  write_file(dir.file("h.mtx.gz"), gz.substr(0, 5));
  expect_error(error_reading(dir.file("h.mtx.gz")), "h.mtx.gz", ParseErrorKind::Truncated, 0,
               "gzip stream ends early");
}

TEST(IoBroken, CorruptGzip) {
  mimd::testing::context();
  TempDir dir;
  std::string gz = gzip(kGood);
  gz[gz.size() - 6] = static_cast<char>(gz[gz.size() - 6] ^ 0x5a);  // inside the CRC-32
  write_file(dir.file("c.mtx.gz"), gz);
  expect_error(error_reading(dir.file("c.mtx.gz")), "c.mtx.gz", ParseErrorKind::BadArchive, 0,
               "corrupt gzip data");
  write_file(dir.file("g.mtx.gz"), gzip(kGood) + "garbage");
  expect_error(error_reading(dir.file("g.mtx.gz")), "g.mtx.gz", ParseErrorKind::BadArchive, 0,
               "unexpected data after the end of the gzip stream");
}

TEST(IoBroken, ErrorInsideGzipNamesTheDecompressedLine) {
  mimd::testing::context();
  TempDir dir;
  write_file(dir.file("e.mtx.gz"), gzip("%%MatrixMarket matrix coordinate real general\n"
                                        "3 3 2\n1 1 1.0\n9 1 2.0\n"));
  expect_error(error_reading(dir.file("e.mtx.gz")), "e.mtx.gz", ParseErrorKind::IndexOutOfRange, 4,
               "row index 9 is outside [1, 3]");
  write_file(dir.file("e.txt.gz"), gzip("0 1\r\n1 2\r\n2 two\r\n"));
  expect_error(error_reading(dir.file("e.txt.gz")), "e.txt.gz", ParseErrorKind::NotANumber, 3,
               "(text: 'two')");
}

TEST(IoBroken, BadSuiteSparseArchives) {
  mimd::testing::context();
  TempDir dir;
  write_file(dir.file("none.tar.gz"), gzip(tar({{"none/README.txt", "no matrix here\n"}})));
  expect_error(error_reading(dir.file("none.tar.gz")), "none.tar.gz", ParseErrorKind::BadArchive, 0,
               "holds no .mtx file");
  write_file(dir.file("two.tar.gz"), gzip(tar({{"two/a.mtx", kGood}, {"two/b.mtx", kGood}})));
  expect_error(error_reading(dir.file("two.tar.gz")), "two.tar.gz", ParseErrorKind::BadArchive, 0,
               "two/a.mtx, two/b.mtx");
  // The gzip layer is complete but the tar inside is cut in the member's data.
  std::string big = kGood;
  for (int i = 0; i < 2000; ++i) big += "% padding comment " + std::to_string(i) + "\n";
  const std::string t = tar({{"cut/cut.mtx", big}});
  write_file(dir.file("cut.tar.gz"), gzip(t.substr(0, 512 + big.size() / 2)));
  expect_error(error_reading(dir.file("cut.tar.gz")), "cut.tar.gz", ParseErrorKind::Truncated, 0,
               "the archive member ends early");
  // The gzip layer itself is cut.
  const std::string gz = gzip(t);
  write_file(dir.file("cutgz.tar.gz"), gz.substr(0, gz.size() - 100));
  expect_error(error_reading(dir.file("cutgz.tar.gz")), "cutgz.tar.gz", ParseErrorKind::Truncated,
               0, "gzip stream ends early");
  // An error inside the member names the archive, the member and the member's line.
  write_file(dir.file("bad.tar.gz"), gzip(tar({{"bad/bad.mtx",
                                                "%%MatrixMarket matrix coordinate real general\n"
                                                "2 2 1\n1 1 x\n"}})));
  expect_error(error_reading(dir.file("bad.tar.gz")),
               "bad.tar.gz(bad/bad.mtx):3:", ParseErrorKind::NotANumber, 3, "'x'");
}

}  // namespace
