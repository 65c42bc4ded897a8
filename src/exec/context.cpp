// Execution context: Kokkos runtime guard, thread binding with hwloc, tuning profile.
#include "mimd/context.hpp"

#include <iostream>

#include <hwloc.h>
#include <sched.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <sstream>

#include "mimd/error.hpp"

namespace mimd {

namespace {

#ifdef KOKKOS_ENABLE_THREADS
// Kokkos::Threads sizes its pool from the process' hwloc binding, which an OpenMP runtime
// under OMP_PROC_BIND has narrowed to one place by now (its initial thread is this one):
// the calling thread is let loose on the allowed PUs first; bind_host_pool binds the pool.
void release_calling_thread() {
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return;
  if (hwloc_topology_load(topo) == 0)
    hwloc_set_cpubind(topo, hwloc_topology_get_allowed_cpuset(topo), HWLOC_CPUBIND_THREAD);
  hwloc_topology_destroy(topo);
}
#endif

// The Kokkos runtime is process-wide by nature: initialise it once if the caller has
// not, and finalise it at exit (Kokkos 4 cannot be initialised twice).
bool ensure_kokkos(int num_threads) {
  static std::mutex mutex;
  static bool owned = false;
  std::lock_guard<std::mutex> lock(mutex);
  if (Kokkos::is_initialized()) return owned;
#ifdef KOKKOS_ENABLE_THREADS
  release_calling_thread();
#endif
#if KOKKOS_VERSION >= 30700
  Kokkos::InitializationSettings settings;
  if (num_threads > 0) settings.set_num_threads(num_threads);
  settings.set_disable_warnings(true);
  Kokkos::initialize(settings);
#else
  Kokkos::InitArguments args;
  args.num_threads = num_threads > 0 ? num_threads : -1;
  args.disable_warnings = true;
  Kokkos::initialize(args);
#endif
  owned = true;
  std::atexit([] {
    if (Kokkos::is_initialized()) Kokkos::finalize();
  });
  return owned;
}

std::string cpuset_text(hwloc_const_cpuset_t set) {
  char* s = nullptr;
  hwloc_bitmap_list_asprintf(&s, set);
  std::string out = s ? s : "";
  std::free(s);
  return out;
}

// Binds the threads of Kokkos' host execution space (OpenMP, Threads or Serial: the pool
// the host kernels run on, whatever the backend) one per slot with hwloc, then reads back
// where each one runs. The work runs inside Kokkos itself: a parallel_for of one item per
// pool thread, each thread keyed by its id in the pool. Static scheduling with chunks of
// one hands every thread its item; a thread that got none is caught by a further round.
std::vector<ThreadBinding> bind_host_pool(int num_threads, BindPolicy bind, int first_slot) {
  using Host = Kokkos::DefaultHostExecutionSpace;
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0)
    throw RuntimeFailure("hwloc: cannot load the topology for binding");
  const hwloc_obj_type_t slot_type =
      bind == BindPolicy::PUs || hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) <= 0
          ? HWLOC_OBJ_PU
          : HWLOC_OBJ_CORE;
  const int nslots = hwloc_get_nbobjs_by_type(topo, slot_type);
  const auto n = static_cast<std::size_t>(num_threads);
  std::vector<ThreadBinding> bindings(n);
  std::vector<char> reached(n, 0), refused(n, 0);
  const auto bind_calling_thread = [&](int) {
    const auto t = static_cast<std::size_t>(Host::impl_hardware_thread_id());
    if (t >= n) return;
    ThreadBinding& b = bindings[t];
    b.thread = static_cast<int>(t);
    if (bind != BindPolicy::None && nslots > 0) {
      hwloc_obj_t obj = hwloc_get_obj_by_type(
          topo, slot_type, static_cast<unsigned>(static_cast<int>(t) + first_slot) % nslots);
      refused[t] = hwloc_set_cpubind(topo, obj->cpuset, HWLOC_CPUBIND_THREAD) != 0;
      hwloc_obj_t core = slot_type == HWLOC_OBJ_CORE
                             ? obj
                             : hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, obj);
      b.bound_core = static_cast<int>((core ? core : obj)->logical_index);
    }
    hwloc_cpuset_t set = hwloc_bitmap_alloc();
    hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_THREAD);
    b.cpuset = cpuset_text(set);
    sched_yield();
    b.observed_pu = sched_getcpu();
    b.verified =
        b.observed_pu >= 0 && hwloc_bitmap_isset(set, static_cast<unsigned>(b.observed_pu));
    hwloc_bitmap_free(set);
    reached[t] = 1;
  };
  const int max_rounds = 8;
  for (int round = 0;
       round < max_rounds && std::count(reached.begin(), reached.end(), 1) < num_threads; ++round) {
    Kokkos::parallel_for("mimd::bind_host_pool",
                         Kokkos::RangePolicy<Host, Kokkos::Schedule<Kokkos::Static>>(0, num_threads)
                             .set_chunk_size(1),
                         bind_calling_thread);
    Kokkos::fence();
  }
  hwloc_topology_destroy(topo);
  const auto missed = std::count(reached.begin(), reached.end(), 0);
  if (missed > 0)
    throw RuntimeFailure("ExecutionContext: " + std::to_string(missed) + " of " +
                         std::to_string(num_threads) + " threads of Kokkos::" + Host::name() +
                         " took no binding work item in " + std::to_string(max_rounds) + " rounds");
  const auto failures = std::count(refused.begin(), refused.end(), 1);
  if (failures > 0)
    throw RuntimeFailure("ExecutionContext: hwloc refused to bind " + std::to_string(failures) +
                         " of " + std::to_string(num_threads) + " threads");
  return bindings;
}

}  // namespace

struct ExecutionContext::State {
  Topology topology;
  int num_threads = 1;
  BindPolicy bind = BindPolicy::Cores;
  std::vector<ThreadBinding> bindings;
  TuningProfile tuning;
  std::string fingerprint;
  std::string profile_source;
  std::string profile_warning;
  bool owns_kokkos = false;
};

ExecutionContext::ExecutionContext(const ContextOptions& options)
    : state_(std::make_shared<State>()) {
  auto& s = *state_;
  s.topology = discover_topology();
  s.bind = options.bind;
  if (options.num_threads < 0)
    throw InvalidArgument("ExecutionContext: num_threads = " + std::to_string(options.num_threads) +
                          " (expected >= 0)");
  if (options.first_slot < 0)
    throw InvalidArgument("ExecutionContext: first_slot = " + std::to_string(options.first_slot) +
                          " (expected >= 0)");
  const int slots = options.bind == BindPolicy::PUs ? s.topology.pus : s.topology.cores;
  if (options.bind != BindPolicy::None && options.num_threads > s.topology.pus)
    throw InvalidArgument("ExecutionContext: " + std::to_string(options.num_threads) +
                          " threads requested with binding, but the machine has " +
                          std::to_string(s.topology.pus) + " PUs");
  const int requested = options.num_threads > 0 ? options.num_threads : slots;
  s.owns_kokkos = ensure_kokkos(requested);
  s.num_threads = Kokkos::DefaultHostExecutionSpace().concurrency();

  s.bindings = bind_host_pool(s.num_threads, options.bind, options.first_slot);
  s.fingerprint = device_fingerprint(s.topology, backend(), kokkos_version());
  ProfileLoad loaded = load_device_profile(default_profile(s.topology, backend()), s.fingerprint,
                                           options.profile_path);
  s.tuning = std::move(loaded.profile);
  s.profile_source = std::move(loaded.source);
  s.profile_warning = std::move(loaded.warning);
  if (!s.profile_warning.empty()) std::cerr << "mimd: warning: " << s.profile_warning << "\n";
}

const std::string& ExecutionContext::fingerprint() const {
  return state_->fingerprint;
}
const std::string& ExecutionContext::profile_source() const {
  return state_->profile_source;
}
const std::string& ExecutionContext::profile_warning() const {
  return state_->profile_warning;
}

const Topology& ExecutionContext::topology() const {
  return state_->topology;
}
int ExecutionContext::num_threads() const {
  return state_->num_threads;
}
const std::vector<ThreadBinding>& ExecutionContext::bindings() const {
  return state_->bindings;
}
BindPolicy ExecutionContext::bind_policy() const {
  return state_->bind;
}
bool ExecutionContext::owns_kokkos() const {
  return state_->owns_kokkos;
}
const TuningProfile& ExecutionContext::tuning() const {
  return state_->tuning;
}
TuningProfile& ExecutionContext::tuning() {
  return state_->tuning;
}

std::string ExecutionContext::backend() const {
  return Kokkos::DefaultExecutionSpace::name();
}

std::string ExecutionContext::kokkos_version() const {
  return std::to_string(KOKKOS_VERSION / 10000) + "." + std::to_string(KOKKOS_VERSION / 100 % 100) +
         "." + std::to_string(KOKKOS_VERSION % 100);
}

std::string ExecutionContext::binding_summary() const {
  std::ostringstream os;
  const char* policy = state_->bind == BindPolicy::Cores ? "cores"
                       : state_->bind == BindPolicy::PUs ? "pus"
                                                         : "none";
  os << state_->num_threads << " threads, bind=" << policy << ":";
  for (const auto& b : state_->bindings) {
    os << " t" << b.thread << "->";
    if (b.bound_core >= 0) os << "core" << b.bound_core;
    os << "{" << b.cpuset << "}@pu" << b.observed_pu << (b.verified ? "" : "(!)");
  }
  return os.str();
}

}  // namespace mimd
