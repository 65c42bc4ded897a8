// mimd-tune-report: judges a tuning profile on the *evaluation* matrices (which
// mimd-tune never reads): per matrix and k, LSSM under the profile against LSSM under the
// derived defaults, auto against every fixed algorithm and the oracle (the fastest
// fixed one), and LayoutLeft against LayoutRight (LSSM), beside what a strategy that costs
// one more pass over all of B would reach (lssm / (lssm + a copy of B); packing in panels
// that stay in cache can beat it where B, its copy and C overflow the last-level cache) and
// one that passes over B and C once more each (lssm / (lssm + a copy of B and one of C): what
// a strategy that runs the row-major kernel between a transpose of B and one of C can reach).
// One run, the context's threads; the configurations of one matrix and k are timed in
// interleaved rounds (tune_common.hpp), so every figure is a ratio of two measurements taken
// side by side; each is the median of --repeats such sets. Configurations that run the same
// code for the call (SpmmPlan::describe(k): the same plan, or a call small enough that every
// algorithm runs it as one row loop in the calling thread) are timed once.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
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
  int rounds = 10, repeats = 3, threads = 0;
  std::vector<int> ks{1, 8, 32, 128};
  std::vector<std::string> only;
  app.add_option("--profile", profile, "the profile to judge (JSON from mimd-tune)")->required();
  app.add_option("--json", json_path, "write every figure as JSON");
  app.add_option("--rounds", rounds,
                 "interleaved rounds of samples per measurement (the fastest counts)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--repeats", repeats,
                 "independent sets of rounds per measurement (the median counts)")
      ->check(CLI::Range(1, 100));
  app.add_option("--threads", threads, "worker threads (default: one per core)")
      ->check(CLI::Range(1, 4096));
  app.add_option("--k", ks, "k values")->delimiter(',')->check(CLI::PositiveNumber);
  app.add_option("--matrices", only, "only these evaluation matrices (default: all of them)")
      ->delimiter(',');
  CLI11_PARSE(app, argc, argv);
  try {
    for (const auto& name : only)
      if (std::find_if(std::begin(kEvaluation), std::end(kEvaluation),
                       [&](const char* e) { return name == e; }) == std::end(kEvaluation))
        throw mimd::InvalidArgument("--matrices: '" + name.substr(0, 80) +
                                    "' is not an evaluation matrix (tools/tune_common.hpp)");
    mimd::ContextOptions copt;
    copt.profile_path = profile;
    copt.num_threads = threads;
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
    std::vector<double> gain_all, left_all, one_copy_all, two_copy_all;
    std::map<int, double> auto_worst;
    std::printf("%-16s %5s %8s %8s %8s %8s %8s %7s %7s %7s %7s  %-12s %s\n", "matrix", "k",
                "tuned/d", "auto/or", "left/rt", "1copy", "2copy", "lssm", "merge", "rowpar",
                "left", "oracle", "auto");
    for (const char* name : kEvaluation) {
      if (!only.empty() && std::find(only.begin(), only.end(), name) == only.end()) continue;
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
        const CopyOperands c_copy(dense, false), c_copy2(dense, true);
        // A configuration that runs what another runs (auto choosing what a fixed
        // algorithm runs; a tuned profile that leaves a matrix's plan as the defaults make
        // it; any algorithm on a call that runs serially) is that configuration: it is
        // timed once and the figure shared, so that a ratio of code to itself reads 1
        // instead of the machine's noise.
        const Config<Kokkos::LayoutRight>* right[] = {&c_default, &c_lssm, &c_merge, &c_row,
                                                      &c_auto};
        std::vector<const Timed*> timed;
        std::vector<std::string> plans;  // plans[i]: the plan timed as timed[i]
        std::size_t slot[std::size(right)];
        for (std::size_t c = 0; c < std::size(right); ++c) {
          const std::string d = right[c]->plan().describe(k);
          const auto at = std::find(plans.begin(), plans.end(), d);
          slot[c] = static_cast<std::size_t>(at - plans.begin());
          if (at == plans.end()) {
            plans.push_back(d);
            timed.push_back(right[c]);
          }
        }
        const std::size_t i_left = timed.size();
        timed.push_back(&c_left);
        timed.push_back(&c_copy);
        timed.push_back(&c_copy2);
        const auto u = time_repeated(timed, rounds, repeats);
        const double t_default = u[slot[0]], t_lssm = u[slot[1]], t_merge = u[slot[2]],
                     t_row = u[slot[3]], t_auto = u[slot[4]], t_left = u[i_left],
                     t_copy = u[i_left + 1], t_copy2 = u[i_left + 2];
        // LayoutLeft / LayoutRight for a strategy that costs one more pass over all of B
        // and nothing else (the copy timed alone), and for one that costs a pass over B and
        // one over C.
        const double one_copy = t_lssm / (t_lssm + t_copy), two_copy = t_lssm / (t_lssm + t_copy2);
        const char* auto_name = mimd::to_string(c_auto.plan().algorithm());
        const double oracle = std::min({t_lssm, t_merge, t_row});
        const char* oracle_name = oracle == t_lssm    ? "lssm"
                                  : oracle == t_merge ? "merge_path"
                                                      : "row_parallel";
        const double gain = t_default / t_lssm, vs_oracle = oracle / t_auto, left = t_lssm / t_left;
        gains.push_back(gain);
        if (k > 1) {
          left_all.push_back(left);
          one_copy_all.push_back(one_copy);
          two_copy_all.push_back(two_copy);
        }
        auto_worst[k] = auto_worst.count(k) ? std::min(auto_worst[k], vs_oracle) : vs_oracle;
        std::printf(
            "%-16s %5d %7.2fx %7.2fx %7.2fx %7.2fx %7.2fx %7.4f %7.4f %7.4f %7.4f  %-12s %s\n",
            name, k, gain, vs_oracle, left, one_copy, two_copy, t_lssm * 1e3, t_merge * 1e3,
            t_row * 1e3, t_left * 1e3, oracle_name, auto_name);
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
                                 {"copy_b", t_copy * 1e3},
                                 {"copy_b_and_c", t_copy2 * 1e3}}},
                               {"tuned_over_default", gain},
                               {"auto_over_oracle", vs_oracle},
                               {"oracle", oracle_name},
                               {"auto", auto_name},
                               {"left_over_right", left},
                               {"left_one_pass_over_b", one_copy},
                               {"left_one_pass_over_b_and_c", two_copy}});
      }
      gain_all.push_back(geomean(gains));
    }
    if (gain_all.empty()) {
      std::string searched;
      for (const auto& d : mimd::dataset_search_path()) searched += " " + d;
      std::cerr << "mimd-tune-report: no evaluation matrix found; searched:" << searched
                << " (set MIMD_DATASETS)\n";
      return 1;
    }
    const double worst = *std::min_element(gain_all.begin(), gain_all.end());
    std::printf(
        "tuned vs derived defaults (LSSM, geomean over k per matrix): geomean %.3fx, "
        "lowest matrix %.3fx (target >= 0.95x)\n",
        geomean(gain_all), worst);
    for (const auto& [k, w] : auto_worst)
      std::printf("auto vs oracle, k = %d: lowest matrix %.3fx (target >= 0.9x)\n", k, w);
    std::printf(
        "LayoutLeft vs LayoutRight (LSSM, k > 1, geomean): %.3fx (target >= 1/1.2 = 0.83x); "
        "one more pass over all of B: %.3fx, over B and C: %.3fx\n",
        geomean(left_all), geomean(one_copy_all), geomean(two_copy_all));
    out["summary"] = {{"tuned_over_default_geomean", geomean(gain_all)},
                      {"tuned_over_default_lowest_matrix", worst},
                      {"left_over_right_geomean_k_gt_1", geomean(left_all)},
                      {"left_one_pass_over_b_geomean_k_gt_1", geomean(one_copy_all)},
                      {"left_one_pass_over_b_and_c_geomean_k_gt_1", geomean(two_copy_all)}};
    for (const auto& [k, w] : auto_worst)
      out["summary"]["auto_over_oracle_lowest_k" + std::to_string(k)] = w;
    if (!json_path.empty()) std::ofstream(json_path) << out.dump(2) << "\n";
  } catch (const mimd::Error& e) {
    std::cerr << "mimd-tune-report: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
