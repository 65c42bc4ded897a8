// NUMA-aware placement of large arrays.
//
// Linux places a page on the NUMA node of the thread that first writes it. A View
// allocated here is first written by the bound worker threads with the same static
// partition of the index range that the kernels' range policies use, so each
// thread's share of the array lands on its own node.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <string>

#include "mimd/context.hpp"
#include "mimd/error.hpp"

namespace mimd {

/// How the pages of an array are placed.
enum class Placement {
  FirstTouch,  ///< zero-filled by the bound worker threads, static partition (default)
  Serial,      ///< zero-filled by the calling thread (all pages on its node)
};

/// Allocates a 1-D View of `n` zeroed elements in the default memory space, placed
/// according to `placement` (placement only matters for host memory spaces).
/// @throws RuntimeFailure when the allocation fails (the message gives the bytes)
template <class T>
Kokkos::View<T*, Kokkos::DefaultExecutionSpace::memory_space> allocate(
    const ExecutionContext& ctx, const std::string& label, std::size_t n,
    Placement placement = Placement::FirstTouch) {
  (void)ctx;  // the bound pool of `ctx` is the one Kokkos runs on
  using V = Kokkos::View<T*, Kokkos::DefaultExecutionSpace::memory_space>;
  V v;
  try {
    v = V(Kokkos::ViewAllocateWithoutInitializing(label), n);
  } catch (const std::exception& e) {
    throw RuntimeFailure("allocate(" + label + "): " + std::to_string(n * sizeof(T)) +
                         " bytes: " + e.what());
  }
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
