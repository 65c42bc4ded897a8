// The machine as the execution layer sees it, discovered with hwloc.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mimd {

/// One level of the cache hierarchy (the first object of that depth found by hwloc;
/// caches of one level are assumed alike).
struct CacheLevel {
  int level = 0;                 ///< 1, 2, 3
  std::uint64_t size_bytes = 0;  ///< per instance
  int line_bytes = 0;
  int instances = 0;      ///< how many such caches the machine has
  int associativity = 0;  ///< 0 when unknown, -1 fully associative
};

struct NumaNode {
  int os_index = 0;
  std::uint64_t memory_bytes = 0;
  std::vector<int> cores;  ///< logical indices of the cores it holds
};

struct Core {
  int logical_index = 0;
  int os_index = 0;
  int package = 0;
  int numa_node = 0;
  std::vector<int> pus;  ///< OS indices of its processing units (hyper-threads)
};

/// SIMD capabilities: what the build targets (compile-time macros) and what the CPU
/// supports (`__builtin_cpu_supports`); hwloc does not report either.
struct SimdInfo {
  std::string build_isa;  ///< widest ISA the compiler targets: "avx512", "avx2", "sse2", ...
  int build_bytes = 0;    ///< vector width in bytes the build targets (64, 32, 16)
  std::string cpu_isa;    ///< widest ISA the running CPU supports
  int cpu_bytes = 0;
  bool fma = false;  ///< CPU supports fused multiply-add
};

struct Topology {
  std::string cpu_model;   ///< e.g. "AMD EPYC" (hwloc CPUModel info)
  std::string cpu_vendor;  ///< e.g. "AuthenticAMD"
  /// The CPU's identification numbers as hwloc reads them, e.g. "family 26 model 2
  /// stepping 1" on x86 or "implementer 0x41 part 0xd0c variant 0x3 revision 1" on Arm;
  /// empty when hwloc gives none. A virtual machine's model string can be as vague as
  /// "Intel(R) Xeon(R) Processor"; these numbers still tell two CPU generations apart.
  std::string cpu_signature;
  std::string hwloc_version;  ///< library version string
  int packages = 0;
  int numa_nodes = 0;
  int cores = 0;
  int pus = 0;
  std::uint64_t total_memory_bytes = 0;
  std::vector<CacheLevel> caches;  ///< ordered L1, L2, L3 (data/unified caches only)
  std::vector<NumaNode> numa;
  std::vector<Core> core_list;
  SimdInfo simd;

  /// Size of the data cache of `level` per instance, or 0 if the level is absent.
  std::uint64_t cache_bytes(int level) const;
  /// Cache line size in bytes (64 when hwloc does not say).
  int line_bytes() const;

  /// Multi-line human-readable description.
  std::string to_text() const;
  /// JSON object (a string), stable field names; used by mimd-topology --json and the
  /// benchmark's context record.
  std::string to_json() const;
};

/// Discovers the machine with hwloc.
/// @throws RuntimeFailure when hwloc cannot load the topology
Topology discover_topology();

/// SIMD capabilities of the build and of the running CPU.
SimdInfo detect_simd();

}  // namespace mimd
