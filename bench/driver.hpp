// mimd-bench: the driver in its parts, as main() calls them in order:
// command line -> suite -> machine context -> run -> report.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench.hpp"

namespace mimd::bench {

// ---- command line (cli.cpp) ------------------------------------------------------------

/// Everything the command line says, as typed (defaults applied later).
struct Config {
  std::vector<std::string> inputs;  ///< empty: a built-in suite
  bool quick = false, smoke = false, with_float = false, list_only = false;
  bool distributed = false;  ///< --distributed: mimd::dist under mpirun (distributed.cpp)
  std::vector<std::string> kernels{"spmm", "bfs"};
  std::vector<int> ks;
  std::vector<std::string> algorithms, bfs_algorithms, baselines;  ///< empty: defaults
  std::string json_path, csv_path;
  int threads = 0;
  std::string profile;  ///< --profile: tuning profile file (empty: the context's search)
  int sources = 64;
  double min_seconds = -1;  ///< < 0: the suite's default
  int min_reps = 10;
  int rounds = 0;  ///< 0: the suite's default
  double time_limit = 30;
  std::uint64_t seed = 20261130;
  std::string command;  ///< argv joined by spaces
};

/// Exit status of mimd-bench for bad arguments (unknown option, name or value).
constexpr int kExitUsage = 2;

/// Parses argv into `config`. Returns -1 to go on, or the status to exit with
/// (0 after --help, kExitUsage on a usage error, which it has reported).
int parse_command_line(int argc, char** argv, Config& config);

// ---- distributed run (distributed.cpp) ---------------------------------------------------
/// mimd-bench --distributed under mpirun: initialises MPI, runs the inputs (default
/// stencil3d:100, powerlaw:1000000:16, kron:20; k default 1, 8, 32) with mimd::dist and
/// prints and (--json, rank 0) writes the records and the volume model. Returns the exit
/// status (kExitUsage in a build without MPI).
int run_distributed(const Config& config);

// ---- suite (suite.cpp) -----------------------------------------------------------------

/// The run options the configuration implies: implementations (checked against the
/// registry: @throws InvalidArgument naming an unknown or unavailable one), k values,
/// timing policy, BFS sources. Machine figures (triad, LLC, memory) are filled later.
RunOptions make_run_options(const Config& config, int threads);

/// The inputs to run: the ones named on the command line, or the smoke, quick or
/// default suite.
std::vector<Input> make_suite(const Config& config);

/// One line per input (--list).
void print_suite(const std::vector<Input>& suite);

// ---- machine context (machine.cpp) -------------------------------------------------------

/// Memory the dense operands may use: MemAvailable of /proc/meminfo (what the kernel
/// can hand out without swapping, all NUMA nodes together), or the topology's total
/// when /proc/meminfo cannot be read.
struct MemoryFigure {
  double bytes = 0;
  std::string source;  ///< "MemAvailable" or "topology total"
};
MemoryFigure available_memory(const Topology& topology);

/// Last-level cache of the machine in bytes: the deepest data cache level, all its
/// instances together.
double last_level_cache_bytes(const Topology& topology);

/// Probes the machine (STREAM, caches, memory, baseline libraries), prints the run's
/// header and returns the JSON context record; fills `options`' machine figures.
nlohmann::json probe_machine(const Config& config, const ExecutionContext& ctx,
                             RunOptions& options);

/// Releases what probe_machine initialised in the baseline libraries.
void release_machine();

// ---- run (run.cpp) ------------------------------------------------------------------------

struct RunResult {
  std::vector<Record> records;
  nlohmann::json loads = nlohmann::json::array();  ///< reader throughput per file
  int load_failures = 0;                           ///< named inputs that could not be loaded
};

/// Loads each input and runs its measurements, printing each group as it completes.
/// A file that cannot be loaded is skipped with a warning (counted in load_failures
/// when `named_inputs`).
RunResult run_suite(const ExecutionContext& ctx, const std::vector<Input>& suite,
                    const RunOptions& options, bool named_inputs);

// ---- report (report.cpp) -------------------------------------------------------------------

/// Prints the loads and the SUMMARY, writes --json and --csv, and returns the exit
/// status: 0 when every measurement verified (skipped ones count as verified), 1
/// when one failed verification or a named input could not be loaded.
int report(const Config& config, const nlohmann::json& context, const RunResult& run,
           const RunOptions& options);

}  // namespace mimd::bench
