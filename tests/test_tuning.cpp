// Tuning profiles: the knob table and its ranges, JSON round trip, fingerprinted
// loading (missing, stale, corrupt, truncated files never fail), the SIMD widths, and
// every kernel against its reference under the extreme values of every knob.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "mimd/bfs.hpp"
#include "mimd/error.hpp"
#include "mimd/tuning.hpp"
#include "spmm_testing.hpp"
#include "support/bfs_check.hpp"

namespace mimd {
namespace {

using testing::context;
using testing::ProfileScope;

std::string temp_file(const std::string& name) {
  return ::testing::TempDir() + "/mimd_tuning_" + name;
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

TuningProfile base() {
  return default_profile(context().topology(), context().backend());
}

TEST(TuningProfile, DefaultsLieInTheirRanges) {
  EXPECT_NO_THROW(validate_profile(base(), "cpu"));
  EXPECT_NO_THROW(validate_profile(default_profile(context().topology(), "Cuda"), "gpu"));
  EXPECT_NO_THROW(validate_profile(TuningProfile{}, "struct"));
}

TEST(TuningProfile, RoundTripKeepsEveryField) {
  TuningProfile p = base();
  p.name = "round-trip";
  p.fingerprint = context().fingerprint();
  int i = 0;
  for (const auto& k : int_knobs()) p.*k.field = k.min + (++i % 3 == 0 ? 0 : 1);
  p.spmm_use_scratch = !p.spmm_use_scratch;
  p.spmm_combine = SplitCombine::Atomic;
  p.spmm_left_strategy = LeftStrategy::Tile;
  p.auto_rule.rows = {
      {8, 0.5, "row_parallel", 1.25, 5000.5, 14.5}, {128, 2.25, "merge_path"}, {1, 1e9, "lssm"}};
  p.probes = {{"stream_triad_gbs", 41.5}, {"atomic_add_ns", 3.25}};
  const std::string path = temp_file("round_trip.json");
  save_profile(p, path);
  const TuningProfile q = load_profile(path, base());
  EXPECT_EQ(q.to_json(), p.to_json());
  std::remove(path.c_str());
}

TEST(TuningProfile, EveryKnobOutsideItsRangeIsRefusedByName) {
  const std::string path = temp_file("range.json");
  for (const auto& k : int_knobs()) {
    for (const long long v :
         {static_cast<long long>(k.min) - 1, static_cast<long long>(k.max) + 1}) {
      write(path, "{\"" + std::string(k.name) + "\": " + std::to_string(v) + "}");
      try {
        load_profile(path, base());
        ADD_FAILURE() << k.name << " = " << v << " accepted";
      } catch (const ParseError& e) {
        EXPECT_NE(std::string(e.what()).find(k.name), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      }
    }
    write(path, "{\"" + std::string(k.name) + "\": " + std::to_string(k.max) + "}");
    EXPECT_EQ(load_profile(path, base()).*k.field, k.max) << k.name;
  }
  TuningProfile p = base();
  p.spmm_k_tile = 65;
  EXPECT_THROW(validate_profile(p, "test"), InvalidArgument);
  std::remove(path.c_str());
}

TEST(TuningProfile, BadFieldsAreRefused) {
  const std::string path = temp_file("bad.json");
  for (
      const char* text :
      {R"({"spmm_unknown": 1})", R"({"spmm_left_strategy": "diagonal"})", R"([1, 2])",
       R"({"auto_rule": [{"k_max": 8, "cv_max": 1, "algorithm": "magic"}]})",
       R"({"auto_rule": [{"k_max": 0, "cv_max": 1, "algorithm": "lssm"}]})",
       R"({"auto_rule": [{"k_max": 8, "cv_max": 1, "imbalance_max": "low", "algorithm": "lssm"}]})",
       R"({"auto_rule": [{"k_max": 8, "cv_max": 1, "imbalance_max": -1, "algorithm": "lssm"}]})",
       R"({"auto_rule": [{"k_max": 8, "cv_max": 1, "algorithm": "lssm", "rows_max": 5}]})",
       R"({"auto_rule": [{"k_max": 8, "cv_max": 1, "algorithm": "lssm", "nnz_max": "many"}]})",
       R"({"auto_rule": [{"k_max": 8, "cv_max": 1, "algorithm": "lssm", "max_row_max": -2}]})",
       R"({"probes": {"triad": "fast"}})", R"({"fingerprint": 3})"}) {
    write(path, text);
    EXPECT_THROW(load_profile(path, base()), ParseError) << text;
  }
  std::remove(path.c_str());
}

// Rows written before imbalance_max existed still load, with no limit on it.
TEST(TuningProfile, AutoRuleRowsWithoutImbalanceLoad) {
  const std::string path = temp_file("old_rule.json");
  write(path, R"({"auto_rule": [{"k_max": 8, "cv_max": 1.5, "algorithm": "row_parallel"}]})");
  const TuningProfile p = load_profile(path, base());
  ASSERT_EQ(p.auto_rule.rows.size(), 1u);
  EXPECT_EQ(p.auto_rule.rows[0].k_max, 8);
  EXPECT_DOUBLE_EQ(p.auto_rule.rows[0].cv_max, 1.5);
  EXPECT_GE(p.auto_rule.rows[0].imbalance_max, 1e9);
  std::remove(path.c_str());
}

// A profile written when one serial threshold stood for every k still loads, into every
// class of k, and is range-checked under its own name.
TEST(TuningProfile, OneSerialThresholdLoadsIntoEveryClassOfK) {
  const std::string path = temp_file("one_serial.json");
  write(path, R"({"spmm_serial_work": 12345})");
  const TuningProfile p = load_profile(path, base());
  for (const int k : kSpmmSerialWorkK) EXPECT_EQ(p.*spmm_serial_work_field(k), 12345) << k;
  write(path, R"({"spmm_serial_work": -1})");
  try {
    load_profile(path, base());
    ADD_FAILURE() << "spmm_serial_work = -1 accepted";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("'spmm_serial_work'"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

// Each k falls in the class of the nearest measured k on a log scale, the geometric mean
// of two neighbours going to the lower one; k past any square the integers hold included.
TEST(TuningProfile, SerialWorkClassOfK) {
  const std::pair<std::int64_t, int> cases[] = {{0, 0},
                                                {1, 0},
                                                {2, 0},
                                                {3, 1},
                                                {8, 1},
                                                {16, 1},
                                                {17, 2},
                                                {64, 2},
                                                {65, 3},
                                                {std::int64_t(1) << 40, 3},
                                                {std::numeric_limits<std::int64_t>::max(), 3}};
  for (const auto& [k, c] : cases) EXPECT_EQ(spmm_serial_work_class(k), c) << "k = " << k;
  for (int c = 0; c < static_cast<int>(std::size(kSpmmSerialWorkK)); ++c)
    EXPECT_EQ(spmm_serial_work_class(kSpmmSerialWorkK[c]), c) << kSpmmSerialWorkK[c];
}

TEST(TuningProfile, FingerprintNamesTheDevice) {
  const std::string f = context().fingerprint();
  for (const char* key : {"cpu_model", "cpu_signature", "packages", "cores", "pus", "numa_nodes",
                          "l1_bytes", "l2_bytes", "l3_bytes", "line_bytes", "simd_build_bits",
                          "simd_cpu_bits", "compiler", "kokkos", "library"})
    EXPECT_NE(f.find(std::string("\"") + key + "\""), std::string::npos) << key << " in " << f;
  EXPECT_EQ(fingerprint_hash(f).size(), 16u);
  EXPECT_NE(fingerprint_hash(f), fingerprint_hash(f + " "));
  Topology other = context().topology();
  other.cores += 1;
  EXPECT_NE(device_fingerprint(other, context().backend(), context().kokkos_version()), f);
  Topology stepped = context().topology();
  stepped.cpu_signature += " stepping 9";
  EXPECT_NE(device_fingerprint(stepped, context().backend(), context().kokkos_version()), f);
}

/// Loading never fails: each broken file gives the derived defaults and a warning.
TEST(TuningProfile, MissingStaleCorruptTruncatedGiveDefaultsAndAWarning) {
  const std::string f = context().fingerprint();
  TuningProfile good = base();
  good.fingerprint = f;
  good.spmm_block_nnz = 77;
  const std::string path = temp_file("device.json");
  save_profile(good, path);
  const ProfileLoad ok = load_device_profile(base(), f, path);
  EXPECT_EQ(ok.profile.spmm_block_nnz, 77);
  EXPECT_EQ(ok.source, path);
  EXPECT_TRUE(ok.warning.empty()) << ok.warning;

  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  TuningProfile stale = good;
  stale.fingerprint = f + "-elsewhere";
  const std::string stale_path = temp_file("stale.json");
  save_profile(stale, stale_path);
  const std::string corrupt = temp_file("corrupt.json"), truncated = temp_file("truncated.json"),
                    empty = temp_file("empty.json"), out_of_range = temp_file("range2.json");
  write(corrupt,
        "\x7f"
        "ELF garbage {{{");
  write(truncated, text.substr(0, text.size() / 2));
  write(empty, "");
  write(out_of_range, R"({"spmm_block_nnz": -5})");
  for (const std::string& p :
       {stale_path, corrupt, truncated, empty, out_of_range, temp_file("missing.json")}) {
    ProfileLoad r;
    ASSERT_NO_THROW(r = load_device_profile(base(), f, p)) << p;
    EXPECT_EQ(r.profile.to_json(), base().to_json()) << p;
    EXPECT_EQ(r.source, "derived defaults") << p;
    EXPECT_NE(r.warning.find(p), std::string::npos) << p << ": " << r.warning;
    ContextOptions o;
    o.profile_path = p;
    ExecutionContext ctx(o);
    EXPECT_EQ(ctx.tuning().to_json(), base().to_json()) << p;
    EXPECT_FALSE(ctx.profile_warning().empty()) << p;
  }
  for (const auto& p : {path, stale_path, corrupt, truncated, empty, out_of_range})
    std::remove(p.c_str());
}

TEST(TuningProfile, CacheFolderAndEnvironmentAreSearched) {
  const std::string dir = temp_file("cache");
  const std::string f = context().fingerprint();
  ASSERT_EQ(setenv("XDG_CACHE_HOME", dir.c_str(), 1), 0);
  ASSERT_EQ(unsetenv("MIMD_PROFILE"), 0);
  const std::string cached = profile_cache_path(f);
  EXPECT_EQ(cached, dir + "/mimd-kernels/profiles/" + fingerprint_hash(f) + ".json");
  // No file in the cache: the untuned case, silent.
  ProfileLoad none = load_device_profile(base(), f, "");
  EXPECT_EQ(none.source, "derived defaults");
  EXPECT_TRUE(none.warning.empty()) << none.warning;
  TuningProfile tuned = base();
  tuned.fingerprint = f;
  tuned.spmm_units_per_thread = 3;
  save_profile(tuned, cached);
  EXPECT_EQ(load_device_profile(base(), f, "").profile.spmm_units_per_thread, 3);
  const std::string env = temp_file("env.json");
  tuned.spmm_units_per_thread = 5;
  save_profile(tuned, env);
  ASSERT_EQ(setenv("MIMD_PROFILE", env.c_str(), 1), 0);
  EXPECT_EQ(load_device_profile(base(), f, "").profile.spmm_units_per_thread, 5);
  unsetenv("MIMD_PROFILE");
  unsetenv("XDG_CACHE_HOME");
  std::filesystem::remove_all(dir);
  std::remove(env.c_str());
}

TEST(TuningProfile, SimdWidthsAreBuiltAndClamped) {
  const auto widths = built_simd_widths();
  ASSERT_GE(widths.size(), 2u);
  EXPECT_EQ(widths.front(), 8);
  EXPECT_TRUE(std::is_sorted(widths.begin(), widths.end()));
  for (int w : widths) {
    const int e = effective_simd_width(w);
    EXPECT_LE(e, w);
    EXPECT_GE(e, 8);
  }
  EXPECT_EQ(effective_simd_width(8), 8);
  EXPECT_EQ(effective_simd_width(128), effective_simd_width(widths.back()));
  const int cpu = context().topology().simd.cpu_bytes;
  EXPECT_GE(effective_simd_width(128), std::min(cpu, widths.back()));
}

/// Every SpMM algorithm and configuration against the reference, under the context's
/// profile. `pinned`: also the configurations whose options fix the combine and the
/// scratch staging, which a sweep over those two profile knobs would only repeat.
template <class S, class L>
void check_spmm_under(const std::string& what, bool pinned = true) {
  using namespace mimd::testing;
  const auto matrices = adversarial_matrices(8);
  std::uint32_t seed = 900;
  for (const auto& t : matrices)
    for (const auto& cfg : all_configs()) {
      if (cfg.options.algorithm == SpmmAlgorithm::Reference) continue;
      if (!pinned && cfg.options.combine && cfg.options.use_scratch) continue;
      for (std::int64_t k : {1, 8, 33}) {
        EXPECT_TRUE((check_against_reference<S, L>(cfg, t, k, S(1), S(0), ++seed))) << what;
        EXPECT_TRUE((check_against_reference<S, L>(cfg, t, k, S(2), S(-1), ++seed))) << what;
      }
    }
}

template <class S, class L>
void check_spmm_extremes() {
  const ProfileScope scope;
  TuningProfile& p = context().tuning();
  const TuningProfile saved = p;
  for (int w : built_simd_widths()) {
    if (effective_simd_width(w) != w) continue;
    p = saved;
    p.simd_bytes = w;
    check_spmm_under<S, L>("simd " + std::to_string(w));
  }
  // Every SpMM integer knob at its minimum, then at its maximum; each strategy. The
  // LayoutLeft strategy only where the kernel reads it.
  std::vector<LeftStrategy> lefts{LeftStrategy::Pack};
  if (std::is_same<L, Kokkos::LayoutLeft>::value) lefts.push_back(LeftStrategy::Tile);
  for (const bool high : {false, true}) {
    p = saved;
    for (const auto& k : int_knobs())
      if (std::string(k.name).rfind("spmm_", 0) == 0) p.*k.field = high ? k.max : k.min;
    for (const auto left : lefts)
      for (const bool scratch : {false, true})
        for (const auto combine : {SplitCombine::Atomic, SplitCombine::TwoPass}) {
          p.spmm_use_scratch = scratch;
          p.spmm_combine = combine;
          p.spmm_left_strategy = left;
          check_spmm_under<S, L>(std::string(high ? "max" : "min") + " knobs, scratch " +
                                     (scratch ? "on" : "off") + ", " + to_string(combine) + ", " +
                                     to_string(left),
                                 !scratch && combine == SplitCombine::Atomic);
        }
  }
}

TEST(TuningExtremes, SpmmDoubleLayoutRight) {
  check_spmm_extremes<double, Kokkos::LayoutRight>();
}
TEST(TuningExtremes, SpmmDoubleLayoutLeft) {
  check_spmm_extremes<double, Kokkos::LayoutLeft>();
}
TEST(TuningExtremes, SpmmFloatLayoutLeft) {
  check_spmm_extremes<float, Kokkos::LayoutLeft>();
}

TEST(TuningExtremes, BfsEveryKnobAtItsMinimumAndMaximum) {
  const ProfileScope scope;
  TuningProfile& p = context().tuning();
  const TuningProfile saved = p;
  const HostPattern pattern = BfsGraph::symmetrize(testing::random_pattern(20000, 120000, 4, 31));
  const BfsGraph g = BfsGraph::undirected(pattern);
  for (const auto& k : int_knobs()) {
    if (std::string(k.name).rfind("bfs_", 0) != 0) continue;
    for (const int v : {k.min, k.max}) {
      p = saved;
      p.*k.field = v;
      testing::check_all_algorithms(g, {0, 777, 19999},
                                    std::string(k.name) + " = " + std::to_string(v));
    }
  }
}

}  // namespace
}  // namespace mimd
