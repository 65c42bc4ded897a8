// Topology discovery with hwloc, and SIMD detection (which hwloc does not report).
#include "mimd/topology.hpp"

#include <hwloc.h>
#include <unistd.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "mimd/error.hpp"

namespace mimd {

namespace {

struct HwlocTopology {
  hwloc_topology_t topo = nullptr;
  HwlocTopology() {
    if (hwloc_topology_init(&topo) != 0) throw RuntimeFailure("hwloc_topology_init failed");
    if (hwloc_topology_load(topo) != 0) {
      hwloc_topology_destroy(topo);
      throw RuntimeFailure("hwloc_topology_load failed");
    }
  }
  ~HwlocTopology() { hwloc_topology_destroy(topo); }
  HwlocTopology(const HwlocTopology&) = delete;
  HwlocTopology& operator=(const HwlocTopology&) = delete;
};

/// An info value of hwloc without the blanks around it (x86 model strings come padded to
/// 48 characters).
std::string info(hwloc_obj_t obj, const char* name) {
  const char* v = obj ? hwloc_obj_get_info_by_name(obj, name) : nullptr;
  std::string s = v ? v : "";
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

template <class T>
T parent_index(hwloc_topology_t topo, hwloc_obj_t obj, hwloc_obj_type_t type) {
  hwloc_obj_t p = hwloc_get_ancestor_obj_by_type(topo, type, obj);
  return p ? static_cast<T>(p->logical_index) : T(0);
}

}  // namespace

SimdInfo detect_simd() {
  SimdInfo s;
#if defined(__AVX512F__)
  s.build_isa = "avx512";
  s.build_bytes = 64;
#elif defined(__AVX2__)
  s.build_isa = "avx2";
  s.build_bytes = 32;
#elif defined(__AVX__)
  s.build_isa = "avx";
  s.build_bytes = 32;
#elif defined(__SSE2__)
  s.build_isa = "sse2";
  s.build_bytes = 16;
#elif defined(__ARM_NEON)
  s.build_isa = "neon";
  s.build_bytes = 16;
#else
  s.build_isa = "scalar";
  s.build_bytes = 8;
#endif
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    s.cpu_isa = "avx512";
    s.cpu_bytes = 64;
  } else if (__builtin_cpu_supports("avx2")) {
    s.cpu_isa = "avx2";
    s.cpu_bytes = 32;
  } else if (__builtin_cpu_supports("avx")) {
    s.cpu_isa = "avx";
    s.cpu_bytes = 32;
  } else {
    s.cpu_isa = "sse2";
    s.cpu_bytes = 16;
  }
  s.fma = __builtin_cpu_supports("fma");
#else
  s.cpu_isa = s.build_isa;
  s.cpu_bytes = s.build_bytes;
#if defined(__ARM_FEATURE_FMA)
  s.fma = true;
#endif
#endif
  return s;
}

Topology discover_topology() {
  HwlocTopology h;
  hwloc_topology_t topo = h.topo;
  Topology t;
  t.hwloc_version = HWLOC_VERSION;
  t.packages = std::max(1, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE));
  t.numa_nodes = std::max(1, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE));
  t.cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  t.pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
  if (t.cores <= 0) t.cores = t.pus;  // some VMs expose no core objects
  hwloc_obj_t root = hwloc_get_root_obj(topo);
  hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0);
  // The CPU's strings sit on the first package, or on the root where hwloc found none.
  const auto cpu_info = [&](const char* key) {
    std::string v = info(pkg, key);
    return v.empty() ? info(root, key) : v;
  };
  t.cpu_model = cpu_info("CPUModel");
  t.cpu_vendor = cpu_info("CPUVendor");
  const std::pair<const char*, const char*> id_keys[] = {
      {"CPUFamilyNumber", "family"},     {"CPUModelNumber", "model"}, {"CPUStepping", "stepping"},
      {"CPUImplementer", "implementer"}, {"CPUPart", "part"},         {"CPUVariant", "variant"},
      {"CPURevision", "revision"}};
  for (const auto& [key, label] : id_keys) {
    const std::string v = cpu_info(key);
    if (v.empty()) continue;
    if (!t.cpu_signature.empty()) t.cpu_signature += ' ';
    t.cpu_signature += std::string(label) + ' ' + v;
  }

  const hwloc_obj_type_t cache_types[] = {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE};
  for (int lvl = 0; lvl < 3; ++lvl) {
    const int n = hwloc_get_nbobjs_by_type(topo, cache_types[lvl]);
    if (n <= 0) continue;
    hwloc_obj_t c = hwloc_get_obj_by_type(topo, cache_types[lvl], 0);
    CacheLevel cl;
    cl.level = lvl + 1;
    cl.size_bytes = c->attr->cache.size;
    cl.line_bytes = static_cast<int>(c->attr->cache.linesize);
    cl.associativity = c->attr->cache.associativity;
    cl.instances = n;
    t.caches.push_back(cl);
  }

  const int nnuma = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
  for (int i = 0; i < nnuma; ++i) {
    hwloc_obj_t nn = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
    NumaNode node;
    node.os_index = static_cast<int>(nn->os_index);
    node.memory_bytes = nn->attr->numanode.local_memory;
    t.total_memory_bytes += node.memory_bytes;
    t.numa.push_back(node);
  }

  // Some VMs report less NUMA-local memory than the OS has (hot-plugged memory):
  // the total is the larger of the NUMA sum and what the OS reports.
  const auto os_bytes = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                        static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  t.total_memory_bytes = std::max(t.total_memory_bytes, os_bytes);

  const bool have_cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) > 0;
  const hwloc_obj_type_t core_type = have_cores ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
  for (int i = 0; i < t.cores; ++i) {
    hwloc_obj_t c = hwloc_get_obj_by_type(topo, core_type, static_cast<unsigned>(i));
    Core core;
    core.logical_index = static_cast<int>(c->logical_index);
    core.os_index = static_cast<int>(c->os_index);
    core.package = parent_index<int>(topo, c, HWLOC_OBJ_PACKAGE);
    unsigned pu_id;
    hwloc_bitmap_foreach_begin(pu_id, c->cpuset) {
      core.pus.push_back(static_cast<int>(pu_id));
    }
    hwloc_bitmap_foreach_end();
    // The NUMA node whose cpuset holds this core.
    for (int n = 0; n < nnuma; ++n) {
      hwloc_obj_t nn = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(n));
      if (hwloc_bitmap_isincluded(c->cpuset, nn->cpuset)) {
        core.numa_node = n;
        t.numa[static_cast<std::size_t>(n)].cores.push_back(core.logical_index);
        break;
      }
    }
    t.core_list.push_back(core);
  }
  t.simd = detect_simd();
  return t;
}

std::uint64_t Topology::cache_bytes(int level) const {
  for (const auto& c : caches)
    if (c.level == level) return c.size_bytes;
  return 0;
}

int Topology::line_bytes() const {
  for (const auto& c : caches)
    if (c.line_bytes > 0) return c.line_bytes;
  return 64;
}

namespace {
std::string bytes_text(std::uint64_t b) {
  std::ostringstream os;
  if (b >= (1ull << 30) && b % (1ull << 20) == 0)
    os << static_cast<double>(b) / static_cast<double>(1ull << 30) << " GiB";
  else if (b >= (1ull << 20))
    os << static_cast<double>(b) / static_cast<double>(1ull << 20) << " MiB";
  else
    os << b / 1024 << " KiB";
  return os.str();
}
}  // namespace

std::string Topology::to_text() const {
  std::ostringstream os;
  os << "CPU:        " << (cpu_model.empty() ? "unknown" : cpu_model) << " (" << cpu_vendor
     << (cpu_signature.empty() ? "" : ", ") << cpu_signature << ")\n";
  os << "Packages:   " << packages << "\nNUMA nodes: " << numa_nodes << "\nCores:      " << cores
     << "\nPUs:        " << pus << "\nMemory:     " << bytes_text(total_memory_bytes) << "\n";
  for (const auto& c : caches)
    os << "L" << c.level << " cache:   " << bytes_text(c.size_bytes) << " x " << c.instances
       << ", line " << c.line_bytes << " B\n";
  for (const auto& n : numa) {
    os << "NUMA node " << n.os_index << ": " << bytes_text(n.memory_bytes) << ", cores";
    for (int c : n.cores) os << ' ' << c;
    os << "\n";
  }
  for (const auto& c : core_list) {
    os << "core " << c.logical_index << " (os " << c.os_index << ", package " << c.package
       << ", numa " << c.numa_node << "): PUs";
    for (int p : c.pus) os << ' ' << p;
    os << "\n";
  }
  os << "SIMD:       build " << simd.build_isa << " (" << simd.build_bytes * 8 << " bit), CPU "
     << simd.cpu_isa << " (" << simd.cpu_bytes * 8 << " bit), FMA " << (simd.fma ? "yes" : "no")
     << "\nhwloc:      " << hwloc_version << "\n";
  return os.str();
}

std::string Topology::to_json() const {
  nlohmann::ordered_json j;
  j["cpu_model"] = cpu_model;
  j["cpu_vendor"] = cpu_vendor;
  j["cpu_signature"] = cpu_signature;
  j["packages"] = packages;
  j["numa_nodes"] = numa_nodes;
  j["cores"] = cores;
  j["pus"] = pus;
  j["memory_bytes"] = total_memory_bytes;
  j["caches"] = nlohmann::json::array();
  for (const auto& c : caches)
    j["caches"].push_back({{"level", c.level},
                           {"size_bytes", c.size_bytes},
                           {"line_bytes", c.line_bytes},
                           {"instances", c.instances},
                           {"associativity", c.associativity}});
  j["numa"] = nlohmann::json::array();
  for (const auto& n : numa)
    j["numa"].push_back(
        {{"os_index", n.os_index}, {"memory_bytes", n.memory_bytes}, {"cores", n.cores}});
  j["core_list"] = nlohmann::json::array();
  for (const auto& c : core_list)
    j["core_list"].push_back({{"logical_index", c.logical_index},
                              {"os_index", c.os_index},
                              {"package", c.package},
                              {"numa_node", c.numa_node},
                              {"pus", c.pus}});
  j["simd"] = {{"build_isa", simd.build_isa},
               {"build_bits", simd.build_bytes * 8},
               {"cpu_isa", simd.cpu_isa},
               {"cpu_bits", simd.cpu_bytes * 8},
               {"fma", simd.fma}};
  j["hwloc_version"] = hwloc_version;
  return j.dump(2);
}

}  // namespace mimd
