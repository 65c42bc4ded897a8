// A relaxed atomic load on every Kokkos this project builds against (3.4 and 4.x).
//
// A word that other threads update with atomics must be read atomically too: a plain
// (even volatile) read of it is a data race (C++ [intro.races]; ThreadSanitizer reports
// it). Relaxed order suffices where a stale value only costs a retried atomic.
#pragma once

#include <Kokkos_Core.hpp>

namespace mimd {

template <class T>
KOKKOS_FORCEINLINE_FUNCTION T relaxed_load(T* p) {
#if KOKKOS_VERSION >= 40000
  return Kokkos::atomic_load(p);
#else
  return Kokkos::Impl::atomic_load(p, Kokkos::Impl::memory_order_relaxed);
#endif
}

}  // namespace mimd
