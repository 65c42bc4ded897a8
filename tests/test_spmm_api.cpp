// SpMM interface: the hand-checked reference, names, validation at the boundary,
// trivial cases, the raw-array overload, plan reuse and rejection, LSSM plan structure.
#include "spmm_testing.hpp"

namespace {

using namespace mimd;
using namespace mimd::testing;

// A = [ 1 0 2 0 0 ]    B = [ 1  2 ]
//     [ 0 0 0 0 0 ]        [ 3  4 ]
//     [ 0 3 0 0 4 ]        [ 5  6 ]
//     [ 5 0 0 6 0 ]        [ 7  8 ]
//     [ 0 0 7 0 0 ]        [ 9 10 ]
TestMatrix five_by_five() {
  TestMatrix t;
  t.name = "5x5";
  t.m = t.n = 5;
  t.row_map = {0, 2, 2, 4, 6, 7};
  t.col = {2, 0, 1, 4, 0, 3, 2};  // row 0 deliberately unsorted
  t.val = {2, 1, 3, 4, 5, 6, 7};
  return t;
}

template <class L>
void hand_checked_reference() {
  const auto a = to_device<double>(five_by_five());
  Dense<double, L> b("b", 5, 2), c("c", 5, 2);
  auto bh = Kokkos::create_mirror_view(b);
  auto ch = Kokkos::create_mirror_view(c);
  for (int i = 0; i < 5; ++i)
    for (int t = 0; t < 2; ++t) {
      bh(i, t) = 2 * i + t + 1;
      ch(i, t) = 1;
    }
  Kokkos::deep_copy(b, bh);
  Kokkos::deep_copy(c, ch);
  SpmmOptions ref;
  ref.algorithm = SpmmAlgorithm::Reference;
  // C = 2 * A * B - 1 * C; A * B by hand:
  //   row 0: 1*(1,2) + 2*(5,6) = (11, 14);  row 1: (0, 0)
  //   row 2: 3*(3,4) + 4*(9,10) = (45, 52); row 3: 5*(1,2) + 6*(7,8) = (47, 58)
  //   row 4: 7*(5,6) = (35, 42)
  spmm<double, L>(context(), 2.0, a, b, -1.0, c, ref);
  const double expected[5][2] = {{21, 27}, {-1, -1}, {89, 103}, {93, 115}, {69, 83}};
  Kokkos::deep_copy(ch, c);
  for (int i = 0; i < 5; ++i)
    for (int t = 0; t < 2; ++t)
      EXPECT_EQ(ch(i, t), expected[i][t]) << "C(" << i << ", " << t << ")";
}

TEST(SpmmReference, HandChecked5x5LayoutRight) {
  hand_checked_reference<Kokkos::LayoutRight>();
}
TEST(SpmmReference, HandChecked5x5LayoutLeft) {
  hand_checked_reference<Kokkos::LayoutLeft>();
}

TEST(SpmmReference, BetaZeroOverwritesNaN) {
  const auto a = to_device<double>(five_by_five());
  const auto b = dense<double, Kokkos::LayoutRight>(5, 3, 1);
  auto c =
      dense<double, Kokkos::LayoutRight>(5, 3, 0, std::numeric_limits<double>::quiet_NaN(), true);
  SpmmOptions ref;
  ref.algorithm = SpmmAlgorithm::Reference;
  spmm<double, Kokkos::LayoutRight>(context(), 1.0, a, b, 0.0, c, ref);
  auto ch = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c);
  for (int i = 0; i < 5; ++i)
    for (int t = 0; t < 3; ++t)
      EXPECT_TRUE(std::isfinite(ch(i, t))) << "C(" << i << ", " << t << ")";
  EXPECT_EQ(ch(1, 0), 0.0);  // the empty row
}

TEST(SpmmNames, RoundTrip) {
  for (auto a : {SpmmAlgorithm::Reference, SpmmAlgorithm::RowParallel, SpmmAlgorithm::MergePath,
                 SpmmAlgorithm::Lssm, SpmmAlgorithm::LssmTeam, SpmmAlgorithm::Auto})
    EXPECT_EQ(spmm_algorithm_from_string(to_string(a)), a);
  try {
    spmm_algorithm_from_string("fast");
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("lssm"), std::string::npos) << e.what();
  }
  EXPECT_EQ(spmm_algorithms().size(), 5u);
}

TEST(SpmmValidation, DimensionMismatchNamesEveryExtent) {
  const auto a = to_device<double>(five_by_five());
  Dense<double, Kokkos::LayoutRight> b("b", 4, 3), c("c", 5, 3);
  try {
    spmm<double, Kokkos::LayoutRight>(context(), 1.0, a, b, 0.0, c);
    FAIL() << "expected DimensionMismatch";
  } catch (const DimensionMismatch& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("A is 5x5"), std::string::npos) << w;
    EXPECT_NE(w.find("B is 4x3"), std::string::npos) << w;
    EXPECT_NE(w.find("C is 5x3"), std::string::npos) << w;
  }
  Dense<double, Kokkos::LayoutRight> b2("b", 5, 3), c2("c", 5, 4);
  EXPECT_THROW((spmm<double, Kokkos::LayoutRight>(context(), 1.0, a, b2, 0.0, c2)),
               DimensionMismatch);
}

TEST(SpmmValidation, BadOptions) {
  const auto a = to_device<double>(five_by_five());
  SpmmOptions o;
  o.block_nnz = -1;
  EXPECT_THROW((SpmmPlan<double, Kokkos::LayoutRight>(context(), a, 1, o)), InvalidArgument);
  o.block_nnz = 0;  // a block is given or left to the profile: 0 is no block size
  EXPECT_THROW((SpmmPlan<double, Kokkos::LayoutRight>(context(), a, 1, o)), InvalidArgument);
  o = {};
  o.combine = static_cast<SplitCombine>(7);
  EXPECT_THROW((SpmmPlan<double, Kokkos::LayoutRight>(context(), a, 1, o)), InvalidArgument);
}

TEST(SpmmValidation, BrokenRowMap) {
  auto t = five_by_five();
  t.row_map[5] = 6;  // does not end at nnz = 7
  const auto a = to_device<double>(t);
  EXPECT_THROW((SpmmPlan<double, Kokkos::LayoutRight>(context(), a)), InvalidMatrix);
}

TEST(SpmmPlan, ReusedAcrossCallsAndNewValues) {
  auto t = matrix_from_lengths("reuse", 40, {3, 0, 50, 7, 2, 19, 1, 0, 33}, 5);
  auto a = to_device<double>(t);
  SpmmOptions o;
  o.algorithm = SpmmAlgorithm::Lssm;
  o.block_nnz = 8;
  SpmmPlan<double, Kokkos::LayoutRight> plan(context(), a, 4, o);
  EXPECT_GE(plan.inspect_seconds(), 0.0);
  EXPECT_GT(plan.num_split_rows(), 0);
  for (int call = 0; call < 3; ++call) {
    // New values in the same arrays: the plan only depends on the pattern.
    for (auto& v : t.val) v = -v * 0.5 + call;
    auto va = Kokkos::create_mirror_view(a.values);
    for (std::size_t i = 0; i < t.val.size(); ++i) va(i) = t.val[i];
    Kokkos::deep_copy(a.values, va);
    const auto b = dense<double, Kokkos::LayoutRight>(t.n, 4, 10 + call);
    const auto c0 = dense<double, Kokkos::LayoutRight>(t.m, 4, 20 + call);
    Dense<double, Kokkos::LayoutRight> expected("e", t.m, 4), got("g", t.m, 4);
    Kokkos::deep_copy(expected, c0);
    Kokkos::deep_copy(got, c0);
    SpmmOptions ref;
    ref.algorithm = SpmmAlgorithm::Reference;
    spmm<double, Kokkos::LayoutRight>(context(), 1.5, a, b, 0.5, expected, ref);
    plan.apply(1.5, a, b, 0.5, got);
    EXPECT_TRUE(matches(t, b, c0, 1.5, 0.5, expected, got)) << "call " << call;
  }
}

TEST(SpmmPlan, RejectsAnotherMatrix) {
  const auto t = matrix_from_lengths("plan", 40, {3, 0, 5, 7}, 5);
  const auto a = to_device<double>(t);
  const auto other = to_device<double>(t);  // same shape, other arrays
  for (auto alg : spmm_algorithms()) {
    SpmmOptions o;
    o.algorithm = alg;
    SpmmPlan<double, Kokkos::LayoutLeft> plan(context(), a, 2, o);
    const auto b = dense<double, Kokkos::LayoutLeft>(t.n, 2, 1);
    auto c = dense<double, Kokkos::LayoutLeft>(t.m, 2, 2);
    EXPECT_NO_THROW(plan.apply(1.0, a, b, 0.0, c));
    EXPECT_THROW(plan.apply(1.0, other, b, 0.0, c), InvalidArgument) << to_string(alg);
  }
}

TEST(SpmmPlan, AutoResolvesAndDescribes) {
  const auto a = to_device<float>(matrix_from_lengths("auto", 100, {1, 400, 2, 3}, 3));
  SpmmPlan<float, Kokkos::LayoutRight> plan(context(), a, 32);
  EXPECT_NE(plan.algorithm(), SpmmAlgorithm::Auto);
  EXPECT_NE(plan.describe().find(to_string(plan.algorithm())), std::string::npos);
}

// describe(k) tells apart what calls of k columns run: every algorithm but the reference
// runs the same row loop on a call within the serial threshold (a ratio of two such plans is a
// ratio of the code to itself), and itself above it.
TEST(SpmmPlan, DescribesWhatACallRuns) {
  const mimd::testing::ProfileScope scope;
  const auto a = to_device<double>(matrix_from_lengths("describe", 64, {4, 1, 9, 2}, 8));
  const std::int64_t nnz = a.nnz();
  auto make = [&](SpmmAlgorithm alg) {
    SpmmOptions o;
    o.algorithm = alg;
    return SpmmPlan<double, Kokkos::LayoutRight>(context(), a, 8, o);
  };
  auto make_left = [&](SpmmAlgorithm alg) {
    SpmmOptions o;
    o.algorithm = alg;
    return SpmmPlan<double, Kokkos::LayoutLeft>(context(), a, 8, o);
  };
  // Up to 64 columns (rounded up to whole vectors) of work per nonzero and row run serially.
  set_spmm_serial_work(context().tuning(), static_cast<int>((nnz + a.nrows) * 64));
  const auto lssm = make(SpmmAlgorithm::Lssm), rows = make(SpmmAlgorithm::RowParallel),
             ref = make(SpmmAlgorithm::Reference);
  const auto lssm_left = make_left(SpmmAlgorithm::Lssm),
             rows_left = make_left(SpmmAlgorithm::RowParallel);
  for (std::int64_t k : {1, 8, 64}) {
    EXPECT_EQ(lssm.describe(k), rows.describe(k)) << "k = " << k;
    EXPECT_EQ(lssm.describe(k).rfind("serial", 0), 0u) << lssm.describe(k);
    EXPECT_EQ(lssm_left.describe(k), rows_left.describe(k)) << "k = " << k;
    EXPECT_EQ(ref.describe(k), ref.describe()) << "the reference never runs serially";
  }
  EXPECT_NE(lssm.describe(65), rows.describe(65));
  EXPECT_EQ(lssm.describe(65).rfind("lssm", 0), 0u) << lssm.describe(65);
  EXPECT_EQ(rows.describe(65), rows.describe());
  EXPECT_EQ(rows_left.describe(65), rows_left.describe());
  set_spmm_serial_work(context().tuning(), 0);
  const auto lssm0 = make(SpmmAlgorithm::Lssm), rows0 = make(SpmmAlgorithm::RowParallel);
  EXPECT_NE(lssm0.describe(1), rows0.describe(1));
}

// Each class of k has its own serial threshold (spmm_serial_work_class: k <= 2, 3-16, 17-64,
// more): with the first and third past every call and the others 0, calls of k at either
// end of a class run as their class says.
TEST(SpmmPlan, SerialThresholdPerClassOfK) {
  const mimd::testing::ProfileScope scope;
  const auto a = to_device<double>(matrix_from_lengths("classes", 64, {4, 1, 9, 2}, 8));
  auto& t = context().tuning();
  t.spmm_serial_work_k1 = t.spmm_serial_work_k32 = std::numeric_limits<int>::max();
  t.spmm_serial_work_k8 = t.spmm_serial_work_k128 = 0;
  SpmmOptions o;
  o.algorithm = SpmmAlgorithm::Lssm;
  const SpmmPlan<double, Kokkos::LayoutRight> plan(context(), a, 8, o);
  const auto serial = [&](std::int64_t k) { return plan.describe(k).rfind("serial", 0) == 0; };
  for (std::int64_t k : {1, 2, 17, 64}) EXPECT_TRUE(serial(k)) << "k = " << k;
  for (std::int64_t k : {3, 16, 65, 1000}) EXPECT_FALSE(serial(k)) << "k = " << k;
}

// LSSM units: rows of exactly `block` nonzeros stay whole, one more splits in two;
// short rows merge into units cut where the running weight (nonzeros + 1 per row)
// crosses a multiple of the block.
TEST(SpmmLssmPlan, SplitsAndMerges) {
  const auto t = matrix_from_lengths("units", 100, {8, 9, 1, 1, 1, 0, 17, 3}, 4);
  const auto a = to_device<double>(t);
  SpmmOptions o;
  o.algorithm = SpmmAlgorithm::Lssm;
  o.block_nnz = 8;
  SpmmPlan<double, Kokkos::LayoutRight> plan(context(), a, 1, o);
  // Running weight before each row: 0, 9, 19, 21, 23, 25, 26, 44. Units: {row 0},
  // {row 1 piece 1}, {row 1 piece 2}, {rows 2-3: midpoints 20, 22 < 24}, {rows 4-5:
  // midpoints 24, 25}, {row 6: 3 pieces}, {row 7}.
  EXPECT_EQ(plan.block_nnz(), 8);
  EXPECT_EQ(plan.num_split_rows(), 2);
  EXPECT_EQ(plan.num_units(), 1 + 2 + 1 + 1 + 3 + 1);
}

// The default block gives every thread the same number of LSSM units, however few:
// e.g. 21 rows of weight 4 (84) at a profile block of 64 are 2 units, or 4 on 4 threads,
// not 2 on 3 threads with one left idle.
TEST(SpmmLssmPlan, DefaultBlockEvensUnitsOverThreads) {
  const mimd::testing::ProfileScope scope;
  TuningProfile& p = context().tuning();
  p.spmm_block_nnz = 64;
  p.spmm_block_floor = 1;
  p.spmm_block_floor_work = 1;
  p.spmm_units_per_thread = 1;
  const int threads = Kokkos::DefaultExecutionSpace().concurrency();
  for (const std::int32_t rows : {21, 7, 100, 5}) {
    const auto a = to_device<double>(matrix_from_lengths(
        "even", 50, std::vector<std::int64_t>(static_cast<std::size_t>(rows), 3), 5));
    SpmmOptions o;
    o.algorithm = SpmmAlgorithm::Lssm;
    const SpmmPlan<double, Kokkos::LayoutRight> plan(context(), a, 1, o);
    EXPECT_EQ(plan.num_split_rows(), 0) << plan.describe();
    EXPECT_EQ(plan.num_units() % std::min<std::int64_t>(threads, rows), 0)
        << rows << " rows: " << plan.describe();
  }
}

// Auto reads row_parallel's row-split imbalance: rows growing from 1 to 64 nonzeros cut
// into the context's threads load the last range most; a rule row that allows only a
// smaller imbalance than the matrix has is skipped.
TEST(SpmmAuto, RuleReadsTheRowSplitImbalance) {
  std::vector<std::int64_t> lengths;
  for (std::int64_t i = 1; i <= 64; ++i) lengths.push_back(i);
  const TestMatrix t = matrix_from_lengths("growing", 80, lengths, 9);
  const auto a = to_device<double>(t);
  const double imbalance =
      row_split_imbalance(t.row_map.data(), t.m, Kokkos::DefaultExecutionSpace().concurrency());
  const mimd::testing::ProfileScope scope;
  for (const double limit : {imbalance - 1e-9, imbalance}) {
    context().tuning().auto_rule.rows = {{1 << 20, 1e9, "row_parallel", limit},
                                         {1 << 20, 1e9, "merge_path"}};
    const SpmmPlan<double, Kokkos::LayoutRight> plan(context(), a, 8);
    EXPECT_EQ(plan.algorithm(),
              limit < imbalance ? SpmmAlgorithm::MergePath : SpmmAlgorithm::RowParallel)
        << "imbalance " << imbalance << ", limit " << limit;
  }
}

// Auto reads the stored nonzeros, the longest row and k: a rule row whose limit lies just
// under the matrix's value is skipped, one at the value is taken.
TEST(SpmmAuto, RuleReadsNnzLongestRowAndK) {
  const TestMatrix t = matrix_from_lengths("lengths", 40, {3, 17, 0, 5, 9, 1}, 4);
  const auto a = to_device<double>(t);
  const double nnz = 35, longest = 17;
  const mimd::testing::ProfileScope scope;
  for (const bool under : {true, false}) {
    const double d = under ? 1e-9 : 0;
    AutoRule::Row by_nnz{1 << 20, 1e9, "row_parallel"}, by_row{1 << 20, 1e9, "row_parallel"},
        by_k{under ? 7 : 8, 1e9, "row_parallel"};
    by_nnz.nnz_max = nnz - d;
    by_row.max_row_max = longest - d;
    for (const auto& row : {by_nnz, by_row, by_k}) {
      context().tuning().auto_rule.rows = {row, {1 << 20, 1e9, "merge_path"}};
      const SpmmPlan<double, Kokkos::LayoutRight> plan(context(), a, 8);
      EXPECT_EQ(plan.algorithm(), under ? SpmmAlgorithm::MergePath : SpmmAlgorithm::RowParallel)
          << "k_max " << row.k_max << ", nnz_max " << row.nnz_max << ", max_row_max "
          << row.max_row_max;
    }
  }
}

TEST(SpmmRaw, RowMajorAndColMajorWithPadding) {
  const auto t = matrix_from_lengths("raw", 30, {4, 0, 12, 1, 7, 30, 2}, 8);
  const std::int64_t k = 5, ld_row = 7;
  std::vector<double> b(static_cast<std::size_t>(t.n * ld_row)),
      c(static_cast<std::size_t>(t.m * ld_row));
  std::mt19937 gen(3);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& x : b) x = u(gen);
  for (auto& x : c) x = u(gen);
  for (auto layout : {DenseLayout::RowMajor, DenseLayout::ColMajor}) {
    const bool rm = layout == DenseLayout::RowMajor;
    const std::int64_t ldb = rm ? ld_row : t.n + 3, ldc = rm ? ld_row : t.m + 2;
    std::vector<double> bb(static_cast<std::size_t>(rm ? t.n * ldb : k * ldb));
    std::vector<double> cc(static_cast<std::size_t>(rm ? t.m * ldc : k * ldc), -7.0);
    for (std::size_t i = 0; i < bb.size(); ++i) bb[i] = b[i % b.size()];
    for (std::size_t i = 0; i < cc.size(); ++i) cc[i] = c[i % c.size()];
    const auto c_before = cc;
    SpmmOptions o;
    o.algorithm = SpmmAlgorithm::Lssm;
    o.block_nnz = 4;
    spmm<double>(context(), layout, t.m, t.n, k, 2.0, t.row_map.data(), t.col.data(), t.val.data(),
                 bb.data(), ldb, -1.0, cc.data(), ldc, o);
    for (std::int64_t i = 0; i < t.m; ++i)
      for (std::int64_t x = 0; x < k; ++x) {
        double sum = 0, mag = 0;
        for (auto j = t.row_map[i]; j < t.row_map[i + 1]; ++j) {
          const double bv = rm ? bb[t.col[j] * ldb + x] : bb[t.col[j] + x * ldb];
          sum += t.val[j] * bv;
          mag += std::abs(t.val[j] * bv);
        }
        const std::size_t ci = static_cast<std::size_t>(rm ? i * ldc + x : i + x * ldc);
        const double want = 2.0 * sum - c_before[ci];
        EXPECT_NEAR(
            cc[ci], want,
            tolerance<double>(t.row_map[i + 1] - t.row_map[i], 2 * mag + std::abs(c_before[ci])))
            << "C(" << i << ", " << x << ")";
      }
    // The padding between leading dimension and extent is untouched.
    if (rm)
      EXPECT_EQ(cc[static_cast<std::size_t>(k)], c_before[static_cast<std::size_t>(k)]);
    else
      EXPECT_EQ(cc[static_cast<std::size_t>(t.m)], c_before[static_cast<std::size_t>(t.m)]);
  }
}

TEST(SpmmRaw, RejectsBadArguments) {
  const auto t = matrix_from_lengths("raw", 6, {1, 2}, 8);
  std::vector<double> b(6 * 3), c(2 * 3);
  auto call = [&](std::int64_t m, std::int64_t k, const std::int64_t* rm, std::int64_t ldb,
                  std::int64_t ldc) {
    spmm<double>(context(), DenseLayout::RowMajor, m, 6, k, 1.0, rm, t.col.data(), t.val.data(),
                 b.data(), ldb, 0.0, c.data(), ldc);
  };
  EXPECT_NO_THROW(call(2, 3, t.row_map.data(), 3, 3));
  EXPECT_THROW(call(-1, 3, t.row_map.data(), 3, 3), InvalidArgument);
  EXPECT_THROW(call(2, 3, nullptr, 3, 3), InvalidArgument);
  EXPECT_THROW(call(2, 3, t.row_map.data(), 2, 3), InvalidArgument);
  EXPECT_THROW(call(2, 3, t.row_map.data(), 3, 2), InvalidArgument);
}

// The kernels read B at the column indices: one outside [0, n) must be a typed error
// naming the row, the position and the column before anything is read.
TEST(SpmmRaw, ColumnOutOfRangeNamesRowPositionAndColumn) {
  const std::vector<std::int64_t> row_map = {0, 1, 1, 3};
  const std::vector<double> values = {1, 2, 3};
  std::vector<double> b(4 * 2, 1.0), c(3 * 2, 0.0);
  for (const std::int32_t bad : {4, -1, 1 << 30}) {
    const std::vector<std::int32_t> cols = {0, 2, bad};
    for (auto layout : {DenseLayout::RowMajor, DenseLayout::ColMajor}) {
      const std::int64_t ldb = layout == DenseLayout::RowMajor ? 2 : 4;
      const std::int64_t ldc = layout == DenseLayout::RowMajor ? 2 : 3;
      try {
        spmm<double>(context(), layout, 3, 4, 2, 1.0, row_map.data(), cols.data(), values.data(),
                     b.data(), ldb, 0.0, c.data(), ldc);
        FAIL() << "expected InvalidMatrix for column " << bad;
      } catch (const InvalidMatrix& e) {
        EXPECT_EQ(e.where(), "entries[2] (row 2)") << e.what();
        EXPECT_NE(std::string(e.what()).find("column " + std::to_string(bad) + " outside [0, 4)"),
                  std::string::npos)
            << e.what();
      }
    }
  }
}

}  // namespace
