// Execution layer: topology discovery, thread binding, tuning profiles.
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "mimd/context.hpp"
#include "mimd/error.hpp"
#include "mimd/memory.hpp"
#include "support/test_context.hpp"

namespace {

TEST(Topology, CountsMatchTheOperatingSystem) {
  const auto topo = mimd::discover_topology();
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  EXPECT_EQ(topo.pus, online) << "hwloc PUs vs sysconf(_SC_NPROCESSORS_ONLN)";
  EXPECT_GE(topo.cores, 1);
  EXPECT_LE(topo.cores, topo.pus);
  EXPECT_EQ(static_cast<int>(topo.core_list.size()), topo.cores);
  int pus_in_cores = 0;
  for (const auto& c : topo.core_list) pus_in_cores += static_cast<int>(c.pus.size());
  EXPECT_EQ(pus_in_cores, topo.pus);
  EXPECT_GE(topo.packages, 1);
  EXPECT_GE(topo.numa_nodes, 1);
  EXPECT_GT(topo.total_memory_bytes, 0u);
}

TEST(Topology, CachesAreOrderedAndPlausible) {
  const auto topo = mimd::discover_topology();
  ASSERT_FALSE(topo.caches.empty()) << "hwloc found no cache";
  for (std::size_t i = 0; i < topo.caches.size(); ++i) {
    EXPECT_GT(topo.caches[i].size_bytes, 0u);
    if (i > 0) {
      EXPECT_GT(topo.caches[i].level, topo.caches[i - 1].level);
      EXPECT_GE(topo.caches[i].size_bytes, topo.caches[i - 1].size_bytes);
    }
  }
  const int line = topo.line_bytes();
  EXPECT_TRUE(line == 32 || line == 64 || line == 128) << line;
}

TEST(Topology, SimdBuildNeverExceedsCpu) {
  const auto s = mimd::detect_simd();
  EXPECT_GE(s.build_bytes, 8);
  // A binary that targets wider vectors than the CPU has would not have started.
  EXPECT_LE(s.build_bytes, s.cpu_bytes);
}

TEST(Topology, JsonHasTheDocumentedFields) {
  const auto topo = mimd::discover_topology();
  const auto j = nlohmann::json::parse(topo.to_json());
  for (const char* key : {"cpu_model", "cpu_signature", "packages", "numa_nodes", "cores", "pus",
                          "memory_bytes", "caches", "numa", "core_list", "simd", "hwloc_version"})
    EXPECT_TRUE(j.contains(key)) << key;
#if defined(__x86_64__) || defined(__i386__)
  // hwloc reads the numbers from CPUID (or /proc/cpuinfo) on every x86 machine.
  EXPECT_EQ(topo.cpu_signature.rfind("family ", 0), 0u) << topo.cpu_signature;
#endif
  EXPECT_EQ(j["cores"].get<int>(), topo.cores);
  EXPECT_EQ(j["caches"].size(), topo.caches.size());
  EXPECT_NE(topo.to_text().find("Cores:"), std::string::npos);
}

TEST(Context, OneBoundThreadPerCoreByDefault) {
  const auto& ctx = mimd::testing::context();
  EXPECT_EQ(ctx.num_threads(), ctx.topology().cores);
  ASSERT_EQ(static_cast<int>(ctx.bindings().size()), ctx.num_threads());
  std::vector<int> cores;
  for (const auto& b : ctx.bindings()) {
    EXPECT_TRUE(b.verified) << "thread " << b.thread << " runs on PU " << b.observed_pu
                            << " outside its cpuset " << b.cpuset;
    EXPECT_GE(b.bound_core, 0);
    cores.push_back(b.bound_core);
  }
  std::sort(cores.begin(), cores.end());
  EXPECT_EQ(std::unique(cores.begin(), cores.end()), cores.end()) << "two threads on one core";
  EXPECT_EQ(ctx.backend(), Kokkos::DefaultExecutionSpace::name());
}

// The CPUs in a cpuset list such as "0-3,8" (hwloc's list format, OS indices).
std::vector<int> cpus_of(const std::string& list) {
  std::vector<int> cpus;
  std::size_t pos = 0;
  while (pos < list.size()) {
    const std::size_t end = std::min(list.find(',', pos), list.size());
    const std::string part = list.substr(pos, end - pos);
    const std::size_t dash = part.find('-');
    const int first = std::stoi(part.substr(0, dash));
    const int last = dash == std::string::npos ? first : std::stoi(part.substr(dash + 1));
    for (int c = first; c <= last; ++c) cpus.push_back(c);
    pos = end + 1;
  }
  return cpus;
}

// The binding must hold for the threads that run Kokkos' host kernels, whatever the
// backend (OpenMP, Threads): seen from inside a Kokkos parallel_for, each pool thread's
// affinity is exactly the cpuset the context recorded for it.
TEST(Context, KokkosHostThreadsRunWhereTheyAreBound) {
  using Host = Kokkos::DefaultHostExecutionSpace;
  const auto& ctx = mimd::testing::context();
  const int n = ctx.num_threads();
  ASSERT_EQ(Host().concurrency(), n);
  std::vector<std::vector<int>> affinity(static_cast<std::size_t>(n));
  std::vector<char> seen(static_cast<std::size_t>(n), 0);
  for (int round = 0; round < 8 && std::count(seen.begin(), seen.end(), 1) < n; ++round) {
    Kokkos::parallel_for(
        Kokkos::RangePolicy<Host, Kokkos::Schedule<Kokkos::Static>>(0, n).set_chunk_size(1),
        [&](int) {
          const auto t = static_cast<std::size_t>(Host::impl_hardware_thread_id());
          if (t >= seen.size()) return;
          cpu_set_t mask;
          CPU_ZERO(&mask);
          if (sched_getaffinity(0, sizeof mask, &mask) == 0)
            for (int c = 0; c < CPU_SETSIZE; ++c)
              if (CPU_ISSET(c, &mask)) affinity[t].push_back(c);
          seen[t] = 1;
        });
    Kokkos::fence();
  }
  for (int t = 0; t < n; ++t) {
    const auto& b = ctx.bindings()[static_cast<std::size_t>(t)];
    ASSERT_TRUE(seen[static_cast<std::size_t>(t)]) << "Kokkos thread " << t << " never ran";
    EXPECT_EQ(affinity[static_cast<std::size_t>(t)], cpus_of(b.cpuset))
        << "Kokkos thread " << t << " of " << Host::name() << " is not bound to " << b.cpuset;
  }
}

TEST(Context, SecondContextSharesTheRuntime) {
  // Kokkos is already initialised (by the test driver): a new context must not
  // re-initialise it and must use the existing pool.
  mimd::ExecutionContext other;
  EXPECT_EQ(other.num_threads(), mimd::testing::context().num_threads());
  EXPECT_EQ(other.owns_kokkos(), mimd::testing::context().owns_kokkos());
}

TEST(Context, RejectsImpossibleThreadCounts) {
  mimd::ContextOptions neg;
  neg.num_threads = -1;
  EXPECT_THROW(mimd::ExecutionContext{neg}, mimd::InvalidArgument);
  mimd::ContextOptions many;
  many.num_threads = mimd::discover_topology().pus + 1;
  try {
    mimd::ExecutionContext c{many};
    FAIL() << "more bound threads than PUs accepted";
  } catch (const mimd::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("PUs"), std::string::npos) << e.what();
  }
}

TEST(Tuning, CpuProfileFollowsTheCaches) {
  mimd::Topology topo = mimd::discover_topology();
  topo.caches = {{1, 32 * 1024, 64, 1, 8}, {2, 256 * 1024, 64, 1, 8}};
  const auto small = mimd::default_profile(topo, "OpenMP");
  topo.caches[1].size_bytes = 1024 * 1024;
  const auto large = mimd::default_profile(topo, "OpenMP");
  EXPECT_GT(large.spmm_block_nnz, small.spmm_block_nnz);
  EXPECT_EQ(small.spmm_combine, mimd::SplitCombine::TwoPass);
  const auto gpu = mimd::default_profile(topo, "Cuda");
  EXPECT_EQ(gpu.spmm_combine, mimd::SplitCombine::Atomic);
  EXPECT_TRUE(gpu.spmm_use_scratch);
  EXPECT_EQ(gpu.team_vector, 32);
  EXPECT_EQ(small.team_vector, 1);
  EXPECT_EQ(small.bfs_alpha, 15);
  EXPECT_EQ(small.bfs_beta, 18);
}

// A worker's own copy of the blocks of B its rows read may cost at most 4 times its part
// of one shared copy: any share of B on up to 4 cores, a quarter on 16.
TEST(Tuning, LeftBlocksBoundFollowsTheCores) {
  mimd::Topology topo = mimd::discover_topology();
  for (const auto& [cores, pct] :
       {std::pair{1, 100}, {2, 100}, {4, 100}, {8, 50}, {16, 25}, {64, 6}, {1024, 1}}) {
    topo.cores = cores;
    EXPECT_EQ(mimd::default_profile(topo, "OpenMP").spmm_left_blocks_pct, pct) << cores;
  }
  EXPECT_EQ(mimd::default_profile(topo, "Cuda").spmm_left_blocks_pct, 0);
}

TEST(Tuning, JsonOverridesAndRejectsBadValues) {
  const std::string path = ::testing::TempDir() + "/mimd_profile.json";
  {
    std::ofstream f(path);
    f << R"({"spmm_block_nnz": 77, "spmm_combine": "atomic", "bfs_alpha": 9})";
  }
  const auto base = mimd::default_profile(mimd::discover_topology(), "OpenMP");
  const auto p = mimd::load_profile(path, base);
  EXPECT_EQ(p.spmm_block_nnz, 77);
  EXPECT_EQ(p.spmm_combine, mimd::SplitCombine::Atomic);
  EXPECT_EQ(p.bfs_alpha, 9);
  EXPECT_EQ(p.bfs_beta, base.bfs_beta);
  {
    std::ofstream f(path);
    f << R"({"spmm_block_nnz": "big"})";
  }
  try {
    mimd::load_profile(path, base);
    FAIL() << "a string block size was accepted";
  } catch (const mimd::ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("spmm_block_nnz"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_THROW(mimd::load_profile(path + ".missing", base), mimd::IoError);
  {
    std::ofstream f(path);
    f << R"({"team_size": 3, "team_vector": 8, "team_scratch_bytes": 0})";
  }
  const auto team = mimd::load_profile(path, base);
  EXPECT_EQ(team.team_size, 3);
  EXPECT_EQ(team.team_vector, 8);
  EXPECT_EQ(team.team_scratch_bytes, 0);
  {
    std::ofstream f(path);
    f << R"({"team_vector": 0})";
  }
  try {
    mimd::load_profile(path, base);
    FAIL() << "a team of 0 lanes was accepted";
  } catch (const mimd::ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("'team_vector' must lie in [1, "), std::string::npos)
        << e.what();
  }
  std::remove(path.c_str());
}

}  // namespace

namespace {

#if defined(__linux__)
TEST(Memory, AvailableMemoryIsReportedAndBoundedByTheMachine) {
  const std::uint64_t available = mimd::available_memory_bytes();
  EXPECT_GT(available, 0u);
  EXPECT_LE(available, mimd::testing::context().topology().total_memory_bytes);
}
#endif

TEST(Memory, FirstTouchZeroesAndPlacesOnAKnownNode) {
  const auto& ctx = mimd::testing::context();
  const std::size_t n = 1 << 20;
  auto v = mimd::allocate<double>("ft", n);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += h(i);
  EXPECT_EQ(sum, 0.0);
  const int node = mimd::numa_node_of(v.data());
  EXPECT_GE(node, 0) << "hwloc could not locate a touched page";
  bool known = false;
  for (const auto& nn : ctx.topology().numa) known |= nn.os_index == node;
  EXPECT_TRUE(known) << "page on node " << node << " which the topology does not list";
  auto s = mimd::allocate<int>("serial", 1000, mimd::Placement::Serial);
  EXPECT_EQ(s.extent(0), 1000u);
}

}  // namespace
