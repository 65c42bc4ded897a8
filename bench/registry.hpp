// mimd-bench: the one registry of what the benchmark measures. Every implementation
// (mimd's algorithms and the baselines) has one entry: its name, kernel, whether it is
// ours, the labels the table and plots use, and how to construct it. The driver
// selects from it, the report derives its speedup columns and targets from it, and
// the JSON result carries it so that tools/plot_bench.py reads names and labels from
// the result instead of repeating them.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "impls.hpp"

namespace mimd::bench {

struct ImplInfo {
  std::string name;    ///< command-line and record name: "lssm", "kk_right", ...
  std::string kernel;  ///< "spmm" or "bfs"
  bool ours = false;   ///< a mimd algorithm (false: a baseline)
  std::string label;   ///< human-readable, for plots and the README
  std::string layout;  ///< dense operands' layout ("row-major", "column-major"); "" for bfs
  /// Baselines: title of the table's speedup column ("xloop"); baselines of different
  /// kernels may share a column.
  std::string column;
  /// Baselines: the speedup a headline implementation of ours must reach (geometric
  /// mean over the SpMM matrices at k = 32; per graph for BFS), 0 for none.
  double target = 0;
  /// Ours: summarised against every baseline (SpMM lssm and auto, BFS
  /// direction_optimizing).
  bool headline = false;
  bool available = true;     ///< compiled into this build
  bool default_run = true;   ///< in the default selection (references are not)
  SpmmMaker<double> spmm64;  ///< baselines: constructors, empty for ours
  SpmmMaker<float> spmm32;
  BfsMaker bfs;

  template <class Scalar>
  const SpmmMaker<Scalar>& spmm_maker() const;
};

/// Every implementation this program knows, ours first, in report order.
const std::vector<ImplInfo>& registry();
/// The entry called `name`, or nullptr.
const ImplInfo* find_impl(const std::string& name);
/// Names of the available entries of `kernel` ("": any) that are ours (or baselines)
/// and run by default.
std::vector<std::string> default_selection(const std::string& kernel, bool ours);
/// The registry as written into the JSON result (constructors left out).
nlohmann::json registry_json();

}  // namespace mimd::bench
