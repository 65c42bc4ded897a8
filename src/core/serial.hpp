// Kokkos::Serial as the calling thread's execution space, where it can reach the data:
// work too small to pay for a parallel launch (a BFS step on a small frontier, an SpMM of
// a few thousand multiply-adds) runs there instead of waking the thread pool.
#pragma once

#include <Kokkos_Core.hpp>

#include <utility>

#include "mimd/csr.hpp"

namespace mimd::core_detail {

/// Whether Kokkos::Serial is enabled and can reach the default memory space.
#if defined(KOKKOS_ENABLE_SERIAL)
inline constexpr bool kSerialReachesData =
    Kokkos::SpaceAccessibility<Kokkos::Serial, DefaultMemorySpace>::accessible;
#else
inline constexpr bool kSerialReachesData = false;
#endif

/// Calls f(space) with an instance of Kokkos::Serial when `serial` and Serial can reach
/// the data, with an instance of the default execution space otherwise. Both calls must
/// return the same type. (Where Serial cannot reach the data, its branch is not compiled.)
template <class F>
decltype(auto) with_space(bool serial, F&& f) {
#if defined(KOKKOS_ENABLE_SERIAL)
  if constexpr (kSerialReachesData) {
    if (serial) return std::forward<F>(f)(Kokkos::Serial());
  }
#endif
  (void)serial;
  return std::forward<F>(f)(Kokkos::DefaultExecutionSpace());
}

}  // namespace mimd::core_detail
