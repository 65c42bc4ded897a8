// SpMM front end: names, the plan (inspector), validation at the boundary, trivial
// cases, dispatch to the algorithms, and the explicit instantiations.
#include "mimd/spmm.hpp"

#include <algorithm>
#include <array>
#include <iterator>
#include <limits>
#include <sstream>

#include "core/bits.hpp"
#include "core/serial.hpp"
#include "mimd/error.hpp"
#include "spmm/kernels.hpp"

namespace mimd {

namespace {
constexpr SpmmAlgorithm kAll[] = {SpmmAlgorithm::Reference, SpmmAlgorithm::RowParallel,
                                  SpmmAlgorithm::MergePath, SpmmAlgorithm::Lssm,
                                  SpmmAlgorithm::LssmTeam,  SpmmAlgorithm::Auto};
/// Algorithms that run an LSSM plan.
bool is_lssm(SpmmAlgorithm a) {
  return a == SpmmAlgorithm::Lssm || a == SpmmAlgorithm::LssmTeam;
}
}  // namespace

const char* to_string(SpmmAlgorithm a) noexcept {
  switch (a) {
    case SpmmAlgorithm::Reference:
      return "reference";
    case SpmmAlgorithm::RowParallel:
      return "row_parallel";
    case SpmmAlgorithm::MergePath:
      return "merge_path";
    case SpmmAlgorithm::Lssm:
      return "lssm";
    case SpmmAlgorithm::LssmTeam:
      return "lssm_team";
    case SpmmAlgorithm::Auto:
      return "auto";
  }
  return "unknown";
}

SpmmAlgorithm spmm_algorithm_from_string(const std::string& name) {
  std::string valid;
  for (auto a : kAll) {
    if (name == to_string(a)) return a;
    valid += std::string(valid.empty() ? "" : ", ") + to_string(a);
  }
  throw InvalidArgument("unknown SpMM algorithm '" + name + "' (valid: " + valid + ")");
}

std::vector<SpmmAlgorithm> spmm_algorithms() {
  std::vector<SpmmAlgorithm> out;
  for (auto a : kAll)
    if (a != SpmmAlgorithm::Auto) out.push_back(a);
  return out;
}

template <class Scalar, class Layout>
struct SpmmPlan<Scalar, Layout>::State {
  SpmmAlgorithm algorithm = SpmmAlgorithm::Reference;
  int k_tile = 32;
  int simd = 8;  ///< micro-kernel width in bytes (effective_simd_width of the profile's)
  LeftStrategy left = LeftStrategy::Pack;
  int left_k_tile = 8;
  std::int64_t left_pack_min_k = 16;
  std::int64_t left_panel_bytes = 8 << 20;
  std::int64_t left_split_min_k = 16;
  /// LayoutLeft, Pack, host-reachable data, more than one worker (run_left_blocks): worker
  /// w's rows [left_rows[w], left_rows[w + 1]) (equal shares of nonzeros + rows, cut at
  /// multiples of 8 rows), the blocks of 8 rows of B they read, left_blocks[left_first[w]
  /// .. left_first[w + 1]) in ascending order, and every nonzero's column index renumbered
  /// into its worker's copy of those blocks (left_col: slot * 8 + column % 8).
  std::vector<std::int64_t> left_rows, left_first, left_blocks;
  Kokkos::View<std::int32_t*, DefaultMemorySpace> left_col;
  std::int64_t left_widest = 0;  ///< the most blocks of B one worker reads
  /// TuningProfile::spmm_serial_work_k* by class (spmm_serial_work_class); 0 where no call
  /// may run serially (the reference, or Kokkos::Serial cannot reach the data).
  std::array<std::int64_t, std::size(kSpmmSerialWorkK)> serial_work{};
  std::int64_t m = 0, n = 0, nnz = 0;
  const void* row_map = nullptr;
  const void* entries = nullptr;
  std::size_t row_map_size = 0;
  double inspect_seconds = 0;
  spmm_detail::LssmPlan lssm;  ///< Lssm and LssmTeam
  spmm_detail::TeamShape team;
  spmm_detail::MergePathPlan merge;
  /// Carry / partial-sum buffer, grown on demand and kept across calls.
  mutable Kokkos::View<Scalar*, DefaultMemorySpace> work;
  /// LeftStrategy::Pack: B in a row-major panel, grown on demand and kept.
  mutable Kokkos::View<Scalar*, DefaultMemorySpace> packed_b;
};

namespace {

std::string shape(std::int64_t r, std::int64_t c) {
  return std::to_string(r) + "x" + std::to_string(c);
}

// k and the leading dimensions of B (n x k) and C (m x k), checked before any array
// is read: at least the columns (row-major) or rows (column-major) they hold.
void check_dense_extents(bool right, std::int64_t m, std::int64_t n, std::int64_t k,
                         std::int64_t ldb, std::int64_t ldc) {
  const std::int64_t ldb_min = std::max<std::int64_t>(1, right ? k : n);
  const std::int64_t ldc_min = std::max<std::int64_t>(1, right ? k : m);
  if (k < 0 || ldb < ldb_min || ldc < ldc_min)
    throw InvalidArgument("spmm: k = " + std::to_string(k) + ", ldb = " + std::to_string(ldb) +
                          " (min " + std::to_string(ldb_min) + "), ldc = " + std::to_string(ldc) +
                          " (min " + std::to_string(ldc_min) + ") for A " + shape(m, n));
}

/// parallel_for over [0, n) on Kokkos::Serial when `serial` (and Serial can reach the
/// data), on the default execution space otherwise.
template <class F>
void for_range(const char* label, bool serial, std::int64_t n, const F& f) {
  core_detail::with_space(serial, [&](auto space) {
    Kokkos::parallel_for(label, Kokkos::RangePolicy<decltype(space)>(space, 0, n), f);
  });
}

/// `serial`: the call is small enough to run in the calling thread (State::serial_work,
/// never set for the reference), where every algorithm becomes the micro-kernel over all
/// rows.
template <class State, class Scalar, class Layout>
void run(const State& st, const spmm_detail::Operands<Scalar, Layout>& op, bool serial) {
  if (op.a.m == 0 || op.k == 0) return;
  if (op.a.nnz == 0 || op.alpha == Scalar(0)) {
    const auto c = op.c;
    const Scalar beta = op.beta;
    const std::int64_t k = op.k;
    for_range(
        "mimd::spmm::scale", serial, op.a.m * k, KOKKOS_LAMBDA(std::int64_t x) {
          const std::int64_t i = x / k, t = x % k;
          c(i, t) = beta == Scalar(0) ? Scalar(0) : beta * c(i, t);
        });
    return;
  }
  if (serial) {
    for_range(
        "mimd::spmm::serial", true, 1, KOKKOS_LAMBDA(std::int64_t) {
          spmm_detail::whole_rows(op, 0, op.a.m, op.a.val, op.a.col, 0);
        });
    return;
  }
  switch (st.algorithm) {
    case SpmmAlgorithm::Reference:
      spmm_detail::reference_apply(op);
      break;
    case SpmmAlgorithm::RowParallel:
      spmm_detail::row_parallel_apply(op);
      break;
    case SpmmAlgorithm::MergePath:
      spmm_detail::merge_path_apply(st.merge, op, st.work);
      break;
    case SpmmAlgorithm::Lssm:
      spmm_detail::lssm_apply(st.lssm, op, st.work);
      break;
    case SpmmAlgorithm::LssmTeam:
      spmm_detail::lssm_team_apply(st.lssm, st.team, op, st.work);
      break;
    case SpmmAlgorithm::Auto:
      MIMD_ASSERT(false, "Auto is resolved when the plan is made");
  }
}

/// Whether a call with k columns runs in the calling thread: its work (within_work) at most
/// the plan's serial threshold for k.
template <class Scalar, class State>
bool runs_serially(const State& st, std::int64_t k) {
  return spmm_detail::within_work<Scalar>(st.m, st.nnz, k, st.simd,
                                          st.serial_work[spmm_serial_work_class(k)]);
}

/// Grows `v` to at least `size` elements (contents not kept).
template <class Scalar>
Scalar* at_least(Kokkos::View<Scalar*, DefaultMemorySpace>& v, std::int64_t size,
                 const char* label) {
  if (static_cast<std::int64_t>(v.extent(0)) < size)
    v = Kokkos::View<Scalar*, DefaultMemorySpace>(Kokkos::ViewAllocateWithoutInitializing(label),
                                                  static_cast<std::size_t>(size));
  return v.data();
}

/// Row-major copy of the n x k column-major operand `colmajor` into `rowmajor` at SIMD width
/// `simd` (spmm_detail::pack_rows). Each of the `threads` workers copies one contiguous
/// share of the rows: where A's rows are split the same way between the workers (row
/// ranges, LSSM units taken in order) and its columns lie near its rows, a worker then
/// reads mostly rows it copied itself. Kokkos' default chunks of a range (16 blocks of 8
/// rows, dealt out in turn) made half of every worker's reads lines another core had just
/// written: 2 threads 2x slower than 1 on crack at k = 8 (Zen 5 VM).
template <class Scalar>
void pack_rows(Scalar* rowmajor,
               const spmm_detail::DenseArg<const Scalar, Kokkos::LayoutLeft>& colmajor,
               std::int64_t n, std::int64_t k, int simd, bool serial, int threads,
               std::int64_t chunk) {
  const std::int64_t blocks = (n + 7) / 8;
  const std::int64_t shares = serial ? 1 : threads;
  for_range(
      "mimd::spmm::pack_b", serial, shares, KOKKOS_LAMBDA(std::int64_t w) {
        const std::int64_t i0 = blocks * w / shares * 8;
        const std::int64_t i1 = std::min(n, blocks * (w + 1) / shares * 8);
        if (i0 < i1) spmm_detail::pack_rows(colmajor, rowmajor, i0, i1, k, simd, chunk);
      });
}

/// LeftStrategy::Pack with the columns split between the workers: worker w packs its own
/// columns of B (an equal share of the groups of 8, in panels of at most
/// st.left_panel_bytes) and computes them for all rows into its columns of C.
/// Against rows split between workers over one shared copy: no line of a copy written in
/// the call is read by another core, a worker's columns of C are one contiguous range (a
/// row split shares a line of C between two workers in every column that does not start
/// on a line), and the shares are equal; but every worker reads all of A.
template <class State, class Scalar>
void run_left_columns(const State& st, const spmm_detail::Operands<Scalar, Kokkos::LayoutLeft>& op,
                      int threads) {
  const std::int64_t k = op.k, n = std::max<std::int64_t>(1, op.a.n);
  const std::int64_t groups = (k + 7) / 8;
  const std::int64_t share = (groups + threads - 1) / threads * 8;  // the widest worker's
  const std::int64_t fit = st.left_panel_bytes / (n * static_cast<std::int64_t>(sizeof(Scalar)));
  const std::int64_t width = std::min(share, std::max<std::int64_t>(8, fit / 8 * 8));
  const std::int64_t stride = (op.a.n * width + 7) / 8 * 8;  // whole cache lines apart
  Scalar* const copies = at_least(st.packed_b, stride * threads, "mimd::spmm::packed_b");
  const spmm_detail::Operands<Scalar, Kokkos::LayoutLeft> o = op;
  const int k_tile = st.k_tile;
  const std::int64_t chunk = spmm_detail::pack_chunk(st.left_panel_bytes, width, sizeof(Scalar));
  for_range(
      "mimd::spmm::left_columns", false, threads, KOKKOS_LAMBDA(std::int64_t w) {
        const std::int64_t c0 = groups * w / threads * 8;
        const std::int64_t c1 = std::min(k, groups * (w + 1) / threads * 8);
        Scalar* const mine = copies + w * stride;
        for (std::int64_t t0 = c0; t0 < c1; t0 += width) {
          const std::int64_t wd = std::min(width, c1 - t0);
          const spmm_detail::DenseArg<const Scalar, Kokkos::LayoutLeft> b{o.b.at(0, t0), o.b.ld};
          spmm_detail::pack_rows(b, mine, 0, o.a.n, wd, o.simd, chunk);
          spmm_detail::whole_rows(spmm_detail::packed_panel(o, mine, t0, wd, k_tile), 0, o.a.m,
                                  o.a.val, o.a.col, 0);
        }
      });
}

/// LeftStrategy::Pack with B's rows split by use: worker w copies the blocks of 8 rows of B
/// its rows of A read into its own copy (in panels of columns of at most
/// st.left_panel_bytes) and computes its rows from it through column indices renumbered
/// into that copy (State::left_col). One launch, and no line written in the call is read
/// or written by another core: against one shared copy (rows of it copied by one core and
/// read by another in every call: 2-4x slower on 2 cores of a Zen 5 VM at k = 8) or the
/// columns split (every worker reads all of A, and has only k / threads columns). The cost
/// is the blocks two workers both read, copied by both: a matrix whose every share reads
/// all of B copies all of B on every worker (TuningProfile::spmm_left_blocks_pct bounds
/// it). A share is not split further: a row longer than a share leaves its worker the
/// longest.
template <class State, class Scalar>
void run_left_blocks(const State& st, const spmm_detail::Operands<Scalar, Kokkos::LayoutLeft>& op) {
  const int threads = static_cast<int>(st.left_rows.size()) - 1;  // the plan's shares
  const std::int64_t k = op.k, n = op.a.n;
  const std::int64_t rows_max = std::max<std::int64_t>(1, st.left_widest * 8);
  const std::int64_t width =
      spmm_detail::panel_width(st.left_panel_bytes, rows_max, k, sizeof(Scalar));
  const std::int64_t stride = (rows_max * width + 7) / 8 * 8;  // whole cache lines apart
  Scalar* const copies = at_least(st.packed_b, stride * threads, "mimd::spmm::packed_b");
  spmm_detail::Operands<Scalar, Kokkos::LayoutLeft> o = op;
  o.a.col = st.left_col.data();
  const std::int64_t* const rows = st.left_rows.data();
  const std::int64_t* const first = st.left_first.data();
  const std::int64_t* const blocks = st.left_blocks.data();
  const int k_tile = st.k_tile;
  const std::int64_t chunk = spmm_detail::pack_chunk(st.left_panel_bytes, width, sizeof(Scalar));
  for_range(
      "mimd::spmm::left_blocks", false, threads, KOKKOS_LAMBDA(std::int64_t w) {
        if (rows[w] == rows[w + 1]) return;
        Scalar* const mine = copies + w * stride;
        for (std::int64_t t0 = 0; t0 < k; t0 += width) {
          const std::int64_t wd = std::min(width, k - t0);
          // Runs of consecutive blocks are copied as one range of rows.
          for (std::int64_t s = first[w], e; s < first[w + 1]; s = e) {
            for (e = s + 1; e < first[w + 1] && blocks[e] == blocks[e - 1] + 1;) ++e;
            const std::int64_t i0 = blocks[s] * 8, i1 = std::min(n, blocks[e - 1] * 8 + 8);
            const spmm_detail::DenseArg<const Scalar, Kokkos::LayoutLeft> b{o.b.at(i0, t0), o.b.ld};
            spmm_detail::pack_rows(b, mine + (s - first[w]) * 8 * wd, 0, i1 - i0, wd, o.simd,
                                   chunk);
          }
          spmm_detail::whole_rows(spmm_detail::packed_panel(o, mine, t0, wd, k_tile), rows[w],
                                  rows[w + 1], o.a.val, o.a.col, 0);
        }
      });
}

/// LeftStrategy::Pack: column-major B copied into a row-major panel (n * k element
/// moves against nnz * k multiply-adds), which buys the row-major micro-kernel's
/// contiguous gathers of B's rows at any tile width; C is written in place, column-major,
/// 8 rows at a time through register transposes (LeftPackedB, common.hpp). Wide B goes in
/// panels of columns whose copy fits st.left_panel_bytes (multiples of 8 columns, as even
/// as that allows), each packed and multiplied in turn into its columns of C by the plan's
/// algorithm. From k = st.left_split_min_k on, with 8 columns a worker at least, the
/// columns are split between the workers instead (run_left_columns).
template <class State, class Scalar>
void run_packed(const State& st, const spmm_detail::Operands<Scalar, Kokkos::LayoutLeft>& op,
                bool serial) {
  const std::int64_t k = op.k, n = std::max<std::int64_t>(1, op.a.n);
  const int threads = Kokkos::DefaultExecutionSpace().concurrency();
  if (!serial && spmm_left_splits_columns(k, st.left_split_min_k, threads)) {
    run_left_columns(st, op, threads);
    return;
  }
  if (!serial && !st.left_rows.empty()) {
    run_left_blocks(st, op);
    return;
  }
  const std::int64_t width = spmm_detail::panel_width(st.left_panel_bytes, n, k, sizeof(Scalar));
  Scalar* const pb = at_least(st.packed_b, op.a.n * width, "mimd::spmm::packed_b");
  for (std::int64_t t0 = 0; t0 < k; t0 += width) {
    const std::int64_t w = std::min(width, k - t0);
    const spmm_detail::DenseArg<const Scalar, Kokkos::LayoutLeft> b{op.b.at(0, t0), op.b.ld};
    pack_rows(pb, b, op.a.n, w, op.simd, serial, threads,
              spmm_detail::pack_chunk(st.left_panel_bytes, w, sizeof(Scalar)));
    run(st, spmm_detail::packed_panel(op, pb, t0, w, st.k_tile), serial);
  }
}

/// run_left_blocks' plan: `threads` shares of rows of about equal nonzeros + rows, cut at
/// multiples of 8 rows, the blocks of 8 rows of B each reads and the renumbered column
/// indices; kept (st.left_rows non-empty) when no worker reads more than `pct` percent of
/// B's blocks and no row is longer than a share (rows that only LSSM's split can share
/// out evenly).
template <class State, class Scalar>
void plan_left_blocks(State& st, const std::int64_t* row_map, const Csr<Scalar>& a, int threads,
                      int pct) {
  const std::int64_t m = st.m, total = st.nnz + m, nblocks = (st.n + 7) / 8;
  if (nblocks * 8 > std::numeric_limits<std::int32_t>::max()) return;  // renumbered: int32
  for (std::int64_t i = 0; i < m; ++i)
    if ((row_map[i + 1] - row_map[i]) * threads > total) return;
  const auto entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.entries);
  const std::int32_t* col = entries.data();
  constexpr std::int64_t g = spmm_detail::kLeftRowGroup;
  std::vector<std::int64_t> rows(threads + 1, m), first(1, 0), blocks;
  rows[0] = 0;
  for (int w = 1; w < threads; ++w) {
    const std::int64_t target = total * w / threads;
    std::int64_t l = 0, r = m;  // the first row l with row_map[l] + l >= target
    while (l < r) {
      const std::int64_t mid = l + (r - l) / 2;
      if (row_map[mid] + mid < target)
        l = mid + 1;
      else
        r = mid;
    }
    rows[w] = std::clamp((l + g / 2) / g * g, rows[w - 1], m);
  }
  auto renumbered = Kokkos::View<std::int32_t*, DefaultMemorySpace>(
      Kokkos::ViewAllocateWithoutInitializing("mimd::spmm::left_col"),
      static_cast<std::size_t>(st.nnz));
  auto host = Kokkos::create_mirror_view(renumbered);
  std::vector<std::int64_t> slot(static_cast<std::size_t>(nblocks), -1);
  std::int64_t widest = 0;
  for (int w = 0; w < threads; ++w) {
    const std::int64_t z0 = row_map[rows[w]], z1 = row_map[rows[w + 1]];
    const std::size_t mine = blocks.size();
    for (std::int64_t z = z0; z < z1; ++z) slot[col[z] / 8] = 0;
    for (std::int64_t blk = 0; blk < nblocks; ++blk)
      if (slot[blk] == 0) blocks.push_back(blk);
    const std::int64_t count = static_cast<std::int64_t>(blocks.size() - mine);
    if (count * 100 > std::int64_t(pct) * nblocks) return;
    for (std::int64_t s = 0; s < count; ++s) slot[blocks[mine + s]] = s;
    for (std::int64_t z = z0; z < z1; ++z)
      host(z) = static_cast<std::int32_t>(slot[col[z] / 8] * 8 + col[z] % 8);
    for (std::size_t s = mine; s < blocks.size(); ++s) slot[blocks[s]] = -1;
    first.push_back(static_cast<std::int64_t>(blocks.size()));
    widest = std::max(widest, count);
  }
  Kokkos::deep_copy(renumbered, host);
  st.left_rows = std::move(rows);
  st.left_first = std::move(first);
  st.left_blocks = std::move(blocks);
  st.left_col = renumbered;
  st.left_widest = widest;
}

}  // namespace

template <class Scalar, class Layout>
SpmmPlan<Scalar, Layout>::SpmmPlan(const ExecutionContext& ctx, const Csr<Scalar>& a, int k_hint,
                                   const SpmmOptions& options)
    : state_(std::make_shared<State>()) {
  Kokkos::Timer timer;
  validate(a);  // once per matrix: apply() checks only that it gets the same arrays
  if (options.block_nnz && *options.block_nnz < 1)
    throw InvalidArgument("spmm: block_nnz must be >= 1 when given, got " +
                          std::to_string(*options.block_nnz));
  if (options.combine && *options.combine != SplitCombine::Atomic &&
      *options.combine != SplitCombine::TwoPass)
    throw InvalidArgument("spmm: combine must be a SplitCombine value, got " +
                          std::to_string(static_cast<int>(*options.combine)));
  State& st = *state_;
  const TuningProfile& prof = ctx.tuning();
  validate_profile(prof, "SpmmPlan: the context's tuning profile");
  st.m = a.nrows;
  st.n = a.ncols;
  st.nnz = a.nnz();
  st.row_map = a.row_map.data();
  st.entries = a.entries.data();
  st.row_map_size = a.row_map.extent(0);
  st.k_tile = core_detail::pow2_floor(static_cast<std::uint64_t>(prof.spmm_k_tile));
  st.simd = effective_simd_width(prof.simd_bytes);
  st.left = prof.spmm_left_strategy;
  st.left_k_tile = core_detail::pow2_floor(static_cast<std::uint64_t>(prof.spmm_left_k_tile));
  st.left_pack_min_k = prof.spmm_left_pack_min_k;
  st.left_panel_bytes = prof.spmm_left_panel_bytes;
  st.left_split_min_k = prof.spmm_left_split_min_k;
  const int threads = Kokkos::DefaultExecutionSpace().concurrency();

  auto rm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.row_map);
  const std::int64_t* row_map = rm.data();

  st.algorithm = options.algorithm;
  std::optional<int> block = options.block_nnz;
  if (st.algorithm == SpmmAlgorithm::Auto) {
    const auto choice = spmm_detail::choose_algorithm(
        spmm_detail::matrix_features(row_map, st.m, std::max(1, k_hint), threads), prof, threads);
    st.algorithm = choice.algorithm;
    if (!block) block = choice.block_nnz;
  }
  if (is_lssm(st.algorithm)) {
    st.team = core_detail::team_shape(prof);
    if (!block) block = spmm_detail::lssm_default_block(st.m, st.nnz, k_hint, prof, threads);
    st.lssm = spmm_detail::lssm_inspect(
        row_map, st.m, *block, options.use_scratch.value_or(prof.spmm_use_scratch),
        options.combine.value_or(prof.spmm_combine), threads, spmm_detail::row_group<Layout>());
    st.lssm.static_work = prof.spmm_static_work;
  } else if (st.algorithm == SpmmAlgorithm::MergePath) {
    st.merge = spmm_detail::merge_path_inspect(row_map, st.m,
                                               std::int64_t(threads) * prof.spmm_units_per_thread);
  }
  if (core_detail::kSerialReachesData && st.algorithm != SpmmAlgorithm::Reference)
    for (std::size_t c = 0; c < st.serial_work.size(); ++c)
      st.serial_work[c] = prof.*spmm_serial_work_field(kSpmmSerialWorkK[c]);
  if constexpr (std::is_same<Layout, Kokkos::LayoutLeft>::value) {
    if (core_detail::kSerialReachesData && st.algorithm != SpmmAlgorithm::Reference &&
        st.left == LeftStrategy::Pack && threads > 1 && st.nnz > 0 && prof.spmm_left_blocks_pct > 0)
      plan_left_blocks(st, row_map, a, threads, prof.spmm_left_blocks_pct);
  }
  Kokkos::fence();
  st.inspect_seconds = timer.seconds();
}

template <class Scalar, class Layout>
void SpmmPlan<Scalar, Layout>::apply(Scalar alpha, const Csr<Scalar>& a,
                                     const DenseConst<Scalar, Layout>& b, Scalar beta,
                                     const Dense<Scalar, Layout>& c) const {
  const State& st = *state_;
  const auto bn = static_cast<std::int64_t>(b.extent(0));
  const auto bk = static_cast<std::int64_t>(b.extent(1));
  const auto cm = static_cast<std::int64_t>(c.extent(0));
  const auto ck = static_cast<std::int64_t>(c.extent(1));
  if (a.nrows != st.m || a.ncols != st.n || bn != a.ncols || cm != a.nrows || bk != ck)
    throw DimensionMismatch("spmm", "A is " + shape(a.nrows, a.ncols) + ", B is " + shape(bn, bk) +
                                        ", C is " + shape(cm, ck) +
                                        " (need B n x k and C m x k; plan made for " +
                                        shape(st.m, st.n) + ")");
  const bool right = std::is_same<Layout, Kokkos::LayoutRight>::value;
  const auto ld = [&](const auto& v, std::int64_t rows, std::int64_t cols) {
    if (rows == 0 || cols == 0) return std::max<std::int64_t>(1, right ? cols : rows);
    return static_cast<std::int64_t>(right ? v.stride(0) : v.stride(1));
  };
  apply(alpha, a, bk, b.data(), ld(b, bn, bk), beta, c.data(), ld(c, cm, ck));
}

template <class Scalar, class Layout>
void SpmmPlan<Scalar, Layout>::apply(Scalar alpha, const Csr<Scalar>& a, std::int64_t k,
                                     const Scalar* b, std::int64_t ldb, Scalar beta, Scalar* c,
                                     std::int64_t ldc) const {
  const State& st = *state_;
  if (a.row_map.data() != st.row_map || a.entries.data() != st.entries || a.nrows != st.m ||
      a.ncols != st.n || a.nnz() != st.nnz || a.row_map.extent(0) != st.row_map_size)
    throw InvalidArgument("spmm: the plan was made for another matrix (" + shape(st.m, st.n) +
                          ", nnz " + std::to_string(st.nnz) + "), not this " +
                          shape(a.nrows, a.ncols) + " one with nnz " + std::to_string(a.nnz()));
  if (static_cast<std::int64_t>(a.values.extent(0)) != st.nnz)
    throw DimensionMismatch("spmm", "A has " + std::to_string(st.nnz) + " column indices but " +
                                        std::to_string(a.values.extent(0)) + " values");
  const bool right = std::is_same<Layout, Kokkos::LayoutRight>::value;
  check_dense_extents(right, st.m, st.n, k, ldb, ldc);
  if (st.m > 0 && k > 0 && (c == nullptr || (st.nnz > 0 && b == nullptr)))
    throw InvalidArgument("spmm: B or C is null while A is " + shape(st.m, st.n) +
                          " and k = " + std::to_string(k));
  spmm_detail::Operands<Scalar, Layout> op;
  op.a = {st.m, st.n, st.nnz, a.row_map.data(), a.entries.data(), a.values.data()};
  op.b = {b, ldb};
  op.c = {c, ldc};
  op.k = k;
  op.alpha = alpha;
  op.beta = beta;
  op.simd = st.simd;
  const bool serial = runs_serially<Scalar>(st, k);
  if constexpr (std::is_same<Layout, Kokkos::LayoutLeft>::value) {
    const bool trivial = st.m == 0 || k == 0 || st.nnz == 0 || alpha == Scalar(0);
    if (k == 1 && !trivial) {
      // One column: column-major is row-major with leading dimension 1.
      spmm_detail::Operands<Scalar, Kokkos::LayoutRight> r;
      r.a = op.a;
      r.b = {b, 1};
      r.c = {c, 1};
      r.k = 1;
      r.alpha = alpha;
      r.beta = beta;
      r.k_tile = st.k_tile;
      r.simd = st.simd;
      run(st, r, serial);
      return;
    }
    // The reference reads the caller's B as it is, packed or not.
    if (st.left == LeftStrategy::Pack && k >= st.left_pack_min_k && !trivial &&
        st.algorithm != SpmmAlgorithm::Reference) {
      run_packed(st, op, serial);
      return;
    }
  }
  // Column-major B read in place: every column of a tile is another page, so wide tiles
  // thrash the TLB and the L1 sets (measured 2-5x slower at 32 than at 8 on matrices
  // with n ~ 10^4): the profile's spmm_left_k_tile caps them.
  op.k_tile = right ? st.k_tile : std::min(st.k_tile, st.left_k_tile);
  run(st, op, serial);
}

template <class Scalar, class Layout>
SpmmAlgorithm SpmmPlan<Scalar, Layout>::algorithm() const {
  return state_->algorithm;
}
template <class Scalar, class Layout>
int SpmmPlan<Scalar, Layout>::block_nnz() const {
  return is_lssm(state_->algorithm) ? state_->lssm.block : 0;
}
template <class Scalar, class Layout>
bool SpmmPlan<Scalar, Layout>::uses_scratch() const {
  return is_lssm(state_->algorithm) && state_->lssm.scratch;
}
template <class Scalar, class Layout>
SplitCombine SpmmPlan<Scalar, Layout>::combine() const {
  return state_->lssm.combine;
}
template <class Scalar, class Layout>
std::int64_t SpmmPlan<Scalar, Layout>::num_units() const {
  if (is_lssm(state_->algorithm)) return state_->lssm.nunits;
  if (state_->algorithm == SpmmAlgorithm::MergePath) return state_->merge.nshares;
  return 0;
}
template <class Scalar, class Layout>
std::int64_t SpmmPlan<Scalar, Layout>::num_split_rows() const {
  return is_lssm(state_->algorithm) ? state_->lssm.nsplit_rows : 0;
}
template <class Scalar, class Layout>
double SpmmPlan<Scalar, Layout>::inspect_seconds() const {
  return state_->inspect_seconds;
}
namespace {

/// SpmmPlan::describe of the plan `st`, with `hand_out` for how LSSM (without scratch)
/// hands its units out: the threshold (spmm_static_work) or, for one call, the outcome.
template <class Layout, class State>
std::string describe_plan(const State& st, const std::string& hand_out) {
  std::ostringstream os;
  os << to_string(st.algorithm);
  if (is_lssm(st.algorithm))
    os << " block=" << st.lssm.block << " units=" << st.lssm.nunits
       << " split_rows=" << st.lssm.nsplit_rows << " combine=" << to_string(st.lssm.combine)
       << " scratch=" << (st.lssm.scratch ? "yes" : "no");
  if (st.algorithm == SpmmAlgorithm::Lssm && !st.lssm.scratch) os << " " << hand_out;
  if (st.algorithm == SpmmAlgorithm::LssmTeam)
    os << " team=" << (st.team.team_size ? std::to_string(st.team.team_size) : "auto")
       << " vector=" << st.team.vector << " team_scratch=" << st.team.scratch_bytes;
  else if (st.algorithm == SpmmAlgorithm::MergePath)
    os << " shares=" << st.merge.nshares;
  os << " k_tile=" << st.k_tile << " simd=" << st.simd * 8;
  if (!std::is_same<Layout, Kokkos::LayoutRight>::value) {
    os << " left=" << to_string(st.left) << " left_k_tile=" << st.left_k_tile;
    if (st.left == LeftStrategy::Pack)
      os << " pack_min_k=" << st.left_pack_min_k << " panel_bytes=" << st.left_panel_bytes
         << " split_min_k=" << st.left_split_min_k
         << " rows_by_blocks=" << (st.left_rows.empty() ? "no" : "yes");
  }
  if (st.serial_work != decltype(st.serial_work){}) {
    os << " serial_work=";
    for (std::size_t c = 0; c < st.serial_work.size(); ++c)
      os << (c ? "/" : "") << st.serial_work[c];
  }
  return os.str();
}

}  // namespace

template <class Scalar, class Layout>
std::string SpmmPlan<Scalar, Layout>::describe(std::int64_t k) const {
  const State& st = *state_;
  if (runs_serially<Scalar>(st, k)) {
    std::ostringstream os;
    os << "serial k_tile=" << st.k_tile << " simd=" << st.simd * 8;
    // LayoutLeft as apply() runs it serially: one column as row-major, packed, or in place.
    if (!std::is_same<Layout, Kokkos::LayoutRight>::value && k > 1) {
      if (st.left == LeftStrategy::Pack && k >= st.left_pack_min_k)
        os << " left=pack panel_bytes=" << st.left_panel_bytes;
      else
        os << " left=tile left_k_tile=" << std::min(st.k_tile, st.left_k_tile);
    }
    return os.str();
  }
  // LayoutLeft runs LSSM on panels of fewer columns, or not at all: the threshold stays.
  if (!std::is_same<Layout, Kokkos::LayoutRight>::value) return describe();
  const bool fixed =
      st.lssm.nunits == st.lssm.workers ||
      spmm_detail::within_work<Scalar>(st.m, st.nnz, k, st.simd, st.lssm.static_work);
  return describe_plan<Layout>(st, fixed ? "hand_out=static" : "hand_out=dynamic");
}

template <class Scalar, class Layout>
std::string SpmmPlan<Scalar, Layout>::describe() const {
  return describe_plan<Layout>(*state_, "static_work=" + std::to_string(state_->lssm.static_work));
}

template <class Scalar, class Layout>
void spmm(const ExecutionContext& ctx, Scalar alpha, const Csr<Scalar>& a,
          const DenseConst<Scalar, Layout>& b, Scalar beta, const Dense<Scalar, Layout>& c,
          const SpmmOptions& options) {
  SpmmPlan<Scalar, Layout>(ctx, a, static_cast<int>(b.extent(1)), options)
      .apply(alpha, a, b, beta, c);
}

template <class Scalar>
void spmm(const ExecutionContext& ctx, DenseLayout layout, std::int64_t m, std::int64_t n,
          std::int64_t k, Scalar alpha, const std::int64_t* row_map, const std::int32_t* col_idx,
          const Scalar* values, const Scalar* b, std::int64_t ldb, Scalar beta, Scalar* c,
          std::int64_t ldc, const SpmmOptions& options) {
  if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, DefaultMemorySpace>::accessible) {
    throw InvalidArgument("spmm on raw arrays needs a host-accessible default memory space");
  } else {
    if (m < 0 || n < 0 || k < 0)
      throw InvalidArgument("spmm: negative extent: m = " + std::to_string(m) +
                            ", n = " + std::to_string(n) + ", k = " + std::to_string(k));
    if (m > std::numeric_limits<std::int32_t>::max() ||
        n > std::numeric_limits<std::int32_t>::max())
      throw InvalidArgument("spmm: m = " + std::to_string(m) + " or n = " + std::to_string(n) +
                            " does not fit 32-bit column indices");
    check_dense_extents(layout == DenseLayout::RowMajor, m, n, k, ldb, ldc);
    if (m > 0 && k > 0 && c == nullptr)
      throw InvalidArgument("spmm: C is null while A is " + shape(m, n) +
                            " and k = " + std::to_string(k));
    if (row_map == nullptr) throw InvalidArgument("spmm: row_map is null");
    const std::int64_t nnz = row_map[m];
    if (nnz < 0 || (nnz > 0 && (col_idx == nullptr || values == nullptr)))
      throw InvalidArgument("spmm: col_idx or values is null (or nnz negative) while nnz = " +
                            std::to_string(nnz));
    Csr<Scalar> a;
    a.nrows = static_cast<std::int32_t>(m);
    a.ncols = static_cast<std::int32_t>(n);
    a.row_map = typename Csr<Scalar>::row_map_type(const_cast<std::int64_t*>(row_map),
                                                   static_cast<std::size_t>(m) + 1);
    a.entries = typename Csr<Scalar>::entries_type(const_cast<std::int32_t*>(col_idx),
                                                   static_cast<std::size_t>(nnz));
    a.values = typename Csr<Scalar>::values_type(const_cast<Scalar*>(values),
                                                 static_cast<std::size_t>(nnz));
    const int k_hint = static_cast<int>(std::min<std::int64_t>(k, 1 << 20));
    if (layout == DenseLayout::RowMajor)
      SpmmPlan<Scalar, Kokkos::LayoutRight>(ctx, a, k_hint, options)
          .apply(alpha, a, k, b, ldb, beta, c, ldc);
    else
      SpmmPlan<Scalar, Kokkos::LayoutLeft>(ctx, a, k_hint, options)
          .apply(alpha, a, k, b, ldb, beta, c, ldc);
  }
}

#define MIMD_INSTANTIATE_SPMM(S, L)                                                               \
  template class SpmmPlan<S, L>;                                                                  \
  template void spmm<S, L>(const ExecutionContext&, S, const Csr<S>&, const DenseConst<S, L>&, S, \
                           const Dense<S, L>&, const SpmmOptions&)
MIMD_FOR_EACH_SCALAR_LAYOUT(MIMD_INSTANTIATE_SPMM)
#undef MIMD_INSTANTIATE_SPMM

#define MIMD_INSTANTIATE_SPMM_RAW(S, unused)                                                 \
  template void spmm<S>(const ExecutionContext&, DenseLayout, std::int64_t, std::int64_t,    \
                        std::int64_t, S, const std::int64_t*, const std::int32_t*, const S*, \
                        const S*, std::int64_t, S, S*, std::int64_t, const SpmmOptions&);
MIMD_FOR_EACH_SCALAR(MIMD_INSTANTIATE_SPMM_RAW, )
#undef MIMD_INSTANTIATE_SPMM_RAW

}  // namespace mimd
