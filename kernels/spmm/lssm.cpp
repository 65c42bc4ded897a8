// LSSM SpMM: long-row splitting and short-row merging.
//
// The inspector cuts the rows into units of about `block` nonzeros:
//  - a row longer than `block` is split into ceil(len / block) chunks of equal size,
//    each a unit of its own, whose partial sums are combined afterwards, either by
//    atomic adds into C (SplitCombine::Atomic, C's split rows scaled by beta first) or
//    through a buffer and a combine pass per split row (SplitCombine::TwoPass, no
//    atomics on C; the pass is run by the chunk of the row that finishes last, inside
//    the same launch);
//  - runs of consecutive short rows are merged into units cut where the running weight
//    of the rows (nonzeros + one per row, for the write of the row of C) crosses a
//    multiple of `block` (a row falls on the side of its midpoint): units of `block` on
//    average, and W / block of them for a weight W that is a multiple of the block, which
//    is how lssm_default_block gives every thread the same number of units.
// So every unit carries similar work, whatever the row-length distribution.
// The executor launches one worker per hardware thread (one team of one thread with
// scratch); each worker takes the units of its own contiguous range through an atomic
// counter, then steals units from the other ranges through theirs until none is left:
// dynamic scheduling without the runtime's per-chunk overhead, and without giving up
// the locality of contiguous rows (which matters on banded matrices at large k). A call of
// at most TuningProfile::spmm_static_work runs each worker's range in order instead: for a
// few microseconds of work the counters' cache lines moving between cores cost more than
// the balance they buy (the units are of equal weight already). Rows are computed
// by the register-tiled micro-kernel of common.hpp (k specialised, tiles of k_tile columns). With
// scratch, a unit's slice of A (values, column indices) is first staged in team scratch memory
// (shared memory on GPUs; on CPUs a copy that stays in L1).
#include "core/atomic.hpp"
#include "spmm/kernels.hpp"

#include <algorithm>
#include <vector>

namespace mimd::spmm_detail {

namespace {
constexpr std::int64_t kCounterStride = 8;  // 64 bytes: one cache line per counter
}  // namespace

int lssm_default_block(std::int64_t m, std::int64_t nnz, std::int64_t k,
                       const TuningProfile& profile, int threads) {
  int block = std::max(1, profile.spmm_block_nnz);
  const std::int64_t want = std::int64_t(std::max(1, threads)) * profile.spmm_units_per_thread;
  const std::int64_t floor = std::max<std::int64_t>(
      profile.spmm_block_floor, profile.spmm_block_floor_work / std::max<std::int64_t>(1, k));
  while (block / 2 >= floor && (nnz + m) / block < want) block /= 2;
  // As many units as a multiple of the threads, of equal weight: with few units per
  // thread (small matrices, or the floor at small k) a remainder of one would leave a
  // thread a whole unit more than the others (e.g. 3 units of 8192 on 2 threads for a
  // weight of 21000: 16384 against the even 10500). A matrix lighter than one block per
  // thread so gets exactly one unit per thread.
  const std::int64_t weight = std::max<std::int64_t>(1, nnz + m), t = std::max(1, threads);
  const std::int64_t units = (weight + block - 1) / block;
  const std::int64_t even = (units + t - 1) / t * t;
  return static_cast<int>(std::max<std::int64_t>(1, (weight + even - 1) / even));
}

LssmPlan lssm_inspect(const std::int64_t* row_map, std::int64_t m, int block, bool scratch,
                      SplitCombine combine, int workers, int row_align) {
  LssmPlan plan;
  plan.block = block;
  plan.scratch = scratch;
  plan.combine = combine;
  plan.workers = std::max(1, workers);
  std::vector<std::int32_t> unit_row, unit_slot, split_row, slot_split;
  std::vector<std::int64_t> unit_nz, split_slot{0};
  std::int64_t open_row = -1, open_slice = 0;  // the merged unit being filled
  std::int64_t before = 0;                     // weight of the rows before r
  auto close = [&] { open_row = -1; };
  for (std::int64_t r = 0; r < m; ++r) {
    const std::int64_t len = row_map[r + 1] - row_map[r];
    const std::int64_t slice = (before + (len + 1) / 2) / block;
    before += len + 1;
    if (len > block) {
      close();
      const std::int64_t pieces = (len + block - 1) / block;
      split_row.push_back(static_cast<std::int32_t>(r));
      for (std::int64_t p = 0; p < pieces; ++p) {
        unit_row.push_back(static_cast<std::int32_t>(r));
        unit_nz.push_back(row_map[r] + len * p / pieces);
        unit_slot.push_back(static_cast<std::int32_t>(plan.nslots++));
        slot_split.push_back(static_cast<std::int32_t>(split_row.size() - 1));
      }
      split_slot.push_back(plan.nslots);
      continue;
    }
    if (open_row >= 0 && slice != open_slice && r % row_align == 0) close();
    if (open_row < 0) {
      open_row = r;
      open_slice = slice;
      unit_row.push_back(static_cast<std::int32_t>(r));
      unit_nz.push_back(row_map[r]);
      unit_slot.push_back(-1);
    }
  }
  plan.nunits = static_cast<std::int64_t>(unit_slot.size());
  // No more workers than units: an idle worker would only scan the others' counters.
  plan.workers = static_cast<int>(
      std::max<std::int64_t>(1, std::min<std::int64_t>(plan.workers, plan.nunits)));
  plan.nsplit_rows = static_cast<std::int64_t>(split_row.size());
  unit_row.push_back(static_cast<std::int32_t>(m));
  unit_nz.push_back(row_map[m]);
  for (std::size_t u = 0; u + 1 < unit_nz.size(); ++u)
    plan.max_unit_nnz = std::max(plan.max_unit_nnz, unit_nz[u + 1] - unit_nz[u]);

  auto to_device = [](const auto& v, const char* label) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    Kokkos::View<T*, DefaultMemorySpace> d(Kokkos::ViewAllocateWithoutInitializing(label),
                                           v.size());
    Kokkos::deep_copy(d, Kokkos::View<const T*, Kokkos::HostSpace>(v.data(), v.size()));
    return d;
  };
  plan.unit_row = to_device(unit_row, "mimd::spmm::lssm::unit_row");
  plan.unit_nz = to_device(unit_nz, "mimd::spmm::lssm::unit_nz");
  plan.unit_slot = to_device(unit_slot, "mimd::spmm::lssm::unit_slot");
  plan.split_row = to_device(split_row, "mimd::spmm::lssm::split_row");
  plan.split_slot = to_device(split_slot, "mimd::spmm::lssm::split_slot");
  plan.slot_split = to_device(slot_split, "mimd::spmm::lssm::slot_split");
  plan.split_done = decltype(plan.split_done)("mimd::spmm::lssm::split_done", split_row.size());
  plan.counter = decltype(plan.counter)(
      "mimd::spmm::lssm::counter", 2 * kCounterStride * static_cast<std::size_t>(plan.workers));
  plan.parity = std::make_shared<int>(0);
  return plan;
}

namespace {

/// TwoPass: the chunk's partial row goes to its slot; the chunk that finishes last
/// (counted by an acquire-release atomic add, which publishes its partial) sums the slots
/// into C and re-arms the count for the next call. So the combine pass needs no
/// launch of its own and no atomics on C.
template <class S, class Layout>
KOKKOS_FORCEINLINE_FUNCTION void finish_chunk(const Operands<S, Layout>& op, const SplitRows& sr,
                                              std::int32_t slot, const S* buf) {
  const std::int32_t s = sr.slot_split[slot];
  const std::int64_t p0 = sr.slot[s], p1 = sr.slot[s + 1];
  if (acq_rel_fetch_add(&sr.done[s], 1) != p1 - p0 - 1) return;
  const std::int64_t r = sr.row[s], k = op.k;
  for (std::int64_t t = 0; t < k; ++t) {
    S sum = 0;
    for (std::int64_t p = p0; p < p1; ++p) sum += buf[p * k + t];
    op.c(r, t) = op.beta == S(0) ? op.alpha * sum : op.alpha * sum + op.beta * op.c(r, t);
  }
  sr.done[s] = 0;
}

/// Unit u: nonzero z of A is at val[z - base], col[z - base] (base = 0 unless staged).
template <class S, class Layout>
KOKKOS_FORCEINLINE_FUNCTION void run_unit(const Operands<S, Layout>& op, std::int32_t r0,
                                          std::int32_t r1, std::int64_t z0, std::int64_t z1,
                                          std::int32_t slot, bool atomic, S* buf,
                                          const SplitRows& sr, const S* val,
                                          const std::int32_t* col, std::int64_t base) {
  if (slot < 0) {
    whole_rows(op, r0, r1, val, col, base);
  } else if (atomic) {
    row_segment(val + (z0 - base), col + (z0 - base), z1 - z0, op.b, op.k, op.k_tile, op.simd,
                AtomicAddC<S, Layout>{op.c, r0, op.alpha});
  } else {
    row_segment(val + (z0 - base), col + (z0 - base), z1 - z0, op.b, op.k, op.k_tile, op.simd,
                StoreBuf<S>{buf + slot * op.k});
    finish_chunk(op, sr, slot, buf);
  }
}

/// The next unit for worker w: from its own range first, then stolen from the others.
/// Returns -1 when every range is exhausted.
struct UnitQueue {
  std::int64_t* counter;  ///< this call's set: counter[v * kCounterStride] for worker v
  std::int64_t nunits;
  std::int64_t workers;
  KOKKOS_FORCEINLINE_FUNCTION std::int64_t next(std::int64_t w) const {
    for (std::int64_t i = 0; i < workers; ++i) {
      const std::int64_t v = (w + i) % workers;
      const std::int64_t begin = v * nunits / workers, end = (v + 1) * nunits / workers;
      std::int64_t* const c = counter + v * kCounterStride;
      if (begin + relaxed_load(c) >= end) continue;  // skip a drained range without a lock
      const std::int64_t u = begin + Kokkos::atomic_fetch_add(c, std::int64_t(1));
      if (u < end) return u;
    }
    return -1;
  }
};

}  // namespace

template <class S, class L>
MIMD_SPMM_DECLARE_LSSM_PREPARE(S, L) {
  using Exec = Kokkos::DefaultExecutionSpace;
  const std::int64_t k = op.k, nsplit = plan.nsplit_rows;
  if (plan.combine == SplitCombine::TwoPass) {
    if (static_cast<std::int64_t>(work.extent(0)) < plan.nslots * k)
      work = Kokkos::View<S*, DefaultMemorySpace>(
          Kokkos::ViewAllocateWithoutInitializing("mimd::spmm::lssm::partials"), plan.nslots * k);
    return;
  }
  if (nsplit == 0) return;
  const std::int32_t* split_row = plan.split_row.data();
  const auto c = op.c;
  const S beta = op.beta;
  Kokkos::parallel_for(
      "mimd::spmm::lssm::scale_split_rows", Kokkos::RangePolicy<Exec>(0, nsplit * k),
      KOKKOS_LAMBDA(std::int64_t x) {
        const std::int64_t r = split_row[x / k], t = x % k;
        c(r, t) = beta == S(0) ? S(0) : beta * c(r, t);
      });
}

MIMD_SPMM_INSTANTIATE(MIMD_SPMM_DECLARE_LSSM_PREPARE)

template <class S, class L>
MIMD_SPMM_DECLARE_LSSM(S, L) {
  using Exec = Kokkos::DefaultExecutionSpace;
  const bool atomic = plan.combine == SplitCombine::Atomic;
  const std::int64_t nunits = plan.nunits;
  // Raw pointers, not Views, in the kernels: capturing a View costs a reference-count
  // update per launch, which shows on small matrices.
  const std::int32_t* unit_row = plan.unit_row.data();
  const std::int64_t* unit_nz = plan.unit_nz.data();
  const std::int32_t* unit_slot = plan.unit_slot.data();
  const SplitRows sr = split_rows(plan);
  std::int64_t* const counter = plan.counter.data();
  lssm_prepare_split_rows(plan, op, work);
  S* const buf = work.data();

  const std::int64_t workers = plan.workers;
  if (!plan.scratch &&
      (nunits == workers || within_work<S>(op.a.m, op.a.nnz, op.k, op.simd, plan.static_work))) {
    // One unit per worker (a matrix lighter than a block per thread), or a call too short to
    // win back the counters' traffic between cores: each worker runs its own range in order.
    // The counters are not touched, so the parity stays: the set of the next dynamic call
    // is still zero.
    Kokkos::parallel_for(
        "mimd::spmm::lssm_static", Kokkos::RangePolicy<Exec>(0, plan.workers),
        KOKKOS_LAMBDA(int w) {
          const std::int64_t end = (w + 1) * nunits / workers;
          for (std::int64_t u = w * nunits / workers; u < end; ++u)
            run_unit(op, unit_row[u], unit_row[u + 1], unit_nz[u], unit_nz[u + 1], unit_slot[u],
                     atomic, buf, sr, op.a.val, op.a.col, 0);
        });
    return;
  }
  const int cur = *plan.parity, other = 1 - cur;
  *plan.parity = other;
  const UnitQueue queue{counter + cur * kCounterStride * workers, nunits, workers};
  std::int64_t* const next_set = counter + other * kCounterStride * workers;
  if (!plan.scratch) {
    Kokkos::parallel_for(
        "mimd::spmm::lssm", Kokkos::RangePolicy<Exec>(0, plan.workers), KOKKOS_LAMBDA(int w) {
          next_set[w * kCounterStride] = 0;
          for (;;) {
            const std::int64_t u = queue.next(w);
            if (u < 0) break;
            run_unit(op, unit_row[u], unit_row[u + 1], unit_nz[u], unit_nz[u + 1], unit_slot[u],
                     atomic, buf, sr, op.a.val, op.a.col, 0);
          }
        });
  } else {
    using Scratch = Exec::scratch_memory_space;
    using ValView = Kokkos::View<S*, Scratch, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    using ColView = Kokkos::View<std::int32_t*, Scratch, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    using Team = Kokkos::TeamPolicy<Exec>::member_type;
    const std::int64_t capacity = plan.max_unit_nnz;
    const std::size_t bytes = ValView::shmem_size(capacity) + ColView::shmem_size(capacity);
    Kokkos::parallel_for(
        "mimd::spmm::lssm_scratch",
        Kokkos::TeamPolicy<Exec>(plan.workers, 1).set_scratch_size(0, Kokkos::PerTeam(bytes)),
        KOKKOS_LAMBDA(const Team& team) {
          const std::int64_t w = team.league_rank();
          if (team.team_rank() == 0) next_set[w * kCounterStride] = 0;
          ValView sval(team.team_scratch(0), capacity);
          ColView scol(team.team_scratch(0), capacity);
          for (;;) {
            std::int64_t u = 0;
            Kokkos::single(
                Kokkos::PerTeam(team), [&](std::int64_t& next) { next = queue.next(w); }, u);
            if (u < 0) break;
            const std::int64_t z0 = unit_nz[u], z1 = unit_nz[u + 1];
            Kokkos::parallel_for(Kokkos::TeamThreadRange(team, z1 - z0), [&](std::int64_t z) {
              sval(z) = op.a.val[z0 + z];
              scol(z) = op.a.col[z0 + z];
            });
            team.team_barrier();
            Kokkos::single(Kokkos::PerTeam(team), [&]() {
              run_unit(op, unit_row[u], unit_row[u + 1], z0, z1, unit_slot[u], atomic, buf, sr,
                       sval.data(), scol.data(), z0);
            });
            team.team_barrier();
          }
        });
  }
}

MIMD_SPMM_INSTANTIATE(MIMD_SPMM_DECLARE_LSSM)

}  // namespace mimd::spmm_detail
