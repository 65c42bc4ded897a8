// The execution context: everything a kernel may know about the device, passed down
// to every call. There are no globals in mimd-kernels other than the Kokkos runtime
// itself, which a context initialises (once per process) when the caller has not.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "mimd/topology.hpp"
#include "mimd/tuning.hpp"

namespace mimd {

/// Where worker threads are bound.
enum class BindPolicy {
  Cores,  ///< one thread per core, bound to that core's PUs (default)
  PUs,    ///< one thread per processing unit (hyper-thread)
  None,   ///< no binding: the OS schedules freely
};

struct ContextOptions {
  /// Number of worker threads; 0 = one per core (BindPolicy::PUs: one per PU).
  /// Ignored when Kokkos was already initialised by the caller: its pool is used.
  int num_threads = 0;
  BindPolicy bind = BindPolicy::Cores;
  /// First slot (core, or PU under BindPolicy::PUs) of the binding: thread t is bound to
  /// slot (first_slot + t) modulo the slots. Processes sharing a machine (MPI ranks) give
  /// each its own range. Must be >= 0.
  int first_slot = 0;
  /// Tuning profile to load (JSON, see mimd/tuning.hpp). Empty: $MIMD_PROFILE, else the
  /// user cache file of this device's fingerprint (written by mimd-tune), else the
  /// derived defaults. A missing, corrupt, truncated or stale file gives one warning on
  /// stderr and the derived defaults, never an error.
  std::string profile_path;
};

/// Where one worker thread runs, as verified after binding.
struct ThreadBinding {
  int thread = 0;         ///< thread id inside the execution space
  int bound_core = -1;    ///< logical core index it was bound to, -1 when unbound
  std::string cpuset;     ///< PUs it may run on, e.g. "0" or "0-3"
  int observed_pu = -1;   ///< the PU it was last seen running on
  bool verified = false;  ///< observed_pu lies inside cpuset
};

/// Holds the Kokkos runtime (initialising it when needed, through a shared guard),
/// the discovered topology, the thread binding and the tuning profile.
///
/// Kokkos is initialised at most once per process. If mimd initialised it, it is
/// finalised at process exit, so Views must not outlive `main`. Contexts are cheap
/// to copy (shared state) and may be created many times.
class ExecutionContext {
 public:
  /// @throws InvalidArgument for a negative thread count or more threads than PUs
  ///         with binding requested
  /// @throws RuntimeFailure when hwloc fails or a binding cannot be applied
  explicit ExecutionContext(const ContextOptions& options = {});

  const Topology& topology() const;
  int num_threads() const;
  const std::vector<ThreadBinding>& bindings() const;
  BindPolicy bind_policy() const;
  /// "OpenMP", "Serial", "Cuda", ...: Kokkos' default execution space.
  std::string backend() const;
  /// Kokkos version as "major.minor.patch".
  std::string kokkos_version() const;
  /// True when this process' Kokkos was initialised by mimd rather than the caller.
  bool owns_kokkos() const;

  const TuningProfile& tuning() const;
  /// Mutable access, for the benchmark's sweeps and for tests.
  TuningProfile& tuning();
  /// This device's fingerprint (mimd::device_fingerprint), the key of its profile.
  const std::string& fingerprint() const;
  /// The profile file in use, or "derived defaults".
  const std::string& profile_source() const;
  /// Why a profile file was not used (printed once at creation); empty otherwise.
  const std::string& profile_warning() const;

  /// Binding summary, e.g. "2 threads, cores: t0->core0(pu0) t1->core1(pu1)".
  std::string binding_summary() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace mimd
