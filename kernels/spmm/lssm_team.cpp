// Team LSSM: the LSSM units (lssm.cpp's plan: long rows split into chunks, runs of short
// rows merged, about `block` nonzeros each) executed the way a wide device wants them:
// one unit per team of threads, each thread with vector lanes.
//  - Staging: with scratch (and when a block's slice fits the team's scratch budget),
//    the whole team first copies the unit's values and column indices into team scratch
//    (shared memory on GPUs); otherwise the unit reads A directly.
//  - Merged units: each of the team's threads takes a contiguous share of the unit's
//    rows. Split units: the whole team works on the one row segment.
//  - Lanes: when k >= the vector length, the lanes (and, on a split unit, the threads)
//    take contiguous groups of columns, each running the register-tiled micro-kernel of
//    common.hpp on its columns (so with one lane, on a CPU, a thread runs exactly the
//    CPU LSSM's code: whole_rows over its rows). When k is smaller, the lanes (and
//    threads) share the nonzeros and a vector (team) reduction sums each column.
//  - Split rows: combined by atomic adds into C (C's split rows scaled by beta first) or
//    through the two-pass buffer, summed by the team of the chunk that finishes last, as
//    in lssm.cpp.
// The league is the units, scheduled dynamically: no counters, no stealing (a device's
// block scheduler does that), so on a CPU the contiguous-range locality of lssm.cpp is
// given up; that is the price measured in the closing note.
#include "core/atomic.hpp"
#include "spmm/kernels.hpp"

namespace mimd::spmm_detail {

namespace {

using Exec = Kokkos::DefaultExecutionSpace;
using Policy = Kokkos::TeamPolicy<Exec, Kokkos::Schedule<Kokkos::Dynamic>>;
using Team = Policy::member_type;
using Scratch = Exec::scratch_memory_space;
template <class T>
using ScratchArray = Kokkos::View<T*, Scratch, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

/// The dense operand seen from column t0 on (the same leading dimension).
template <class T, class L>
KOKKOS_FORCEINLINE_FUNCTION DenseArg<T, L> from_column(const DenseArg<T, L>& d, std::int64_t t0) {
  return {d.at(0, t0), d.ld};
}

/// Where the sums of one row segment go, for the columns from t0 on.
template <class S, class L>
struct Target {
  enum Kind { Store, Atomic, Buffer } kind;
  DenseArg<S, L> c;
  std::int64_t row;
  S alpha, beta;
  S* buf;  ///< Buffer: the segment's slot (k scalars)
  /// Runs f(sink) with the sink of columns t0 on.
  template <class F>
  KOKKOS_FORCEINLINE_FUNCTION void with_sink(std::int64_t t0, const F& f) const {
    if (kind == Store)
      f(StoreC<S, L>{from_column(c, t0), row, alpha, beta});
    else if (kind == Atomic)
      f(AtomicAddC<S, L>{from_column(c, t0), row, alpha});
    else
      f(StoreBuf<S>{buf + t0});
  }
  KOKKOS_FORCEINLINE_FUNCTION void put(std::int64_t t, S sum) const {
    const S acc[1] = {sum};
    with_sink(t, [&](const auto& sink) { sink.template operator()<1>(0, acc); });
  }
};

/// Columns [t0, t1) of one segment (len nonzeros at val/col) by the micro-kernel.
template <class S, class L>
KOKKOS_FORCEINLINE_FUNCTION void columns(const Operands<S, L>& op, const S* val,
                                         const std::int32_t* col, std::int64_t len,
                                         const Target<S, L>& to, std::int64_t t0, std::int64_t t1) {
  to.with_sink(t0, [&](const auto& sink) {
    row_segment(val, col, len, from_column(op.b, t0), t1 - t0, op.k_tile, op.simd, sink);
  });
}

/// sum_z val[z] * B(col[z], t) over [z0, z1), by the calling thread's lanes.
template <class S, class L>
KOKKOS_FORCEINLINE_FUNCTION S lane_dot(const Team& team, const Operands<S, L>& op, const S* val,
                                       const std::int32_t* col, std::int64_t z0, std::int64_t z1,
                                       std::int64_t t) {
  S sum = 0;
  Kokkos::parallel_reduce(
      Kokkos::ThreadVectorRange(team, z1 - z0),
      [&](std::int64_t z, S& s) { s += val[z0 + z] * op.b(col[z0 + z], t); }, sum);
  return sum;
}

/// Rows [r0, r1) of a merged unit by the calling thread and its `vec` lanes (nonzero z
/// at val[z - base]). When k >= vec each lane takes a contiguous group of columns and runs
/// whole_rows on it: the CPU LSSM's loop over a run of rows (one tight loop for short
/// rows at small k, no per-row dispatch). Otherwise the lanes share each row's nonzeros.
template <class S, class L>
KOKKOS_FORCEINLINE_FUNCTION void thread_rows(const Team& team, int vec, const Operands<S, L>& op,
                                             std::int32_t r0, std::int32_t r1, const S* val,
                                             const std::int32_t* col, std::int64_t base) {
  const std::int64_t k = op.k;
  if (k >= vec) {
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, vec), [&](int g) {
      const std::int64_t t0 = g * k / vec;
      Operands<S, L> sub = op;
      sub.b = from_column(op.b, t0);
      sub.c = from_column(op.c, t0);
      sub.k = (g + 1) * k / vec - t0;
      whole_rows(sub, r0, r1, val, col, base);
    });
    return;
  }
  for (std::int32_t r = r0; r < r1; ++r) {
    const std::int64_t b = op.a.row_map[r] - base, len = op.a.row_map[r + 1] - op.a.row_map[r];
    const Target<S, L> to{Target<S, L>::Store, op.c, r, op.alpha, op.beta, nullptr};
    for (std::int64_t t = 0; t < k; ++t) {
      const S sum = lane_dot(team, op, val + b, col + b, 0, len, t);
      Kokkos::single(Kokkos::PerThread(team), [&]() { to.put(t, sum); });
    }
  }
}

/// One row segment by the whole team: column groups over threads x lanes when k is
/// large, else a team reduction over the nonzeros per column.
template <class S, class L>
KOKKOS_FORCEINLINE_FUNCTION void team_segment(const Team& team, int vec, const Operands<S, L>& op,
                                              const S* val, const std::int32_t* col,
                                              std::int64_t len, const Target<S, L>& to) {
  const std::int64_t k = op.k, threads = team.team_size();
  if (k >= vec) {
    const std::int64_t groups = k < threads * vec ? k : threads * vec;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, (groups + vec - 1) / vec),
                         [&](std::int64_t th) {
                           Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, vec), [&](int v) {
                             const std::int64_t g = th * vec + v;
                             if (g < groups)
                               columns(op, val, col, len, to, g * k / groups, (g + 1) * k / groups);
                           });
                         });
    return;
  }
  for (std::int64_t t = 0; t < k; ++t) {
    S sum = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, threads),
        [&](std::int64_t th, S& s) {
          s += lane_dot(team, op, val, col, th * len / threads, (th + 1) * len / threads, t);
        },
        sum);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { to.put(t, sum); });
  }
}

/// TwoPass: after the team has written its chunk's partial row into its slot, the team
/// of the row's last chunk sums the slots into C and re-arms the count.
template <class S, class L>
KOKKOS_FORCEINLINE_FUNCTION void team_finish_chunk(const Team& team, const SplitRows& sr,
                                                   const Operands<S, L>& op, std::int32_t slot,
                                                   const S* buf) {
  const std::int32_t s = sr.slot_split[slot];
  const std::int64_t p0 = sr.slot[s], p1 = sr.slot[s + 1];
  Kokkos::memory_fence();
  team.team_barrier();
  int last = 0;
  Kokkos::single(
      Kokkos::PerTeam(team),
      [&](int& l) { l = acq_rel_fetch_add(&sr.done[s], 1) == p1 - p0 - 1 ? 1 : 0; }, last);
  if (!last) return;
  Kokkos::memory_fence();
  const std::int64_t r = sr.row[s], k = op.k;
  Kokkos::parallel_for(Kokkos::TeamVectorRange(team, k), [&](std::int64_t t) {
    S sum = 0;
    for (std::int64_t p = p0; p < p1; ++p) sum += buf[p * k + t];
    op.c(r, t) = op.beta == S(0) ? op.alpha * sum : op.alpha * sum + op.beta * op.c(r, t);
  });
  team.team_barrier();
  Kokkos::single(Kokkos::PerTeam(team), [&]() { sr.done[s] = 0; });
}

}  // namespace

template <class S, class L>
MIMD_SPMM_DECLARE_LSSM_TEAM(S, L) {
  lssm_prepare_split_rows(plan, op, work);
  S* const buf = work.data();
  const int vec = shape.vector;
  const auto kind =
      plan.combine == SplitCombine::Atomic ? Target<S, L>::Atomic : Target<S, L>::Buffer;
  const std::int64_t capacity = plan.max_unit_nnz;
  const std::size_t slice_bytes =
      ScratchArray<S>::shmem_size(capacity) + ScratchArray<std::int32_t>::shmem_size(capacity);
  const bool staged = plan.scratch && std::int64_t(slice_bytes) <= shape.scratch_bytes;
  const std::int32_t* unit_row = plan.unit_row.data();
  const std::int64_t* unit_nz = plan.unit_nz.data();
  const std::int32_t* unit_slot = plan.unit_slot.data();
  const SplitRows sr = split_rows(plan);
  const auto kernel = KOKKOS_LAMBDA(const Team& team) {
    const std::int64_t u = team.league_rank();
    const std::int64_t z0 = unit_nz[u], z1 = unit_nz[u + 1];
    const S* val = op.a.val + z0;
    const std::int32_t* col = op.a.col + z0;
    if (staged) {
      ScratchArray<S> sval(team.team_scratch(0), capacity);
      ScratchArray<std::int32_t> scol(team.team_scratch(0), capacity);
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, z1 - z0), [&](std::int64_t z) {
        sval(z) = val[z];
        scol(z) = col[z];
      });
      team.team_barrier();
      val = sval.data();
      col = scol.data();
    }
    const std::int32_t r0 = unit_row[u], slot = unit_slot[u];
    if (slot < 0) {
      // Each thread a contiguous share of the unit's rows.
      const std::int64_t rows = unit_row[u + 1] - r0, threads = team.team_size();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, threads), [&](std::int64_t th) {
        thread_rows(team, vec, op, static_cast<std::int32_t>(r0 + th * rows / threads),
                    static_cast<std::int32_t>(r0 + (th + 1) * rows / threads), val, col, z0);
      });
    } else {
      team_segment(team, vec, op, val, col, z1 - z0,
                   Target<S, L>{kind, op.c, r0, op.alpha, op.beta,
                                kind == Target<S, L>::Buffer ? buf + slot * op.k : nullptr});
      if (kind == Target<S, L>::Buffer) team_finish_chunk(team, sr, op, slot, buf);
    }
    // The next unit of this team stages into the same scratch.
    if (staged) team.team_barrier();
  };
  const auto policy = core_detail::team_policy<Policy>(plan.nunits, shape, staged ? slice_bytes : 0,
                                                       kernel, Kokkos::ParallelForTag());
  Kokkos::parallel_for("mimd::spmm::lssm_team", policy, kernel);
}

MIMD_SPMM_INSTANTIATE(MIMD_SPMM_DECLARE_LSSM_TEAM)

}  // namespace mimd::spmm_detail
