// Where the C API runs its calls' work. Kokkos 3.4 (OpenMP) and Kokkos 4.x (Threads)
// accept parallel dispatch only from the thread that initialised Kokkos: reductions,
// scans and team launches from another host thread throw (3.4 OpenMP:
// OpenMPExec::verify_is_master; Threads: ThreadsInternal::verify_is_process), and
// range launches run serially. Kokkos 4.x OpenMP serialises launches per instance
// with a mutex. So that C callers may use any threads on every backend, the C API
// owns one dispatch thread on the first two: when Kokkos is not yet initialised at the
// first call, the dispatch thread initialises it (through the first context) and runs
// every call's work, one call at a time. On Kokkos 4 OpenMP, or when the program
// initialised Kokkos itself, the work runs on the calling thread under a process-wide
// lock.
#pragma once

#include <functional>

namespace mimd::capi_detail {

/// Runs `work` on the dispatch thread (or, when the program owns Kokkos, on this
/// thread under the process-wide lock) and waits for it; an exception thrown by
/// `work` is rethrown here, on the calling thread. Re-entrant from `work` itself.
void dispatch(const std::function<void()>& work);

/// Called once the first context exists: when the dispatch thread initialised Kokkos,
/// registers the finalisation of Kokkos on that thread at process exit (to run before
/// the context's own exit handler, which then finds Kokkos finalised).
void finalize_on_dispatch_thread_at_exit();

}  // namespace mimd::capi_detail
