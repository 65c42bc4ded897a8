// mimd-bench: shared declarations of the benchmark program (not part of the library).
//
// Every measurement follows the same protocol: the implementation is prepared (not
// timed), run once and its result checked against mimd's reference (not timed), then
// warmed up and timed rep by rep, each rep ending with Kokkos::fence(). Reps come in
// rounds of at least `min_reps` reps and `min_seconds`; a round whose median exceeds
// its minimum by more than `clean_ratio` counts as disturbed and another round is run,
// up to `rounds`; the round with the lowest median is reported (its median, min, max).
// On a machine shared with other jobs a descheduled thread stalls a whole parallel
// region for a time slice; rounds hit by such foreign load are discarded this way
// instead of being averaged in (../shared/BASELINES.md: repeat or discard them).
// A measurement whose warm-up and timed calls together pass `time_limit` seconds ends
// there and is recorded as skipped (the limit is checked between calls).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/progress.hpp"
#include "impls.hpp"
#include "mimd/bfs.hpp"
#include "mimd/context.hpp"
#include "mimd/csr.hpp"

namespace mimd::bench {

// ---- measurement protocol ---------------------------------------------------------------

struct TimingPolicy {
  int min_reps = 10;
  double min_seconds = 0.3;  ///< total timed seconds per measurement
  double warmup_seconds = 0.02;
  int max_reps = 100000;      ///< per round
  int rounds = 3;             ///< at most
  double clean_ratio = 1.25;  ///< a round with median <= clean_ratio * min is final
  double time_limit = 30;     ///< seconds per measurement, warm-up included
};

struct Timing {
  double median = 0, min = 0, max = 0;
  int reps = 0;                ///< reps of the reported round
  int rounds = 0;              ///< rounds run
  bool clean = false;          ///< the reported round met the clean_ratio criterion
  bool limit_reached = false;  ///< stopped at the policy's time_limit: not a result
};

/// Times `fn` (which must fence) under `policy`: warm-up, then rep by rep, until done or
/// past the time limit.
Timing measure(const std::function<void()>& fn, const TimingPolicy& policy);

/// Median of a copy of `v` (v non-empty).
double median_of(std::vector<double> v);

// ---- one result row ---------------------------------------------------------------------

struct Record {
  std::string kernel;      ///< "spmm" or "bfs"
  std::string impl;        ///< "lssm", "kk_right", "graphblas", ...
  bool baseline = false;   ///< a peer library or the plain loop (not mimd)
  std::string input;       ///< short name or generator spec
  std::string input_kind;  ///< "real" (a dataset file) or "generated"
  std::string scalar;      ///< "double", "float", or "pattern" (bfs)
  std::int64_t rows = 0, cols = 0, nnz = 0;
  double mean_row = 0;
  std::int64_t max_row = 0;
  int k = 0;  ///< SpMM columns of B; 0 for bfs
  int threads = 0;
  Timing time;        ///< median/min/max seconds per call (bfs: per source)
  double gflops = 0;  ///< SpMM: 2 nnz k / median
  /// BFS, GAP's definition: undirected edges of the whole graph / mean time per source
  /// (the table's GTEPS).
  double gteps_gap = 0;
  /// BFS, Graph500's definition: harmonic mean over the sources of the undirected edges
  /// of the component reached / time.
  double gteps_graph500 = 0;
  double gbps = 0;       ///< SpMM effective bandwidth, see spmm_bytes()
  double pct_triad = 0;  ///< gbps / STREAM triad
  /// SpMM: bytes of A + B + C (spmm_footprint) and whether they exceed the last-level
  /// cache; with nnz they place the record in its size classes (size_class()).
  double footprint_bytes = 0;
  bool above_llc = false;
  bool verified = false;
  /// Why the measurement did not run or did not finish (memory, time limit, no edges,
  /// ...); empty when it was measured. A skipped record counts as verified.
  std::string skip_reason;
  /// mimd SpMM: wall time of the plan's inspection (SpmmPlan::inspect_seconds), made
  /// once per matrix and reused by every call; -1 for implementations without a plan.
  double inspect_s = -1;
  std::string note;  ///< why a measurement was skipped or failed, or plan details
};

/// SpMM traffic model, in bytes, for one C = A*B with A m x n (nnz entries), B n x k,
/// C m x k: A read once (values, column indices, row offsets), B read once (every
/// column of B is assumed to be reused from cache: the compulsory-miss model), C read
/// and written once. Real reuse of B is imperfect, so the figure is a lower bound on
/// traffic and "effective" GB/s is an honest, comparable rate, never an overestimate.
double spmm_bytes(std::int64_t m, std::int64_t n, std::int64_t nnz, int k, int scalar_bytes);
/// Bytes of A, B and C together (each once): the working set compared with the
/// last-level cache for the size classes.
double spmm_footprint(std::int64_t m, std::int64_t n, std::int64_t nnz, int k, int scalar_bytes);

/// Nonzeros from which a matrix counts as "large" in the summary's size classes.
constexpr std::int64_t kLargeNnz = 100000;
/// "llc+" (footprint above the last-level cache), "100k+" (at least kLargeNnz
/// nonzeros) or "small": the table's size column.
std::string size_class(const Record& r);

// ---- machine probe ----------------------------------------------------------------------

struct StreamResult {
  double copy_gbps = 0;   ///< best of the reps, STREAM convention (16 bytes per element)
  double triad_gbps = 0;  ///< best of the reps (24 bytes per element)
  std::int64_t elements = 0;
  int threads = 0;
};

/// STREAM copy and triad on three arrays of `elements` doubles, first-touch
/// initialised by the same threads and schedule as the timed loops.
StreamResult run_stream(std::int64_t elements, int threads, int reps);

// ---- inputs ------------------------------------------------------------------------------

struct Input {
  std::string name;  ///< what the user typed or the dataset's short name
  std::string path;  ///< resolved file, empty for generated inputs
  std::string spec;  ///< generator spec, empty for files
  bool real = false;
  bool spmm = false;    ///< run SpMM on it
  bool bfs = false;     ///< run BFS on it
  std::vector<int> ks;  ///< SpMM k values for this input (empty: the run's list)
};

// ---- running ------------------------------------------------------------------------------

struct RunOptions {
  std::vector<int> ks;
  bool run_double = true;
  bool run_float = false;
  std::vector<std::string> spmm_algorithms;  ///< mimd algorithm names
  std::vector<std::string> bfs_algorithms;
  std::vector<std::string> baselines;  ///< names of the baselines to run
  int sources = 64;
  std::uint64_t seed = 20261130;
  TimingPolicy timing;
  int threads = 0;
  double triad_gbps = 0;
  double llc_bytes = 0;     ///< last-level cache, all instances
  double memory_bytes = 0;  ///< memory the dense operands may take (see driver.hpp)
  std::string memory_source;
};

/// The progress line (step / note / done), shown only when stderr is a terminal.
using Progress = core_detail::Progress;

/// Runs every selected SpMM implementation on one input (all k, all precisions).
/// Returns the records (failed verifications included, verified = false).
std::vector<Record> bench_spmm(const ExecutionContext& ctx, const Input& input,
                               const HostCsr<double>& a, const RunOptions& options,
                               Progress& progress);
/// Runs every selected BFS implementation on one input (its symmetrised pattern).
std::vector<Record> bench_bfs(const ExecutionContext& ctx, const Input& input,
                              const HostCsr<double>& a, const RunOptions& options,
                              Progress& progress);
/// Number of progress items bench_spmm / bench_bfs will report for these options.
int spmm_steps(const Input& input, const RunOptions& options);
int bfs_steps(const RunOptions& options);

// ---- output ------------------------------------------------------------------------------

/// The table header and the rows of one group (one input x kernel), with speedups of
/// every mimd row against each baseline of the same input, k and precision.
void print_table_header();
void print_group(const std::vector<Record>& group);
/// Rate ratio of `r` over baseline `b` (0 when either is missing or unverified).
double speedup(const Record& r, const Record& b);

/// One record as written by --json; CSV has the same fields as columns.
nlohmann::json record_json(const Record& r);
std::string csv_header();
std::string csv_row(const Record& r);

/// Prints the SUMMARY block (each target with PASS/MISS) and returns it as JSON.
/// The bandwidth target applies to generated inputs whose traffic model exceeds twice
/// `llc_bytes` (the last-level cache): the memory-bound cases.
nlohmann::json print_summary(const std::vector<Record>& records, double triad_gbps,
                             double llc_bytes);

}  // namespace mimd::bench
