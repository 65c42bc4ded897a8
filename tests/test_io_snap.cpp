// SNAP edge-list reader and writer on hand-made files: comments, tab or space
// separators, CRLF, a last line without newline, sparse ids, compaction,
// symmetrisation, gzip, auto-detection by read_matrix, and write/read round trips.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

#include "mimd/io.hpp"
#include "support/io_files.hpp"
#include "support/test_context.hpp"

namespace {

using mimd::HostPattern;
using mimd::testing::gzip;
using mimd::testing::TempDir;
using mimd::testing::write_file;

using Edges = std::set<std::pair<int, int>>;

Edges edges_of(const HostPattern& g) {
  mimd::validate(g, /*require_sorted=*/true);
  Edges e;
  for (int r = 0; r < g.nrows; ++r)
    for (auto j = g.row_map(r); j < g.row_map(r + 1); ++j) e.insert({r, g.entries(j)});
  return e;
}

HostPattern read_text(const TempDir& dir, const std::string& name, const std::string& text,
                      bool symmetrize = false, bool compact = false) {
  write_file(dir.file(name), text);
  mimd::ReadOptions opt;
  opt.progress = false;
  opt.symmetrize = symmetrize;
  opt.compact_ids = compact;
  return mimd::read_snap(dir.file(name), opt);
}

const std::string kGraph =
    "# Directed graph (each unordered pair of nodes is saved once): toy.txt\n"
    "# Nodes: 4 Edges: 5\n"
    "# FromNodeId\tToNodeId\n"
    "0\t1\n"
    "1 2\n"
    "\n"
    "  2\t \t0  \n"
    "# a comment in the middle\n"
    "2\t2\n"
    "7\t0\n";

TEST(IoSnap, CommentsSeparatorsAndSparseIds) {
  mimd::testing::context();
  TempDir dir;
  const auto g = read_text(dir, "g.txt", kGraph);
  // Sized by the largest id (7): ids 3..6 are isolated vertices.
  EXPECT_EQ(g.nrows, 8);
  EXPECT_EQ(g.ncols, 8);
  EXPECT_EQ(edges_of(g), (Edges{{0, 1}, {1, 2}, {2, 0}, {2, 2}, {7, 0}}));
}

TEST(IoSnap, CrlfAndMissingFinalNewline) {
  mimd::testing::context();
  TempDir dir;
  std::string crlf;
  for (char c : kGraph) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  const Edges expect{{0, 1}, {1, 2}, {2, 0}, {2, 2}, {7, 0}};
  EXPECT_EQ(edges_of(read_text(dir, "crlf.txt", crlf)), expect);
  EXPECT_EQ(edges_of(read_text(dir, "nonl.txt", kGraph.substr(0, kGraph.size() - 1))), expect);
  EXPECT_EQ(edges_of(read_text(dir, "crlf-nonl.txt", crlf.substr(0, crlf.size() - 2))), expect);
  EXPECT_EQ(edges_of(read_text(dir, "one.txt", "5 3")), (Edges{{5, 3}}));
}

TEST(IoSnap, CompactIdsRenumbersInIncreasingOrder) {
  mimd::testing::context();
  TempDir dir;
  const auto g =
      read_text(dir, "g.txt", "# sparse ids\n100 7\n7 3000\n3000 100\n42 42\n", false, true);
  // Used ids 7, 42, 100, 3000 become 0, 1, 2, 3.
  EXPECT_EQ(g.nrows, 4);
  EXPECT_EQ(edges_of(g), (Edges{{2, 0}, {0, 3}, {3, 2}, {1, 1}}));
}

TEST(IoSnap, SymmetrizeStoresBothDirectionsOnce) {
  mimd::testing::context();
  TempDir dir;
  const auto g = read_text(dir, "g.txt", "0 1\n1 0\n1 2\n3 3\n", true);
  EXPECT_EQ(g.nrows, 4);
  EXPECT_EQ(edges_of(g), (Edges{{0, 1}, {1, 0}, {1, 2}, {2, 1}, {3, 3}}));
  const auto both = read_text(dir, "h.txt", "10 20\n20 30\n", true, true);
  EXPECT_EQ(edges_of(both), (Edges{{0, 1}, {1, 0}, {1, 2}, {2, 1}}));
}

TEST(IoSnap, RepeatedEdgesAreMerged) {
  mimd::testing::context();
  TempDir dir;
  const auto g = read_text(dir, "g.txt", "0 1\n0 1\n1 0\n0 1\n");
  EXPECT_EQ(g.nnz(), 2);
  EXPECT_EQ(edges_of(g), (Edges{{0, 1}, {1, 0}}));
}

TEST(IoSnap, GzipAndReadMatrixDetection) {
  mimd::testing::context();
  TempDir dir;
  const Edges expect = edges_of(read_text(dir, "g.txt", kGraph));
  write_file(dir.file("g.txt.gz"), gzip(kGraph));
  mimd::ReadOptions opt;
  opt.progress = false;
  mimd::LoadStats st;
  EXPECT_EQ(edges_of(mimd::read_snap(dir.file("g.txt.gz"), opt, &st)), expect);
  EXPECT_EQ(st.bytes, kGraph.size());
  EXPECT_FALSE(st.from_cache);
  // read_matrix picks the SNAP reader from the content and gives every edge value 1.
  const auto a = mimd::read_matrix<double>(dir.file("g.txt.gz"), opt);
  EXPECT_EQ(edges_of(a.pattern()), expect);
  for (std::int64_t j = 0; j < a.nnz(); ++j) EXPECT_EQ(a.values(j), 1.0);
}

TEST(IoSnap, WriteReadRoundTrip) {
  mimd::testing::context();
  TempDir dir;
  const auto g = read_text(dir, "g.txt", kGraph);
  mimd::write_snap(dir.file("out.txt"), g);
  mimd::ReadOptions opt;
  opt.progress = false;
  const auto h = mimd::read_snap(dir.file("out.txt"), opt);
  EXPECT_EQ(h.nrows, g.nrows);
  EXPECT_EQ(edges_of(h), edges_of(g));
  // The header holds the counts.
  const std::string text = mimd::testing::read_file(dir.file("out.txt"));
  EXPECT_NE(text.find("# Nodes: 8 Edges: 5\n"), std::string::npos) << text;
  EXPECT_THROW(mimd::write_snap("/nonexistent-dir/x.txt", g), mimd::IoError);
}

TEST(IoSnap, LargeFileParsedInChunksMatchesExpectedEdges) {
  mimd::testing::context();
  TempDir dir;
  // ~3 MB so that the parser cuts it into several chunks; CRLF and no final newline.
  std::string text = "# big\r\n";
  Edges expect;
  for (std::int64_t i = 0; i < 300000; ++i) {
    const int s = static_cast<int>(i * 7919 % 50021),
              d = static_cast<int>((i * 104729 + 13) % 50021);
    text += std::to_string(s) + "\t" + std::to_string(d) + "\r\n";
    expect.insert({s, d});
  }
  text.resize(text.size() - 2);
  const auto g = read_text(dir, "big.txt", text);
  EXPECT_EQ(g.nnz(), static_cast<std::int64_t>(expect.size()));
  EXPECT_EQ(edges_of(g), expect);
}

}  // namespace
