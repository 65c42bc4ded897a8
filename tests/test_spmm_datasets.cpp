// SpMM configurations against the reference on every real matrix of the shared
// datasets (MANIFEST.tsv; complex files are skipped: the reader rejects them). Kept
// cheap: k = 1 and 33 (when m * k <= 1.5M) with double/LayoutRight, k = 8 with float/LayoutLeft,
// the reference computed once per case; matrices above 400k nonzeros get one case (k = 8) and the
// production configurations only (merge path, LSSM, auto).
#include <gtest/gtest.h>

#include "mimd/datasets.hpp"
#include "mimd/io.hpp"
#include "spmm_testing.hpp"

namespace {

using namespace mimd;
using namespace mimd::testing;

std::vector<std::string> dataset_paths() {
  std::vector<std::string> out;
  const std::string dir = shared_dataset_dir();
  if (dir.empty()) return out;
  for (const auto& e : read_manifest(dir))
    if (!e.is_complex()) out.push_back(dir + "/" + e.path);
  return out;
}

TestMatrix to_test_matrix(const std::string& path, const HostCsr<double>& a) {
  TestMatrix t;
  t.name = path;
  t.m = a.nrows;
  t.n = a.ncols;
  t.row_map.assign(a.row_map.data(), a.row_map.data() + a.row_map.extent(0));
  t.col.assign(a.entries.data(), a.entries.data() + a.entries.extent(0));
  t.val.assign(a.values.data(), a.values.data() + a.values.extent(0));
  return t;
}

template <class S, class L>
void check_all_configs(const TestMatrix& t, std::int64_t k, S alpha, S beta, bool large) {
  const auto a = to_device<S>(t);
  const auto b = dense<S, L>(t.n, k, 7);
  const auto c0 = beta == S(0)
                      ? dense<S, L>(t.m, k, 0, std::numeric_limits<double>::quiet_NaN(), true)
                      : dense<S, L>(t.m, k, 8);
  Dense<S, L> expected("expected", t.m, k), got("got", t.m, k);
  Kokkos::deep_copy(expected, c0);
  SpmmOptions ref;
  ref.algorithm = SpmmAlgorithm::Reference;
  spmm<S, L>(context(), alpha, a, b, beta, expected, ref);
  for (const auto& cfg : all_configs()) {
    const auto alg = cfg.options.algorithm;
    if (alg == SpmmAlgorithm::Reference) continue;
    if (large && alg != SpmmAlgorithm::MergePath && alg != SpmmAlgorithm::Auto &&
        !((alg == SpmmAlgorithm::Lssm || alg == SpmmAlgorithm::LssmTeam) && !cfg.options.block_nnz))
      continue;
    Kokkos::deep_copy(got, c0);
    SpmmPlan<S, L> plan(context(), a, static_cast<int>(k), cfg.options);
    plan.apply(alpha, a, b, beta, got);
    EXPECT_TRUE(matches(t, b, c0, alpha, beta, expected, got))
        << cfg.name << " (" << plan.describe() << ")";
  }
}

class SpmmDatasets : public ::testing::TestWithParam<std::string> {};

TEST_P(SpmmDatasets, AllConfigurationsMatchReference) {
  const std::string path = GetParam();
  const auto t = to_test_matrix(path, read_matrix<double>(path));
  const bool large = t.col.size() > 400000;
  if (!large) {
    check_all_configs<double, Kokkos::LayoutRight>(t, 1, 1.5, 0.0, large);
    if (std::int64_t(t.m) * 33 <= 1500000)  // the sequential reference dominates beyond
      check_all_configs<double, Kokkos::LayoutRight>(t, 33, 2.5, -1.0, large);
  }
  check_all_configs<float, Kokkos::LayoutLeft>(t, 8, 1.0, 0.0, large);
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param.substr(info.param.find_last_of('/') + 1);
  name = name.substr(0, name.find('.'));
  for (auto& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name + "_" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(Manifest, SpmmDatasets, ::testing::ValuesIn(dataset_paths()), test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SpmmDatasets);

}  // namespace
