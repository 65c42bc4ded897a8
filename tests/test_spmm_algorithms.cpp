// Every SpMM algorithm (and LSSM configuration) against the reference, for both
// value types and both dense layouts, on adversarial structures, every k of the
// issue and every alpha/beta pair.
#include "spmm_testing.hpp"

namespace {

using namespace mimd;
using namespace mimd::testing;

template <class S, class L>
struct Types {
  using Scalar = S;
  using Layout = L;
};

template <class T>
class SpmmAlgorithms : public ::testing::Test {};
using AllTypes =
    ::testing::Types<Types<float, Kokkos::LayoutLeft>, Types<float, Kokkos::LayoutRight>,
                     Types<double, Kokkos::LayoutLeft>, Types<double, Kokkos::LayoutRight>>;
TYPED_TEST_SUITE(SpmmAlgorithms, AllTypes);

constexpr double kScales[] = {0.0, 1.0, -1.0, 2.5};

// All 16 (alpha, beta) pairs for k = 7; a representative subset for the other k.
template <class S, class L>
void run_matrix(const TestMatrix& t) {
  const std::int64_t ks[] = {1, 2, 3, 7, 8, 16, 33, 128};
  std::uint32_t seed = 100;
  for (const auto& cfg : all_configs()) {
    for (auto k : ks) {
      const bool all_pairs = k == 7;
      for (double alpha : kScales) {
        for (double beta : kScales) {
          if (!all_pairs && !((alpha == 1.0 && beta == 0.0) || (alpha == 2.5 && beta == -1.0) ||
                              (alpha == 0.0 && beta == 2.5) || (alpha == -1.0 && beta == 1.0)))
            continue;
          EXPECT_TRUE((check_against_reference<S, L>(cfg, t, k, S(alpha), S(beta), ++seed)));
        }
      }
    }
  }
}

template <class S, class L>
void run_named(const std::string& name) {
  for (const auto& t : adversarial_matrices(8))
    if (t.name.rfind(name, 0) == 0) run_matrix<S, L>(t);
}

#define SPMM_CASE(test, prefix)                                                \
  TYPED_TEST(SpmmAlgorithms, test) {                                           \
    run_named<typename TypeParam::Scalar, typename TypeParam::Layout>(prefix); \
  }
SPMM_CASE(EmptyMatrix, "empty 0x5")
SPMM_CASE(NoNonzeros, "no nonzeros")
SPMM_CASE(EmptyRows, "empty rows")
SPMM_CASE(OneRowHoldsAll, "one row holds all")
SPMM_CASE(RowsAtAndPastBlock, "rows at and past block")
SPMM_CASE(OnlyLongRows, "only long rows")
SPMM_CASE(WideMatrix, "wide")
SPMM_CASE(TallMatrix, "tall")
SPMM_CASE(UnsortedColumns, "unsorted columns")
#undef SPMM_CASE

// The k where the shared micro-kernel (kernels/spmm/common.hpp) changes its tiles: one
// tile of 1, 8 or 32 columns, the power of two below and above, k past k_tile split
// into tiles of decreasing width. Every algorithm that uses it (row_parallel,
// merge_path, every LSSM configuration), with the profile's k_tile and with the widest
// (64), on every adversarial matrix.
TYPED_TEST(SpmmAlgorithms, TileBoundaries) {
  using S = typename TypeParam::Scalar;
  using L = typename TypeParam::Layout;
  const std::int64_t ks[] = {1, 7, 8, 9, 31, 32, 33, 64, 65, 130};
  std::uint32_t seed = 500;
  for (int k_tile : {context().tuning().spmm_k_tile, 64}) {
    const ProfileScope scope;
    context().tuning().spmm_k_tile = k_tile;
    for (const auto& t : adversarial_matrices(8))
      for (const auto& cfg : all_configs()) {
        const SpmmAlgorithm a = cfg.options.algorithm;
        if (a == SpmmAlgorithm::Reference || a == SpmmAlgorithm::Auto) continue;
        for (auto k : ks) {
          EXPECT_TRUE((check_against_reference<S, L>(cfg, t, k, S(1), S(0), ++seed)))
              << "k_tile " << k_tile;
          EXPECT_TRUE((check_against_reference<S, L>(cfg, t, k, S(2.5), S(-1), ++seed)))
              << "k_tile " << k_tile;
        }
      }
  }
}

// Team LSSM with the extreme launch shapes: one thread of one lane, one thread of
// several lanes (across the nonzeros for k below the lanes, across k above), several
// threads (split rows shared by the team), Kokkos::AUTO with a warp's 32 lanes, and a
// scratch budget too small to stage (the direct path although scratch is asked for).
// Every team configuration of all_configs, k = 1, 3, 8, 32, 128.
TYPED_TEST(SpmmAlgorithms, TeamShapes) {
  using S = typename TypeParam::Scalar;
  using L = typename TypeParam::Layout;
  struct Shape {
    int team_size, vector, scratch_bytes;
  };
  const Shape shapes[] = {{1, 1, 32768}, {1, 4, 32768}, {2, 8, 32768}, {0, 32, 32768}, {4, 2, 0}};
  std::uint32_t seed = 900;
  for (const Shape& sh : shapes) {
    const ProfileScope scope;
    context().tuning().team_size = sh.team_size;
    context().tuning().team_vector = sh.vector;
    context().tuning().team_scratch_bytes = sh.scratch_bytes;
    for (const auto& t : adversarial_matrices(8))
      for (const auto& cfg : all_configs()) {
        if (cfg.options.algorithm != SpmmAlgorithm::LssmTeam) continue;
        for (std::int64_t k : {1, 3, 8, 32, 128}) {
          EXPECT_TRUE((check_against_reference<S, L>(cfg, t, k, S(1), S(0), ++seed)))
              << "team " << sh.team_size << " vector " << sh.vector << " scratch "
              << sh.scratch_bytes;
          EXPECT_TRUE((check_against_reference<S, L>(cfg, t, k, S(2.5), S(-1), ++seed)))
              << "team " << sh.team_size << " vector " << sh.vector << " scratch "
              << sh.scratch_bytes;
        }
      }
  }
}

// Calls within the serial threshold of their k (work as within_work counts it) run in the
// calling thread, where every algorithm but the reference becomes the micro-kernel over all rows
// (column-major B packed there too): every configuration on every adversarial matrix with the
// threshold past all of them, at k = 1, in place (7), packed (16, 33: LeftStrategy::Pack from
// k = 16) and past a tile (130), with alpha = 0 (C only scaled) among the coefficients.
TYPED_TEST(SpmmAlgorithms, SerialSmallCalls) {
  using S = typename TypeParam::Scalar;
  using L = typename TypeParam::Layout;
  const ProfileScope scope;
  set_spmm_serial_work(context().tuning(), std::numeric_limits<int>::max());
  context().tuning().spmm_left_strategy = LeftStrategy::Pack;
  context().tuning().spmm_left_pack_min_k = 16;
  std::uint32_t seed = 1300;
  for (const auto& t : adversarial_matrices(8))
    for (const auto& cfg : all_configs())
      for (std::int64_t k : {1, 7, 16, 33, 130}) {
        EXPECT_TRUE((check_against_reference<S, L>(cfg, t, k, S(1), S(0), ++seed)));
        EXPECT_TRUE((check_against_reference<S, L>(cfg, t, k, S(2.5), S(-1), ++seed)));
        EXPECT_TRUE((check_against_reference<S, L>(cfg, t, k, S(0), S(2), ++seed)));
      }
}

// Column-major B packed, its columns split between the workers (from spmm_left_split_min_k
// on, 8 columns a worker at least) or its rows split by the plan's algorithm over one
// shared copy: both, every configuration on every adversarial matrix, at k where the
// workers' shares are equal, unequal and not whole groups of 8, in panels of 8 columns or
// of all of a worker's columns. Row-major C never reads these knobs (spmm.cpp): it runs
// the first setting only, where the others would repeat it.
TYPED_TEST(SpmmAlgorithms, LeftColumnsSplitOrNot) {
  using S = typename TypeParam::Scalar;
  using L = typename TypeParam::Layout;
  constexpr bool left = std::is_same<L, Kokkos::LayoutLeft>::value;
  std::uint32_t seed = 1700;
  for (const int split_min_k : {2, std::numeric_limits<int>::max()})
    for (const int panel_bytes : {1, std::numeric_limits<int>::max()}) {
      if (!left && (split_min_k != 2 || panel_bytes != 1)) continue;
      const ProfileScope scope;
      context().tuning().spmm_left_strategy = LeftStrategy::Pack;
      context().tuning().spmm_left_pack_min_k = 2;
      context().tuning().spmm_left_split_min_k = split_min_k;
      context().tuning().spmm_left_panel_bytes = panel_bytes;
      for (const auto& t : adversarial_matrices(8))
        for (const auto& cfg : all_configs())
          for (std::int64_t k : {16, 17, 40, 130}) {
            EXPECT_TRUE((check_against_reference<S, L>(cfg, t, k, S(1), S(0), ++seed)))
                << "split_min_k " << split_min_k << " panel " << panel_bytes;
            EXPECT_TRUE((check_against_reference<S, L>(cfg, t, k, S(2.5), S(-1), ++seed)))
                << "split_min_k " << split_min_k << " panel " << panel_bytes;
          }
    }
}

// Column-major B packed below the columns split, its rows split by the blocks of B they
// read (each worker copying its own: spmm_left_blocks_pct 100), or over one shared copy
// (0; and 1, where every matrix with a share reading more than 1% of B falls back to it):
// every configuration on every adversarial matrix, at k in one panel and past it, with
// panels of 8 columns or of all k. Row-major C, which never reads these knobs, runs the
// first setting only.
TYPED_TEST(SpmmAlgorithms, LeftRowsByBlocksOrShared) {
  using S = typename TypeParam::Scalar;
  using L = typename TypeParam::Layout;
  constexpr bool left = std::is_same<L, Kokkos::LayoutLeft>::value;
  std::uint32_t seed = 2100;
  for (const int pct : {100, 1, 0})
    for (const int panel_bytes : {1, std::numeric_limits<int>::max()}) {
      if (!left && (pct != 100 || panel_bytes != 1)) continue;
      const ProfileScope scope;
      context().tuning().spmm_left_strategy = LeftStrategy::Pack;
      context().tuning().spmm_left_pack_min_k = 2;
      context().tuning().spmm_left_split_min_k = std::numeric_limits<int>::max();
      context().tuning().spmm_left_blocks_pct = pct;
      context().tuning().spmm_left_panel_bytes = panel_bytes;
      for (const auto& t : adversarial_matrices(8))
        for (const auto& cfg : all_configs())
          for (std::int64_t k : {2, 8, 9, 17, 40}) {
            EXPECT_TRUE((check_against_reference<S, L>(cfg, t, k, S(1), S(0), ++seed)))
                << "blocks_pct " << pct << " panel " << panel_bytes;
            EXPECT_TRUE((check_against_reference<S, L>(cfg, t, k, S(2.5), S(-1), ++seed)))
                << "blocks_pct " << pct << " panel " << panel_bytes;
          }
    }
}

// LSSM's units handed out statically (spmm_static_work past every call): every
// configuration on every adversarial matrix, split rows and both combines among them.
TYPED_TEST(SpmmAlgorithms, LssmStaticHandOut) {
  using S = typename TypeParam::Scalar;
  using L = typename TypeParam::Layout;
  const ProfileScope scope;
  context().tuning().spmm_static_work = std::numeric_limits<int>::max();
  std::uint32_t seed = 2500;
  for (const auto& t : adversarial_matrices(8))
    for (const auto& cfg : all_configs())
      for (std::int64_t k : {1, 8, 33}) {
        EXPECT_TRUE((check_against_reference<S, L>(cfg, t, k, S(1), S(0), ++seed)));
        EXPECT_TRUE((check_against_reference<S, L>(cfg, t, k, S(2.5), S(-1), ++seed)));
      }
}

// One LSSM plan whose calls alternate between the static hand-out (k = 1, within
// spmm_static_work) and the dynamic one (k = 64, past it): a static call must leave the
// work counters as the next dynamic call expects them (regression: a static call that
// switched the counter set handed that call's units out from a set no worker had reset).
TEST(SpmmLssmHandOut, StaticAndDynamicCallsAlternate) {
  const ProfileScope scope;
  std::vector<std::int64_t> len(200);
  for (std::size_t i = 0; i < len.size(); ++i)
    len[i] = i % 17 == 0 ? 40 : static_cast<std::int64_t>(i % 5);
  const auto t = matrix_from_lengths("alternate", 300, len, 77);
  const auto a = to_device<double>(t);
  context().tuning().spmm_static_work = static_cast<int>((a.nnz() + a.nrows) * 8);
  for (const SplitCombine combine : {SplitCombine::TwoPass, SplitCombine::Atomic}) {
    SpmmOptions o;
    o.algorithm = SpmmAlgorithm::Lssm;
    o.block_nnz = 8;
    o.combine = combine;
    o.use_scratch = false;
    const SpmmPlan<double, Kokkos::LayoutRight> plan(context(), a, 64, o);
    ASSERT_GT(plan.num_units(), 2 * Kokkos::DefaultExecutionSpace().concurrency());
    ASSERT_NE(plan.describe(1), plan.describe(64));
    std::uint32_t seed = 2900;
    for (const std::int64_t k : {64, 1, 64, 1, 1, 64, 64}) {
      const auto b = dense<double, Kokkos::LayoutRight>(t.n, k, ++seed);
      const auto c0 = dense<double, Kokkos::LayoutRight>(t.m, k, ++seed);
      Dense<double, Kokkos::LayoutRight> expected("expected", t.m, k), got("got", t.m, k);
      Kokkos::deep_copy(expected, c0);
      Kokkos::deep_copy(got, c0);
      SpmmOptions ref;
      ref.algorithm = SpmmAlgorithm::Reference;
      spmm<double, Kokkos::LayoutRight>(context(), 1.5, a, b, -0.5, expected, ref);
      plan.apply(1.5, a, b, -0.5, got);
      EXPECT_TRUE(matches(t, b, c0, 1.5, -0.5, expected, got))
          << "k = " << k << ", " << to_string(combine) << ": " << plan.describe(k);
    }
  }
}

TEST(SpmmAlgorithmsCoverage, AdversarialSetIsComplete) {
  // Each SPMM_CASE above selects one matrix by prefix: none may be left out.
  EXPECT_EQ(adversarial_matrices(8).size(), 9u);
}

// k up to 1024 with the widest tiles (LayoutRight and LayoutLeft, double).
TEST(SpmmAlgorithmsLargeK, K1024) {
  const auto t = matrix_from_lengths("large k", 64, {3, 0, 70, 5, 1, 9, 0, 33}, 21);
  for (const auto& cfg : all_configs()) {
    EXPECT_TRUE((check_against_reference<double, Kokkos::LayoutRight>(cfg, t, 1024, 1.5, -0.5, 3)));
    EXPECT_TRUE((check_against_reference<float, Kokkos::LayoutLeft>(cfg, t, 1000, 1.0, 0.0, 4)));
  }
}

}  // namespace
