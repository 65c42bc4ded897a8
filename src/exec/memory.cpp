#include "mimd/memory.hpp"

#include <hwloc.h>

#include <fstream>
#include <limits>

namespace mimd {

std::uint64_t available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  while (meminfo >> key >> kib) {
    if (key == "MemAvailable:") return kib * 1024;
    meminfo.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return 0;
}

int numa_node_of(const void* ptr) {
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return -1;
  if (hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    return -1;
  }
  int node = -1;
  hwloc_nodeset_t set = hwloc_bitmap_alloc();
  if (hwloc_get_area_memlocation(topo, ptr, 1, set, HWLOC_MEMBIND_BYNODESET) == 0 &&
      !hwloc_bitmap_iszero(set))
    node = hwloc_bitmap_first(set);
  hwloc_bitmap_free(set);
  hwloc_topology_destroy(topo);
  return node;
}

}  // namespace mimd
