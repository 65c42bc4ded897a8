// NUMA-aware placement of large arrays.
//
// Linux places a page on the NUMA node of the thread that first writes it. A View
// allocated here is first written by the bound worker threads with the same static
// partition of the index range that the kernels' range policies use, so each
// thread's share of the array lands on its own node.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "mimd/error.hpp"

namespace mimd {

/// How the pages of an array are placed.
enum class Placement {
  FirstTouch,  ///< zero-filled by the bound worker threads, static partition (default)
  Serial,      ///< zero-filled by the calling thread (all pages on its node)
};

/// Which pages back a host array.
enum class Pages {
  Default,  ///< the system's default pages
  /// Transparent huge pages where the kernel allows (madvise before the first touch),
  /// for arrays read at random: a scale-22 graph's BFS parents overflow the TLB with
  /// 4 KiB pages. Only the whole 2 MiB pages inside the array are advised.
  Huge,
};

/// Memory the system can give to a new allocation now, in bytes: Linux's MemAvailable
/// (/proc/meminfo), which counts reclaimable caches, unlike a NUMA node's free figure.
/// Returns 0 when the system does not report it.
std::uint64_t available_memory_bytes();

/// Allocates a 1-D View of `n` zeroed elements in the default memory space, placed
/// according to `placement` and `pages` (both only matter for host memory spaces).
/// Kokkos must be initialised (an ExecutionContext exists): the first touch runs on
/// the bound worker pool of the default execution space.
/// @throws RuntimeFailure when the allocation fails (the message gives the bytes)
template <class T>
Kokkos::View<T*, Kokkos::DefaultExecutionSpace::memory_space> allocate(
    const std::string& label, std::size_t n, Placement placement = Placement::FirstTouch,
    Pages pages = Pages::Default) {
  using Space = Kokkos::DefaultExecutionSpace::memory_space;
  using V = Kokkos::View<T*, Space>;
  V v;
  try {
    v = V(Kokkos::ViewAllocateWithoutInitializing(label), n);
  } catch (const std::exception& e) {
    throw RuntimeFailure("allocate(" + label + "): " + std::to_string(n * sizeof(T)) +
                         " bytes: " + e.what());
  }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (pages == Pages::Huge && std::is_same<Space, Kokkos::HostSpace>::value && n > 0) {
    constexpr std::uintptr_t kHuge = std::uintptr_t(2) << 20;
    const auto begin = reinterpret_cast<std::uintptr_t>(v.data());
    const std::uintptr_t first = (begin + kHuge - 1) & ~(kHuge - 1);
    const std::uintptr_t last = (begin + n * sizeof(T)) & ~(kHuge - 1);
    if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
  }
#else
  (void)pages;
#endif
  if (placement == Placement::FirstTouch) {
    Kokkos::parallel_for(
        "mimd::allocate::first_touch",
        Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace, Kokkos::Schedule<Kokkos::Static>>(0, n),
        KOKKOS_LAMBDA(const std::size_t i) { v(i) = T{}; });
    Kokkos::fence();
  } else {
    auto h = Kokkos::create_mirror_view(v);
    for (std::size_t i = 0; i < n; ++i) h(i) = T{};
    Kokkos::deep_copy(v, h);
  }
  return v;
}

/// The NUMA node (OS index) holding the page of `ptr`, or -1 when unknown.
int numa_node_of(const void* ptr);

}  // namespace mimd
