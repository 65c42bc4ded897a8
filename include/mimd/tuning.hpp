// Device-specific tuning: every knob a kernel may turn comes from a profile chosen for
// the device, never from constants in kernel code. A profile is derived from the
// topology (`default_profile`) and may be replaced by one that `mimd-tune` measured on
// the device and stored under the device's fingerprint (`load_device_profile`).
#pragma once

#include <cstdint>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "mimd/topology.hpp"

namespace mimd {

/// How LSSM combines the partial sums of a row split across several units.
enum class SplitCombine {
  Atomic,   ///< each unit adds its partial row into C with atomic adds
  TwoPass,  ///< units write partials to a buffer; a second pass adds them per row
};

const char* to_string(SplitCombine c) noexcept;

/// How SpMM runs on column-major (LayoutLeft) B and C.
enum class LeftStrategy {
  Tile,  ///< the micro-kernel reads B in place, at most spmm_left_k_tile columns at a time
  Pack,  ///< for k >= spmm_left_pack_min_k (Tile below): B copied into row-major panels
         ///< of columns (spmm_left_panel_bytes) per call, the row-major micro-kernel run on
         ///< each, C written in place 8 rows at a time through register transposes
};

const char* to_string(LeftStrategy s) noexcept;

/// Auto's rule, fitted by mimd-tune on its training inputs: a decision list over the
/// matrix features. The first row whose limits the matrix meets gives the algorithm: k <=
/// k_max, row-length coefficient of variation (standard deviation / mean of the row
/// lengths) <= cv_max, row-split imbalance (mimd::row_split_imbalance over the context's
/// threads: what a static split of the rows costs row_parallel) <= imbalance_max, stored
/// nonzeros <= nnz_max and longest row <= max_row_max; when no row matches (or there are
/// none: the derived default), LSSM (mimd::kAutoFallback, spmm.hpp).
struct AutoRule {
  struct Row {
    int k_max = 0;
    double cv_max = 0;
    std::string algorithm;       ///< "lssm", "merge_path" or "row_parallel"
    double imbalance_max = 1e9;  ///< optional in the JSON file (no limit when absent)
    double nnz_max = 1e18;       ///< optional in the JSON file (no limit when absent)
    double max_row_max = 1e18;   ///< optional in the JSON file (no limit when absent)
  };
  std::vector<Row> rows;
};

/// The knobs of the kernels for one device. Built by `default_profile` from the
/// topology and the backend; a JSON file can override any field (`load_profile`).
/// The valid range of every integer knob is in `int_knobs()`.
struct TuningProfile {
  std::string name;  ///< e.g. "cpu-avx512-l1_32k-l2_1m"; recorded by the benchmark
  /// `device_fingerprint` of the device the profile was measured on; empty for derived
  /// defaults and hand-written overrides (which fit any device).
  std::string fingerprint;

  // SpMM (LSSM, merge path, the micro-kernel)
  int spmm_block_nnz = 256;       ///< nonzeros per unit: rows longer are split, shorter merged
  int spmm_units_per_thread = 8;  ///< minimum units (LSSM) / shares (merge path) per thread
  /// A block is never shrunk below max(spmm_block_floor, spmm_block_floor_work / k)
  /// nonzeros: a unit must carry enough multiply-adds to pay for its hand-out.
  int spmm_block_floor = 64;
  int spmm_block_floor_work = 8192;
  bool spmm_use_scratch = false;  ///< stage a unit's slice of A in team scratch memory
  SplitCombine spmm_combine = SplitCombine::TwoPass;
  /// Vector width of the micro-kernel in bytes (8: scalar, 16, 32, 64); the kernels
  /// use the widest width built that is <= this and that the CPU supports.
  int simd_bytes = 32;
  int spmm_k_tile = 32;  ///< columns of B/C processed together for large k (row-major)
  LeftStrategy spmm_left_strategy = LeftStrategy::Pack;
  int spmm_left_k_tile = 8;  ///< LeftStrategy::Tile: widest tile on column-major B
  /// LeftStrategy::Pack: the smallest k that is packed (smaller k read B in place): the
  /// copy of B costs n * k moves whatever the matrix, the in-place reads k scalar loads per
  /// nonzero, so small k favours reading in place.
  int spmm_left_pack_min_k = 16;
  /// LeftStrategy::Pack: B is packed and multiplied a panel of columns at a time, each
  /// panel's packed copy at most this many bytes (8 columns at least; all k in one panel
  /// when it fits): a panel's columns of B, their copy and its columns of C then stay in
  /// the last-level cache together, where B, its whole copy and C would not (A is read
  /// once per panel).
  int spmm_left_panel_bytes = 8 << 20;
  /// LeftStrategy::Pack on several threads: from this k on (and with 8 columns a worker at
  /// least) the columns are split between the workers, each packing its own columns of B
  /// (panels of spmm_left_panel_bytes) and computing them for all rows, whatever
  /// the plan's algorithm; below it the plan's algorithm splits the rows over one shared
  /// copy. Split columns write no line of the copy or of C that another core reads or
  /// writes, but every worker reads all of A.
  int spmm_left_split_min_k = 16;
  /// LeftStrategy::Pack on several threads where the columns are not split (k below
  /// spmm_left_split_min_k or under 8 columns a worker) and the threads reach the matrix:
  /// the rows are split into one share per worker (about equal nonzeros + rows), and each
  /// worker copies the blocks of 8 rows of B its share reads into its own copy and
  /// computes its share from it, whatever the plan's algorithm, when no worker reads more
  /// than this percent of B's blocks; otherwise (and at 0) the plan's algorithm splits the
  /// rows over one shared copy. Own copies write no line another core reads; the cost is
  /// the blocks two shares both read, copied by both (at 100, a matrix whose every share
  /// reads all of B copies all of B on every worker). The plan keeps the renumbered column
  /// indices (4 bytes a nonzero). Derived: 400 / cores, at most 100 (a worker's copy at
  /// most 4 times its share of one shared copy).
  int spmm_left_blocks_pct = 100;
  /// SpMM calls of at most this much work, (nnz + m) * k with k rounded up to whole SIMD
  /// vectors (a nonzero's multiply-adds and a row's k results each cost at least one
  /// vector), run in the calling thread
  /// (Kokkos::Serial, where it can reach the data: the micro-kernel over all rows, the pack
  /// of column-major B included) instead of paying a parallel launch; the reference
  /// algorithm is never moved. 0: never (GPUs).
  /// One threshold per class of k (spmm_serial_work_field): the calls of k <= 2 columns,
  /// 3-16, 17-64 and more, each measured at the k of its name. The crossover moves with k
  /// and not in step with the work: in one run on a 2-core Zen 4 VM the row loop beat a
  /// launch up to 19, 12, 27 and 27 Ki of work at k = 1, 8, 32 and 128, on a 2-core Zen 5 VM
  /// past 78 Ki at k = 1 and 131 Ki at k = 32 but not at 78 Ki at k = 8; one threshold for
  /// every k either sends some k's calls serially past their crossover or launches others
  /// well below it (lp_afiro at k = 128, 14 Ki of work, about 3x slower launched).
  int spmm_serial_work_k1 = 20480;
  int spmm_serial_work_k8 = 20480;
  int spmm_serial_work_k32 = 20480;
  int spmm_serial_work_k128 = 20480;
  /// LSSM calls (without scratch staging) of at most this much work, counted as
  /// spmm_serial_work_k* count it, hand out no units at run time: each worker runs the units
  /// of its own range (equal shares of the plan's units, so of nonzeros + rows) in order,
  /// with no work counter and no stealing. Dynamic hand-out moves the counters' cache lines
  /// between cores (about 1 us a call on a 2-core VM), which a call of a few microseconds
  /// may not win back; larger calls keep it, against uneven rows and uneven cores. 0:
  /// never (the derived default).
  int spmm_static_work = 0;

  // BFS (direction-optimizing, Beamer et al. SC'12; GAP defaults)
  int bfs_alpha = 15;
  int bfs_beta = 18;
  int bfs_hub_degree = 4096;  ///< largest block of edges a top-down work item takes
  /// Top-down steps whose frontier holds fewer vertices + out-edges than this run in
  /// the calling thread (Kokkos::Serial, where it can reach the data) instead of
  /// paying a parallel launch: the long tails of high-diameter graphs. 0: never.
  int bfs_serial_edges = 4096;
  /// Graphs with fewer vertices + stored edges than this run every step of a search in
  /// the calling thread (Kokkos::Serial): on them a parallel launch per step costs more
  /// than the work. 0 disables it (GPUs).
  int bfs_serial_graph = 65536;
  int bfs_td_blocks_per_thread = 8;  ///< top-down: edge blocks per thread (dynamic schedule)
  int bfs_td_min_block_edges = 256;  ///< top-down: smallest edge block worth a work item
  int bfs_td_prefetch_vertices = 8;  ///< top-down: prefetch distance in frontier vertices
  int bfs_td_prefetch_edges = 16;    ///< top-down: prefetch distance of parents, in edges
  int bfs_bu_chunk_words = 16;       ///< bottom-up: bitmap words per dynamic chunk
  int bfs_append_words = 4;          ///< bitmap-to-queue: bitmap words per work item

  /// Auto's algorithm rule (see AutoRule).
  AutoRule auto_rule;
  /// Micro-probes measured by mimd-tune (name, value; units in the name), in order.
  std::vector<std::pair<std::string, double>> probes;

  // Team kernels (lssm_team and the *_team BFS variants): the launch shape of the
  // GPU-shaped kernels, which run on every backend.
  /// Threads per team, >= 0; 0: Kokkos::AUTO. Clamped to the backend's team_size_max.
  int team_size = 0;
  /// Vector lanes per team thread, >= 1; rounded down to a power of two and clamped to
  /// the backend's vector_length_max. 1 on CPUs (a thread's lanes are its SIMD micro-
  /// kernel), 32 on GPUs (a warp).
  int team_vector = 1;
  /// Team scratch a team may stage into, bytes, >= 0 (clamped to the backend's level-0
  /// scratch_size_max): team LSSM stages a unit's slice of A only when it fits; team
  /// top-down BFS takes at most this / 8 frontier edges per team (a claimed vertex and its
  /// degree each).
  int team_scratch_bytes = 32768;

  /// JSON object with every field.
  std::string to_json() const;
};

/// One integer knob of TuningProfile and its valid range (inclusive).
struct IntKnob {
  /// Named, not spelt out in the member: nvcc's front end re-emits `int TuningProfile::*field`
  /// as `int (TuningProfile::*field)`, which g++ -Wparentheses rejects.
  using Field = int TuningProfile::*;
  const char* name;  ///< the JSON field, e.g. "spmm_block_nnz"
  Field field;       ///< the knob's member of TuningProfile
  int min;
  int max;
};

/// Every integer knob, in the order of the JSON file: the one table of valid ranges.
const std::vector<IntKnob>& int_knobs();

/// Checks every knob against its range and Auto's rule against its grammar.
/// @throws InvalidArgument naming `where`, the field, its value and the range
void validate_profile(const TuningProfile& p, const std::string& where);

/// The profile for a backend ("OpenMP", "Serial", "Cuda", ...) on this topology:
/// block sizes from the cache sizes, SIMD width from the build and the CPU,
/// combine strategy and scratch use from the backend (atomics are cheap on GPUs,
/// contended on CPUs; scratch is shared memory on GPUs, plain L1 on CPUs).
TuningProfile default_profile(const Topology& topo, const std::string& backend);

/// Applies the fields present in a JSON file to `base` and validates the result.
/// @throws IoError when the file cannot be read
/// @throws ParseError naming the file and the field for invalid JSON, a value of the
///         wrong type, an unknown field, or a value outside its range
TuningProfile load_profile(const std::string& path, TuningProfile base);

/// Writes `p` as JSON to `path` (the folders are created).
/// @throws IoError when the file cannot be written
void save_profile(const TuningProfile& p, const std::string& path);

/// The device as a profile is keyed by: CPU model and signature (family, model and
/// stepping numbers, `Topology::cpu_signature`), packages, cores, PUs, NUMA nodes,
/// cache sizes and line size, SIMD width of the build and of the CPU, compiler, Kokkos
/// version and backend, library version. Canonical JSON text (compact, fixed order).
std::string device_fingerprint(const Topology& topo, const std::string& backend,
                               const std::string& kokkos_version);

/// 16 hex digits (64-bit FNV-1a) of a fingerprint: the file name of its profile.
std::string fingerprint_hash(const std::string& fingerprint);

/// Where a profile for `fingerprint` is looked for: $XDG_CACHE_HOME, else $HOME/.cache,
/// then mimd-kernels/profiles/<hash>.json; empty when neither variable is set.
std::string profile_cache_path(const std::string& fingerprint);

/// The outcome of `load_device_profile`.
struct ProfileLoad {
  TuningProfile profile;
  std::string source;   ///< the file loaded, or "derived defaults"
  std::string warning;  ///< why a file was not used (empty when none or all is well)
};

/// The profile a context uses: the file at `path` if given, else $MIMD_PROFILE, else
/// the cache file of this device's fingerprint; when that file is missing (explicit
/// path only: a missing cache file is the normal, untuned case), unreadable, corrupt,
/// truncated, out of range or made for another (non-empty) fingerprint, `base` with a
/// warning.
/// Never throws for a bad file.
ProfileLoad load_device_profile(const TuningProfile& base, const std::string& fingerprint,
                                const std::string& path);

/// SIMD widths (bytes) the SpMM micro-kernel is compiled for, ascending: 8 (scalar)
/// and 16 everywhere, 32 and 64 on x86-64 with GCC or Clang (function target
/// attributes, whatever -march says).
std::vector<int> built_simd_widths();

/// The width the micro-kernel runs at for a profile's simd_bytes: the widest built
/// width <= `requested` that the running CPU supports (at least 8).
int effective_simd_width(int requested);

/// The k at which each of TuningProfile's serial thresholds is measured, in the order of
/// their classes (spmm_serial_work_class).
inline constexpr int kSpmmSerialWorkK[] = {1, 8, 32, 128};

/// The class of a call of `k` columns for the serial threshold: the index in
/// kSpmmSerialWorkK of the nearest k on a log scale, the geometric mean of two neighbours
/// going to the lower (k <= 2: 0, 3-16: 1, 17-64: 2, more: 3).
inline int spmm_serial_work_class(std::int64_t k) {
  constexpr int classes = static_cast<int>(std::size(kSpmmSerialWorkK));
  int c = 0;
  const double kk = static_cast<double>(k) * static_cast<double>(k);  // no overflow at any k
  while (c + 1 < classes && kk > double(kSpmmSerialWorkK[c]) * double(kSpmmSerialWorkK[c + 1])) ++c;
  return c;
}

/// The serial threshold (TuningProfile::spmm_serial_work_k*) for calls of `k` columns.
inline IntKnob::Field spmm_serial_work_field(std::int64_t k) {
  constexpr IntKnob::Field fields[] = {
      &TuningProfile::spmm_serial_work_k1, &TuningProfile::spmm_serial_work_k8,
      &TuningProfile::spmm_serial_work_k32, &TuningProfile::spmm_serial_work_k128};
  return fields[spmm_serial_work_class(k)];
}

/// Sets every class's serial threshold to `work` (0: no call runs serially).
inline void set_spmm_serial_work(TuningProfile& p, int work) {
  for (const int k : kSpmmSerialWorkK) p.*spmm_serial_work_field(k) = work;
}

/// The columns a call of `k` columns counts for in TuningProfile::spmm_serial_work_k* and
/// spmm_static_work: k rounded up to whole vectors of `simd_bytes` (the effective width)
/// of elements of `scalar_bytes`, one lane at least. A call's work is (nnz + m) times it.
inline std::int64_t spmm_work_columns(std::int64_t k, int simd_bytes, int scalar_bytes) {
  const std::int64_t lanes = simd_bytes > scalar_bytes ? simd_bytes / scalar_bytes : 1;
  return (k + lanes - 1) / lanes * lanes;
}

/// Whether a parallel LeftStrategy::Pack call of `k` columns on `threads` workers splits
/// the columns between the workers (TuningProfile::spmm_left_split_min_k): from
/// `split_min_k` on, with 8 columns (one packed group) a worker at least. Otherwise the
/// rows are split, by the blocks of B they read or over one shared copy.
inline bool spmm_left_splits_columns(std::int64_t k, int split_min_k, int threads) {
  return threads > 1 && k >= split_min_k && k >= 8 * static_cast<std::int64_t>(threads);
}

}  // namespace mimd
