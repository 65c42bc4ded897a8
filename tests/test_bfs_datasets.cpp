// BFS on every graph of the shared dataset folder (MANIFEST.tsv): each file as an
// undirected graph (symmetrised), and also as a directed one where the file is
// directed (Matrix Market "general", SNAP lists that store each edge once). Sources:
// random vertices with edges plus an isolated vertex when there is one. Complex and
// rectangular matrices are not graphs and are skipped.
#include <gtest/gtest.h>

#include <cctype>
#include <random>
#include <string>
#include <vector>

#include "mimd/bfs.hpp"
#include "mimd/datasets.hpp"
#include "mimd/io.hpp"
#include "support/bfs_check.hpp"

namespace mimd {
namespace {

using testing::check_all_algorithms;

std::vector<ManifestEntry> manifest() {
  const std::string dir = shared_dataset_dir();
  return dir.empty() ? std::vector<ManifestEntry>{} : read_manifest(dir);
}

std::vector<std::int32_t> pick_sources(const HostPattern& g) {
  std::vector<std::int32_t> sources;
  std::mt19937_64 rng(static_cast<std::uint64_t>(g.nrows) * 31 + 7);
  std::uniform_int_distribution<std::int32_t> pick(0, g.nrows - 1);
  for (int tries = 0; sources.size() < 3 && tries < 10000; ++tries) {
    const std::int32_t v = pick(rng);
    if (g.row_map(v + 1) > g.row_map(v)) sources.push_back(v);
  }
  for (std::int32_t v = 0; v < g.nrows; ++v)
    if (g.row_map(v + 1) == g.row_map(v)) {
      sources.push_back(v);
      break;
    }
  return sources;
}

class BfsDataset : public ::testing::TestWithParam<ManifestEntry> {};

TEST_P(BfsDataset, AllAlgorithmsValidated) {
  const ManifestEntry& m = GetParam();
  if (m.is_complex() || m.rows != m.cols) GTEST_SKIP() << m.path << " is not a square graph";
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
  check_all_algorithms(BfsGraph::undirected(sym), pick_sources(sym), m.path + " undirected");
  if (directed)
    check_all_algorithms(BfsGraph::directed(stored), pick_sources(stored), m.path + " directed");
}

std::string test_name(const ::testing::TestParamInfo<ManifestEntry>& info) {
  std::string name = info.param.short_name();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name + "_" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(Shared, BfsDataset, ::testing::ValuesIn(manifest()), test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(BfsDataset);

}  // namespace
}  // namespace mimd
