// Atomic helpers that mean the same on every Kokkos this project builds against (3.4, 4.x).
//
// A word that other threads update with atomics must be read atomically too: a plain
// (even volatile) read of it is a data race (C++ [intro.races]; ThreadSanitizer reports
// it). Relaxed order suffices where a stale value only costs a retried atomic.
//
// On the host, Kokkos 4's atomic_load is desul's generic fetch-op: a plain read, then a
// compare-and-swap of the value with itself. That read races in its turn, and every load
// writes the cache line; so the host uses the compiler's atomic builtins here.
#pragma once

#include <Kokkos_Core.hpp>

namespace mimd {

template <class T>
KOKKOS_FORCEINLINE_FUNCTION T relaxed_load(T* p) {
#if KOKKOS_VERSION >= 40000
  KOKKOS_IF_ON_HOST((return __atomic_load_n(p, __ATOMIC_RELAXED);))
  KOKKOS_IF_ON_DEVICE((return Kokkos::atomic_load(p);))
#else
  return Kokkos::Impl::atomic_load(p, Kokkos::Impl::memory_order_relaxed);
#endif
}

namespace atomic_detail {
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T fenced_fetch_add(T* p, T v) {
  Kokkos::memory_fence();
  const T old = Kokkos::atomic_fetch_add(p, v);
  Kokkos::memory_fence();
  return old;
}
}  // namespace atomic_detail

/// *p += v, returning the old value, with acquire-release order: what this thread wrote
/// before is visible to a thread whose fetch_add on *p comes later, after its fetch_add
/// (the "last one to arrive combines" count). On the host one acq_rel read-modify-write,
/// which ThreadSanitizer sees (it does not model fences); elsewhere fences around
/// Kokkos' relaxed atomic.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T acq_rel_fetch_add(T* p, T v) {
#if KOKKOS_VERSION >= 40000
  KOKKOS_IF_ON_HOST((return __atomic_fetch_add(p, v, __ATOMIC_ACQ_REL);))
  KOKKOS_IF_ON_DEVICE((return atomic_detail::fenced_fetch_add(p, v);))
#else
  return atomic_detail::fenced_fetch_add(p, v);
#endif
}

}  // namespace mimd
