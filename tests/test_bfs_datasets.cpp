// BFS on every graph of the shared dataset folder (MANIFEST.tsv): each file as an
// undirected graph (symmetrised), and also as a directed one where the file is
// directed (Matrix Market "general", SNAP lists that store each edge once). Sources:
// random vertices with edges plus an isolated vertex when there is one. Complex and
// rectangular matrices are not graphs and are left out.
#include <gtest/gtest.h>

#include <cctype>
#include <ostream>
#include <string>
#include <vector>

#include "mimd/bfs.hpp"
#include "mimd/datasets.hpp"
#include "mimd/io.hpp"
#include "support/bfs_check.hpp"

namespace mimd {

// Test names and failure messages show the dataset's path, not its bytes.
void PrintTo(const ManifestEntry& m, std::ostream* os) {
  *os << m.path;
}

namespace {

using testing::check_all_algorithms;
using testing::pick_sources;

/// The manifest's square, non-complex entries (the others are not graphs).
std::vector<ManifestEntry> graphs() {
  const std::string dir = shared_dataset_dir();
  std::vector<ManifestEntry> out;
  if (dir.empty()) return out;
  for (const ManifestEntry& m : read_manifest(dir))
    if (!m.is_complex() && m.rows == m.cols) out.push_back(m);
  return out;
}

class BfsDataset : public ::testing::TestWithParam<ManifestEntry> {};

TEST_P(BfsDataset, AllAlgorithmsValidated) {
  const ManifestEntry& m = GetParam();
  const std::string path = shared_dataset_dir() + "/" + m.path;
  HostPattern stored;
  bool directed = false;
  if (m.is_snap()) {
    stored = read_snap(path);
    directed = m.format.find("each-edge-once") != std::string::npos;
  } else {
    stored = read_matrix_market<double>(path).pattern();
    directed = m.format.find("general") != std::string::npos;
  }
  const HostPattern sym = BfsGraph::symmetrize(stored);
  check_all_algorithms(BfsGraph::undirected(sym), pick_sources(sym, 2, 7), m.path + " undirected");
  if (directed)
    check_all_algorithms(BfsGraph::directed(stored), pick_sources(stored, 2, 7),
                         m.path + " directed");
}

std::string test_name(const ::testing::TestParamInfo<ManifestEntry>& info) {
  std::string name = info.param.short_name();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name + "_" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(Shared, BfsDataset, ::testing::ValuesIn(graphs()), test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(BfsDataset);

}  // namespace
}  // namespace mimd
