// Execution context: Kokkos runtime guard, thread binding with hwloc, tuning profile.
#include "mimd/context.hpp"

#include <hwloc.h>
#include <omp.h>
#include <sched.h>

#include <Kokkos_Core.hpp>
#include <cstdlib>
#include <mutex>
#include <sstream>

#include "mimd/error.hpp"

namespace mimd {

namespace {

// The Kokkos runtime is process-wide by nature: initialise it once if the caller has
// not, and finalise it at exit (Kokkos 4 cannot be initialised twice).
bool ensure_kokkos(int num_threads) {
  static std::mutex mutex;
  static bool owned = false;
  std::lock_guard<std::mutex> lock(mutex);
  if (Kokkos::is_initialized()) return owned;
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

}  // namespace

struct ExecutionContext::State {
  Topology topology;
  int num_threads = 1;
  BindPolicy bind = BindPolicy::Cores;
  std::vector<ThreadBinding> bindings;
  TuningProfile tuning;
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
  const int slots = options.bind == BindPolicy::PUs ? s.topology.pus : s.topology.cores;
  if (options.bind != BindPolicy::None && options.num_threads > s.topology.pus)
    throw InvalidArgument("ExecutionContext: " + std::to_string(options.num_threads) +
                          " threads requested with binding, but the machine has " +
                          std::to_string(s.topology.pus) + " PUs");
  const int requested = options.num_threads > 0 ? options.num_threads : slots;
  s.owns_kokkos = ensure_kokkos(requested);
  s.num_threads = Kokkos::DefaultHostExecutionSpace().concurrency();

  // Bind the host pool's threads (those Kokkos' OpenMP backend runs on) with hwloc,
  // then verify where each one actually runs.
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0)
    throw RuntimeFailure("hwloc: cannot load the topology for binding");
  const hwloc_obj_type_t slot_type =
      options.bind == BindPolicy::PUs || hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) <= 0
          ? HWLOC_OBJ_PU
          : HWLOC_OBJ_CORE;
  const int nslots = hwloc_get_nbobjs_by_type(topo, slot_type);
  s.bindings.assign(static_cast<std::size_t>(s.num_threads), ThreadBinding{});
  int failures = 0;
#pragma omp parallel num_threads(s.num_threads) reduction(+ : failures)
  {
    const int t = omp_get_thread_num();
    ThreadBinding& b = s.bindings[static_cast<std::size_t>(t)];
    b.thread = t;
    hwloc_cpuset_t set = hwloc_bitmap_alloc();
    if (options.bind != BindPolicy::None && nslots > 0) {
      hwloc_obj_t obj = hwloc_get_obj_by_type(topo, slot_type, static_cast<unsigned>(t % nslots));
      if (hwloc_set_cpubind(topo, obj->cpuset, HWLOC_CPUBIND_THREAD) != 0) ++failures;
      b.bound_core = slot_type == HWLOC_OBJ_CORE ? static_cast<int>(obj->logical_index) : -1;
      if (slot_type == HWLOC_OBJ_PU) {
        hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, obj);
        b.bound_core =
            core ? static_cast<int>(core->logical_index) : static_cast<int>(obj->logical_index);
      }
    }
    hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_THREAD);
    b.cpuset = cpuset_text(set);
    sched_yield();
    b.observed_pu = sched_getcpu();
    b.verified =
        b.observed_pu >= 0 && hwloc_bitmap_isset(set, static_cast<unsigned>(b.observed_pu));
    hwloc_bitmap_free(set);
  }
  hwloc_topology_destroy(topo);
  if (failures > 0)
    throw RuntimeFailure("ExecutionContext: hwloc refused to bind " + std::to_string(failures) +
                         " of " + std::to_string(s.num_threads) + " threads");

  s.tuning = default_profile(s.topology, backend());
  if (!options.profile_path.empty()) s.tuning = load_profile(options.profile_path, s.tuning);
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
