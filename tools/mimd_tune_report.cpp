// mimd-tune-report: judges a tuning profile on the *evaluation* matrices (which
// mimd-tune never reads): per matrix and k, LSSM under the profile against LSSM under the
// derived defaults, auto against every fixed algorithm and the oracle (the fastest
// fixed one), and LayoutLeft against LayoutRight (LSSM), beside the bound of a strategy that
// costs one more pass over B (lssm / (lssm + a copy of B)). One run, the context's threads;
// the configurations of one matrix and k are timed in interleaved rounds (tune_common.hpp),
// so every figure is a ratio of two measurements taken side by side; each is the median of
// --repeats such sets.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "mimd/context.hpp"
#include "mimd/datasets.hpp"
#include "mimd/error.hpp"
#include "mimd/io.hpp"
#include "tune_common.hpp"

namespace {

using mimd::SpmmAlgorithm;
using namespace mimd::tune;

double geomean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += std::log(x);
  return v.empty() ? 0 : std::exp(s / static_cast<double>(v.size()));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"mimd-tune-report: a tuning profile against the derived defaults, evaluation set"};
  std::string profile, json_path;
  int rounds = 10, repeats = 3;
  std::vector<int> ks{1, 8, 32, 128};
  app.add_option("--profile", profile, "the profile to judge (JSON from mimd-tune)")->required();
  app.add_option("--json", json_path, "write every figure as JSON");
  app.add_option("--rounds", rounds,
                 "interleaved rounds of samples per measurement (the fastest counts)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--repeats", repeats,
                 "independent sets of rounds per measurement (the median counts)")
      ->check(CLI::Range(1, 100));
  app.add_option("--k", ks, "k values")->delimiter(',')->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  try {
    mimd::ContextOptions copt;
    copt.profile_path = profile;
    mimd::ExecutionContext ctx(copt);
    if (!ctx.profile_warning().empty()) return 1;
    const mimd::TuningProfile tuned = ctx.tuning();
    const mimd::TuningProfile derived = mimd::default_profile(ctx.topology(), ctx.backend());
    mimd::TuningProfile& live = ctx.tuning();
    nlohmann::ordered_json out;
    out["profile"] = nlohmann::ordered_json::parse(tuned.to_json());
    out["threads"] = ctx.num_threads();
    out["rounds"] = rounds;
    out["repeats"] = repeats;
    out["rows"] = nlohmann::ordered_json::array();
    std::vector<double> gain_all, left_all, bound_all;
    std::map<int, double> auto_worst;
    std::printf("%-16s %5s %8s %8s %8s %8s %7s %7s %7s %7s  %-12s %s\n", "matrix", "k", "tuned/d",
                "auto/or", "left/rt", "bound", "lssm", "merge", "rowpar", "left", "oracle", "auto");
    for (const char* name : kEvaluation) {
      Input in;
      try {
        const auto h = mimd::read_matrix<double>(mimd::find_dataset(name));
        in = make_input(name, h, ctx.num_threads());
      } catch (const mimd::Error&) {  // absent here, or not a real matrix
        continue;
      }
      std::vector<double> gains;
      for (int k : ks) {
        auto dense = std::make_shared<Operands>(in, k);
        live = derived;
        const Config<Kokkos::LayoutRight> c_default(ctx, in, dense, SpmmAlgorithm::Lssm);
        live = tuned;
        const Config<Kokkos::LayoutRight> c_lssm(ctx, in, dense, SpmmAlgorithm::Lssm),
            c_merge(ctx, in, dense, SpmmAlgorithm::MergePath),
            c_row(ctx, in, dense, SpmmAlgorithm::RowParallel),
            c_auto(ctx, in, dense, SpmmAlgorithm::Auto);
        const Config<Kokkos::LayoutLeft> c_left(ctx, in, dense, SpmmAlgorithm::Lssm);
        const CopyB c_copy(dense);
        const auto t = time_repeated(
            {&c_default, &c_lssm, &c_merge, &c_row, &c_auto, &c_left, &c_copy}, rounds, repeats);
        const double t_default = t[0], t_lssm = t[1], t_merge = t[2], t_row = t[3], t_auto = t[4],
                     t_left = t[5], t_copy = t[6];
        // LayoutLeft / LayoutRight for a strategy that costs one more pass over B and
        // nothing else (the copy timed alone: an optimistic bound for packing).
        const double bound = t_lssm / (t_lssm + t_copy);
        const char* auto_name = mimd::to_string(c_auto.plan().algorithm());
        const double oracle = std::min({t_lssm, t_merge, t_row});
        const char* oracle_name = oracle == t_lssm    ? "lssm"
                                  : oracle == t_merge ? "merge_path"
                                                      : "row_parallel";
        const double gain = t_default / t_lssm, vs_oracle = oracle / t_auto, left = t_lssm / t_left;
        gains.push_back(gain);
        if (k > 1) {
          left_all.push_back(left);
          bound_all.push_back(bound);
        }
        auto_worst[k] = auto_worst.count(k) ? std::min(auto_worst[k], vs_oracle) : vs_oracle;
        std::printf("%-16s %5d %7.2fx %7.2fx %7.2fx %7.2fx %7.4f %7.4f %7.4f %7.4f  %-12s %s\n",
                    name, k, gain, vs_oracle, left, bound, t_lssm * 1e3, t_merge * 1e3, t_row * 1e3,
                    t_left * 1e3, oracle_name, auto_name);
        out["rows"].push_back({{"matrix", name},
                               {"nnz", in.a.nnz()},
                               {"cv", in.cv},
                               {"imbalance", in.imbalance},
                               {"k", k},
                               {"ms",
                                {{"lssm_default", t_default * 1e3},
                                 {"lssm", t_lssm * 1e3},
                                 {"merge_path", t_merge * 1e3},
                                 {"row_parallel", t_row * 1e3},
                                 {"auto", t_auto * 1e3},
                                 {"lssm_layout_left", t_left * 1e3},
                                 {"copy_b", t_copy * 1e3}}},
                               {"tuned_over_default", gain},
                               {"auto_over_oracle", vs_oracle},
                               {"oracle", oracle_name},
                               {"auto", auto_name},
                               {"left_over_right", left},
                               {"left_bound_one_pass_over_b", bound}});
      }
      gain_all.push_back(geomean(gains));
    }
    const double worst = gain_all.empty() ? 0 : *std::min_element(gain_all.begin(), gain_all.end());
    std::printf(
        "tuned vs derived defaults (LSSM, geomean over k per matrix): geomean %.3fx, "
        "lowest matrix %.3fx (target >= 0.95x)\n",
        geomean(gain_all), worst);
    for (const auto& [k, w] : auto_worst)
      std::printf("auto vs oracle, k = %d: lowest matrix %.3fx (target >= 0.9x)\n", k, w);
    std::printf(
        "LayoutLeft vs LayoutRight (LSSM, k > 1, geomean): %.3fx (target >= 1/1.2 = 0.83x); "
        "bound for one more pass over B: %.3fx\n",
        geomean(left_all), geomean(bound_all));
    out["summary"] = {{"tuned_over_default_geomean", geomean(gain_all)},
                      {"tuned_over_default_lowest_matrix", worst},
                      {"left_over_right_geomean_k_gt_1", geomean(left_all)},
                      {"left_bound_one_pass_over_b_geomean_k_gt_1", geomean(bound_all)}};
    for (const auto& [k, w] : auto_worst)
      out["summary"]["auto_over_oracle_lowest_k" + std::to_string(k)] = w;
    if (!json_path.empty()) std::ofstream(json_path) << out.dump(2) << "\n";
  } catch (const mimd::Error& e) {
    std::cerr << "mimd-tune-report: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
