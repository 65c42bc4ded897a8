// Device-specific tuning: every knob a kernel may turn comes from a profile chosen for
// the device, never from constants in kernel code.
#pragma once

#include <string>

#include "mimd/topology.hpp"

namespace mimd {

/// How LSSM combines the partial sums of a row split across several units.
enum class SplitCombine {
  Atomic,   ///< each unit adds its partial row into C with atomic adds
  TwoPass,  ///< units write partials to a buffer; a second pass adds them per row
};

const char* to_string(SplitCombine c) noexcept;

/// The knobs of the kernels for one device. Built by `default_profile` from the
/// topology and the backend; a JSON file can override any field (`load_profile`).
struct TuningProfile {
  std::string name;  ///< e.g. "cpu-avx512-l1_32k-l2_1m"; recorded by the benchmark

  // SpMM (LSSM)
  int spmm_block_nnz = 256;       ///< nonzeros per unit: rows longer are split, shorter merged
  int spmm_units_per_thread = 8;  ///< minimum units per thread before blocks are shrunk
  bool spmm_use_scratch = false;  ///< stage a unit's slice of A in team scratch memory
  SplitCombine spmm_combine = SplitCombine::TwoPass;
  int simd_bytes = 32;   ///< vector width for the loop over k
  int spmm_k_tile = 32;  ///< columns of B/C processed together for large k

  // BFS (direction-optimizing, Beamer et al. SC'12; GAP defaults)
  int bfs_alpha = 15;
  int bfs_beta = 18;
  int bfs_hub_degree = 4096;  ///< out-degree above which top-down splits a vertex's edges
  /// Top-down steps whose frontier holds fewer vertices + out-edges than this run in
  /// the calling thread (Kokkos::Serial, where it can reach the data) instead of
  /// paying a parallel launch: the long tails of high-diameter graphs. 0: never.
  int bfs_serial_edges = 4096;
  /// Graphs with fewer vertices + stored edges than this run every step of a search in
  /// the calling thread (Kokkos::Serial): on them a parallel launch per step costs more
  /// than the work. 0 disables it (GPUs).
  int bfs_serial_graph = 65536;

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

/// The profile for a backend ("OpenMP", "Serial", "Cuda", ...) on this topology:
/// block sizes from the cache sizes, SIMD width from the build and the CPU,
/// combine strategy and scratch use from the backend (atomics are cheap on GPUs,
/// contended on CPUs; scratch is shared memory on GPUs, plain L1 on CPUs).
TuningProfile default_profile(const Topology& topo, const std::string& backend);

/// Applies the fields present in a JSON file to `base`.
/// @throws IoError when the file cannot be read
/// @throws ParseError naming the file and the field when a value has the wrong type
TuningProfile load_profile(const std::string& path, TuningProfile base);

}  // namespace mimd
