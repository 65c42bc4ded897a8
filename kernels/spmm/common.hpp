// Internal building blocks shared by the SpMM algorithms: raw operand descriptors
// (pointers and leading dimensions, so that the public View API and the raw-array API
// share one code path) and the register-tiled micro-kernel over the k columns.
//
// Micro-kernel: a segment of one row of A (nonzeros z0..z1) times B, for a tile of W
// columns of B, W a compile-time power of two (1..64). The W partial sums live in two
// register arrays (even and odd nonzeros) so that consecutive FMAs on a column are
// independent; with W fixed the compiler keeps them in vector registers. Any k is
// covered by tiles of decreasing width (e.g. k = 33 with k_tile = 32: 32 + 1), so every
// k runs on specialised code and small k (1, 2, 4, 8, 16) is a single tile.
//
// SIMD width: a run-time choice (Operands::simd, from the profile). The micro-kernel is
// instantiated per width in bytes (8: scalar loops, 16, 32, 64: packs of that many
// bytes); on x86-64 the 32- and 64-byte variants sit in functions compiled with
// target("avx2,fma") / target("avx512f,...") and are entered once per row range or row
// segment, so one binary runs them on the CPUs that have them (mimd::effective_simd_width
// picks only what the CPU supports).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

#include "core/simd.hpp"
#include "mimd/tuning.hpp"

namespace mimd::spmm_detail {

/// CSR operand as raw pointers (device-accessible memory).
template <class S>
struct CsrArg {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t nnz = 0;
  const std::int64_t* row_map = nullptr;
  const std::int32_t* col = nullptr;
  const S* val = nullptr;
};

/// The kernels' third layout: C column-major as the caller gave it, B a row-major copy of
/// the caller's column-major B (LeftStrategy::Pack). As a layout of C it reads as
/// LayoutLeft; Operands' B is row-major under it (BLayout).
struct LeftPackedB {};

/// The layout of B in Operands<S, Layout>: Layout, but LayoutRight under LeftPackedB.
template <class Layout>
struct BLayout {
  using type = Layout;
};
template <>
struct BLayout<LeftPackedB> {
  using type = Kokkos::LayoutRight;
};

/// Dense operand: element (i, t) at p[i * ld + t] (LayoutRight) or p[i + t * ld] (LayoutLeft,
/// LeftPackedB).
template <class S, class Layout>
struct DenseArg {
  S* p = nullptr;
  std::int64_t ld = 0;
  KOKKOS_FORCEINLINE_FUNCTION S& operator()(std::int64_t i, std::int64_t t) const {
    if constexpr (std::is_same<Layout, Kokkos::LayoutRight>::value)
      return p[i * ld + t];
    else
      return p[i + t * ld];
  }
  /// Address of (i, t0); consecutive columns are at stride col_stride().
  KOKKOS_FORCEINLINE_FUNCTION S* at(std::int64_t i, std::int64_t t0) const {
    return &(*this)(i, t0);
  }
  KOKKOS_FORCEINLINE_FUNCTION std::int64_t col_stride() const {
    if constexpr (std::is_same<Layout, Kokkos::LayoutRight>::value)
      return 1;
    else
      return ld;
  }
};

/// Rows of column-major C stored together (store_rows_left: 8 rows of a column in one
/// vector store). Work split between threads at multiples of it stores full groups and,
/// where C's columns start on a cache line, writes no line of C from two cores.
constexpr int kLeftRowGroup = 8;

/// The multiple of rows at which work on C of this layout is split between threads.
template <class Layout>
constexpr int row_group() {
  return std::is_same<Layout, Kokkos::LayoutRight>::value ? 1 : kLeftRowGroup;
}

/// Whether a call on m rows, `nnz` nonzeros and k columns is within `limit` work, the work
/// counted as (nnz + m) * k with k rounded up to whole vectors of `simd` bytes: a nonzero's
/// multiply-adds and a row's k results each cost at least one vector (a matrix of one
/// nonzero a row costs about twice one of many per row and the same nonzeros). The measure
/// of TuningProfile::spmm_serial_work_k* and spmm_static_work. A limit of 0 holds nothing.
template <class S>
inline bool within_work(std::int64_t m, std::int64_t nnz, std::int64_t k, int simd,
                        std::int64_t limit) {
  return limit > 0 && k > 0 &&
         nnz + m <= limit / spmm_work_columns(k, simd, static_cast<int>(sizeof(S)));
}

/// Everything one SpMM call needs, by value (captured by kernels).
template <class S, class Layout>
struct Operands {
  CsrArg<S> a;
  DenseArg<const S, typename BLayout<Layout>::type> b;
  DenseArg<S, Layout> c;
  std::int64_t k = 0;
  S alpha = 0;
  S beta = 0;
  int k_tile = 32;  ///< widest tile of columns (a power of two, 1..64)
  int simd = 8;     ///< micro-kernel width in bytes: 8, 16 or (x86-64) 32, 64
};

#ifdef MIMD_SIMD_PACKS
// Host compilers with GNU vector extensions: the tile is held as explicit SIMD packs.
// (Plain loops over W let GCC vectorise across nonzeros instead, with gathers and the
// accumulators in memory, 2-3x slower.)
template <class S, int N>
struct Pack {
  typedef S type __attribute__((vector_size(N * sizeof(S))));
};

/// LayoutRight: acc[0..W) = sum_j val[j] * B(col[j], t0 .. t0 + W) with W/N packs of N
/// lanes, N = Bytes / sizeof(S) (or W when smaller).
template <int W, int Bytes, class S>
__attribute__((always_inline)) inline void accumulate_packs(const S* KOKKOS_RESTRICT val,
                                                            const std::int32_t* KOKKOS_RESTRICT col,
                                                            std::int64_t len,
                                                            const S* KOKKOS_RESTRICT base,
                                                            std::int64_t ld, S (&acc)[W]) {
  constexpr int lanes =
      Bytes / static_cast<int>(sizeof(S)) > 1 ? Bytes / static_cast<int>(sizeof(S)) : 1;
  constexpr int N = W < lanes ? W : lanes;
  constexpr int P = W / N;
  using V = typename Pack<S, N>::type;
  V even[P], odd[P];
  for (int p = 0; p < P; ++p) even[p] = odd[p] = V{};
  std::int64_t j = 0;
  for (; j + 1 < len; j += 2) {
    const S v0 = val[j], v1 = val[j + 1];
    const S* KOKKOS_RESTRICT b0 = base + col[j] * ld;
    const S* KOKKOS_RESTRICT b1 = base + col[j + 1] * ld;
    for (int p = 0; p < P; ++p) {
      V x0, x1;
      __builtin_memcpy(&x0, b0 + p * N, sizeof(V));
      __builtin_memcpy(&x1, b1 + p * N, sizeof(V));
      even[p] += v0 * x0;
      odd[p] += v1 * x1;
    }
  }
  if (j < len) {
    const S v0 = val[j];
    const S* KOKKOS_RESTRICT b0 = base + col[j] * ld;
    for (int p = 0; p < P; ++p) {
      V x0;
      __builtin_memcpy(&x0, b0 + p * N, sizeof(V));
      even[p] += v0 * x0;
    }
  }
  for (int p = 0; p < P; ++p) {
    const V sum = even[p] + odd[p];
    __builtin_memcpy(acc + p * N, &sum, sizeof(V));
  }
}
#endif

/// acc[0..W) = sum over nonzeros j in [0, len) of val[j] * B(col[j], t0 .. t0 + W).
template <int W, int Bytes, class S, class Layout>
KOKKOS_FORCEINLINE_FUNCTION void accumulate(const S* KOKKOS_RESTRICT val,
                                            const std::int32_t* KOKKOS_RESTRICT col,
                                            std::int64_t len, const DenseArg<const S, Layout>& b,
                                            std::int64_t t0, S (&acc)[W]) {
  constexpr bool right = std::is_same<Layout, Kokkos::LayoutRight>::value;
#ifdef MIMD_SIMD_PACKS
  if constexpr (right && W > 1 && Bytes > 8) {
    accumulate_packs<W, Bytes>(val, col, len, b.p + t0, b.ld, acc);
    return;
  }
#endif
  S even[W], odd[W];
  for (int t = 0; t < W; ++t) even[t] = odd[t] = S(0);
  const std::int64_t rs = right ? b.ld : 1, cs = right ? 1 : b.ld;
  const S* KOKKOS_RESTRICT base = b.p + t0 * cs;
  std::int64_t j = 0;
  for (; j + 1 < len; j += 2) {
    const S v0 = val[j], v1 = val[j + 1];
    const S* KOKKOS_RESTRICT b0 = base + col[j] * rs;
    const S* KOKKOS_RESTRICT b1 = base + col[j + 1] * rs;
    for (int t = 0; t < W; ++t) {
      even[t] += v0 * b0[t * cs];
      odd[t] += v1 * b1[t * cs];
    }
  }
  if (j < len) {
    const S v0 = val[j];
    const S* KOKKOS_RESTRICT b0 = base + col[j] * rs;
    for (int t = 0; t < W; ++t) even[t] += v0 * b0[t * cs];
  }
  for (int t = 0; t < W; ++t) acc[t] = even[t] + odd[t];
}

/// Sink: C(row, t0 + t) = alpha * acc[t] + beta * C(row, t0 + t); beta = 0 never reads C.
template <class S, class Layout>
struct StoreC {
  DenseArg<S, Layout> c;
  std::int64_t row;
  S alpha, beta;
  template <int W>
  KOKKOS_FORCEINLINE_FUNCTION void operator()(std::int64_t t0, const S (&acc)[W]) const {
    S* KOKKOS_RESTRICT p = c.at(row, t0);
    const std::int64_t s = c.col_stride();
    if (beta == S(0)) {
      for (int t = 0; t < W; ++t) p[t * s] = alpha * acc[t];
    } else {
      for (int t = 0; t < W; ++t) p[t * s] = alpha * acc[t] + beta * p[t * s];
    }
  }
};

/// Sink: buf[t0 + t] = acc[t] (a partial row, combined later).
template <class S>
struct StoreBuf {
  S* buf;
  template <int W>
  KOKKOS_FORCEINLINE_FUNCTION void operator()(std::int64_t t0, const S (&acc)[W]) const {
    for (int t = 0; t < W; ++t) buf[t0 + t] = acc[t];
  }
};

/// Sink: C(row, t0 + t) += alpha * acc[t], atomically (C already holds beta * C).
template <class S, class Layout>
struct AtomicAddC {
  DenseArg<S, Layout> c;
  std::int64_t row;
  S alpha;
  template <int W>
  KOKKOS_FORCEINLINE_FUNCTION void operator()(std::int64_t t0, const S (&acc)[W]) const {
    for (int t = 0; t < W; ++t) Kokkos::atomic_add(&c(row, t0 + t), alpha * acc[t]);
  }
};

template <int W, int Bytes, class S, class Layout, class Sink>
KOKKOS_FORCEINLINE_FUNCTION void tile(const S* val, const std::int32_t* col, std::int64_t len,
                                      const DenseArg<const S, Layout>& b, std::int64_t t0,
                                      const Sink& sink) {
  S acc[W];
  accumulate<W, Bytes>(val, col, len, b, t0, acc);
  sink.template operator()<W>(t0, acc);
}

// The lambdas of the tile loops are inlined whatever the optimiser thinks: they run inside
// the target("avx512f") variants below, and gcc 12's vectoriser fails (internal compiler
// error) on one compiled out of line for the default target.
#if defined(__GNUC__) && !defined(__NVCC__) && !defined(__CUDACC__)
#define MIMD_INLINE_LAMBDA __attribute__((always_inline))
#else
#define MIMD_INLINE_LAMBDA
#endif

/// Calls f(std::integral_constant<int, W>()) for the widest power-of-two tile width
/// W <= min(left, 64) (left >= 1) and returns W: the one place a run-time count of
/// columns becomes a compile-time tile.
template <class F>
KOKKOS_FORCEINLINE_FUNCTION int with_tile_width(std::int64_t left, const F& f) {
  if (left >= 64) return f(std::integral_constant<int, 64>()), 64;
  if (left >= 32) return f(std::integral_constant<int, 32>()), 32;
  if (left >= 16) return f(std::integral_constant<int, 16>()), 16;
  if (left >= 8) return f(std::integral_constant<int, 8>()), 8;
  if (left >= 4) return f(std::integral_constant<int, 4>()), 4;
  if (left >= 2) return f(std::integral_constant<int, 2>()), 2;
  return f(std::integral_constant<int, 1>()), 1;
}

/// One row segment (len nonzeros at val/col) times all k columns of B, handed to
/// `sink` tile by tile, at SIMD width Bytes. Tile widths: min(k_tile, what is left),
/// rounded down to a power of two.
template <int Bytes, class S, class Layout, class Sink>
KOKKOS_FORCEINLINE_FUNCTION void row_segment_at(const S* val, const std::int32_t* col,
                                                std::int64_t len,
                                                const DenseArg<const S, Layout>& b, std::int64_t k,
                                                int k_tile, const Sink& sink) {
  for (std::int64_t t0 = 0; t0 < k;)
    t0 += with_tile_width(k - t0 < k_tile ? k - t0 : k_tile, [&](auto w) MIMD_INLINE_LAMBDA {
      tile<decltype(w)::value, Bytes>(val, col, len, b, t0, sink);
    });
}

}  // namespace mimd::spmm_detail

namespace mimd::spmm_detail {

#ifdef MIMD_SIMD_SHUFFLE
/// Sink of transpose_block: the N-lane vector v becomes the N elements at p.
template <class S>
struct CopyLanes {
  template <int N, class V>
  __attribute__((always_inline)) void store(const V& v, S* p) const {
    typedef S U __attribute__((vector_size(N * sizeof(S)), aligned(alignof(S)), may_alias));
    *reinterpret_cast<U*>(p) = v;
  }
};

/// Sink of transpose_block: the N elements at p become alpha * v (+ beta * p with
/// Beta; without it p is never read, so C may hold NaN there and its lines are not loaded
/// before the stores).
template <class S, bool Beta>
struct ScaleLanes {
  S alpha, beta;
  template <int N, class V>
  __attribute__((always_inline)) void store(const V& v, S* p) const {
    typedef S U __attribute__((vector_size(N * sizeof(S)), aligned(alignof(S)), may_alias));
    V out = alpha * v;
    if constexpr (Beta) out += beta * *reinterpret_cast<const U*>(p);
    *reinterpret_cast<U*>(p) = out;
  }
};

/// The N x N block at `from` (row r at from + r * from_ld) transposed into `to` (row r at
/// to + r * to_ld, handed to `sink`: CopyLanes or ScaleLanes) in registers of N lanes
/// (N = 2, 4 or 8): log2(N) rounds of two-vector shuffles (pairs of elements, of 2-blocks,
/// of 4-blocks), N loads and N stores instead of N * N of each.
template <int N, class S, class Sink>
__attribute__((always_inline)) inline void transpose_block(const S* from, std::int64_t from_ld,
                                                           S* to, std::int64_t to_ld,
                                                           const Sink& sink) {
  static_assert(N == 2 || N == 4 || N == 8, "transpose_block: N is 2, 4 or 8");
  // Loads and stores as vector expressions through an unaligned, aliasing vector type:
  // as memcpy calls in a loop, gcc 12 vectorises the copies into 256-bit halves and then
  // reloads them whole, which store forwarding cannot serve (measured 40% of the time).
  typedef S V __attribute__((vector_size(N * sizeof(S))));
  typedef S U __attribute__((vector_size(N * sizeof(S)), aligned(alignof(S)), may_alias));
  V r[N], t[N];
  for (int i = 0; i < N; ++i) r[i] = *reinterpret_cast<const U*>(from + i * from_ld);
  if constexpr (N == 2) {
    t[0] = __builtin_shufflevector(r[0], r[1], 0, 2);
    t[1] = __builtin_shufflevector(r[0], r[1], 1, 3);
  } else if constexpr (N == 4) {
    for (int i = 0; i < 4; i += 2) {
      t[i] = __builtin_shufflevector(r[i], r[i + 1], 0, 4, 2, 6);
      t[i + 1] = __builtin_shufflevector(r[i], r[i + 1], 1, 5, 3, 7);
    }
    for (int j = 0; j < 2; ++j) {
      r[j] = __builtin_shufflevector(t[j], t[j + 2], 0, 1, 4, 5);
      r[j + 2] = __builtin_shufflevector(t[j], t[j + 2], 2, 3, 6, 7);
    }
    for (int i = 0; i < 4; ++i) t[i] = r[i];
  } else {
    for (int i = 0; i < 8; i += 2) {
      t[i] = __builtin_shufflevector(r[i], r[i + 1], 0, 8, 2, 10, 4, 12, 6, 14);
      t[i + 1] = __builtin_shufflevector(r[i], r[i + 1], 1, 9, 3, 11, 5, 13, 7, 15);
    }
    for (int i = 0; i < 8; i += 4)
      for (int j = 0; j < 2; ++j) {
        r[i + j] = __builtin_shufflevector(t[i + j], t[i + j + 2], 0, 1, 8, 9, 4, 5, 12, 13);
        r[i + j + 2] = __builtin_shufflevector(t[i + j], t[i + j + 2], 2, 3, 10, 11, 6, 7, 14, 15);
      }
    for (int j = 0; j < 4; ++j) {
      t[j] = __builtin_shufflevector(r[j], r[j + 4], 0, 1, 2, 3, 8, 9, 10, 11);
      t[j + 4] = __builtin_shufflevector(r[j], r[j + 4], 4, 5, 6, 7, 12, 13, 14, 15);
    }
  }
  for (int i = 0; i < N; ++i) sink.template store<N>(t[i], to + i * to_ld);
}

/// The 8 x 8 block at `from` transposed into `to` (as transpose_block) at SIMD width Bytes:
/// in N x N blocks of the widest N <= 8 lanes the width holds (2 for the scalar width: the
/// build's baseline has two-lane vectors wherever it has shuffles). Shuffles of vectors wider
/// than the target's registers are not split by gcc 12 but done element by element (on an
/// AVX2 Zen 3, 8-lane double shuffles made the LayoutLeft pack and store 3-5x slower).
template <int Bytes, class S, class Sink>
__attribute__((always_inline)) inline void transpose_8x8(const S* from, std::int64_t from_ld, S* to,
                                                         std::int64_t to_ld, const Sink& sink) {
  constexpr int lanes = Bytes / static_cast<int>(sizeof(S));
  constexpr int N = lanes >= 8 ? 8 : lanes >= 4 ? 4 : 2;
  for (int i = 0; i < 8; i += N)
    for (int j = 0; j < 8; j += N)
      transpose_block<N>(from + i * from_ld + j, from_ld, to + j * to_ld + i, to_ld, sink);
}
#endif

/// Column-major C from the results of `rows` (<= 8) consecutive rows g0.. for columns
/// t0 .. t0 + W (stage[i][t]: row g0 + i, column t0 + t). A full group of 8 rows is
/// transposed in registers 8 columns at a time, so that each column of C gets one
/// contiguous store of 8 rows (one cache line) rather than 8 strided ones.
template <int W, int Bytes, class S>
KOKKOS_FORCEINLINE_FUNCTION void store_rows_left(const DenseArg<S, LeftPackedB>& c, S alpha, S beta,
                                                 std::int64_t g0, int rows, std::int64_t t0,
                                                 const S (&stage)[8][W]) {
#ifdef MIMD_SIMD_SHUFFLE
  if constexpr (W >= 8) {
    if (rows == 8) {
      for (int cb = 0; cb < W; cb += 8) {
        if (beta == S(0))
          transpose_8x8<Bytes>(&stage[0][cb], W, c.at(g0, t0 + cb), c.ld,
                               ScaleLanes<S, false>{alpha, beta});
        else
          transpose_8x8<Bytes>(&stage[0][cb], W, c.at(g0, t0 + cb), c.ld,
                               ScaleLanes<S, true>{alpha, beta});
      }
      return;
    }
  }
#endif
  for (int t = 0; t < W; ++t) {
    S* KOKKOS_RESTRICT p = c.at(g0, t0 + t);
    if (beta == S(0)) {
      for (int i = 0; i < rows; ++i) p[i] = alpha * stage[i][t];
    } else {
      for (int i = 0; i < rows; ++i) p[i] = alpha * stage[i][t] + beta * p[i];
    }
  }
}

/// Columns of a panel of LeftStrategy::Pack for `rows` rows of B: as many as keep its copy
/// within `panel_bytes` (a multiple of 8, at least 8), the k columns in panels as even as
/// that allows; all k when they fit.
inline std::int64_t panel_width(std::int64_t panel_bytes, std::int64_t rows, std::int64_t k,
                                std::size_t scalar) {
  const std::int64_t fit = panel_bytes / (rows * static_cast<std::int64_t>(scalar));
  const std::int64_t most = fit / 8 * 8 > 8 ? fit / 8 * 8 : 8;
  const std::int64_t panels = (k + most - 1) / most;
  return panels == 1 ? k : ((k + panels - 1) / panels + 7) / 8 * 8;
}

/// The operands of columns [t0, t0 + w) of `op`, their B packed row-major at `packed`.
template <class S>
KOKKOS_INLINE_FUNCTION Operands<S, LeftPackedB> packed_panel(
    const Operands<S, Kokkos::LayoutLeft>& op, const S* packed, std::int64_t t0, std::int64_t w,
    int k_tile) {
  Operands<S, LeftPackedB> r;
  r.a = op.a;
  r.b = {packed, w};
  r.c = {op.c.at(0, t0), op.c.ld};
  r.k = w;
  r.alpha = op.alpha;
  r.beta = op.beta;
  r.k_tile = k_tile;
  r.simd = op.simd;
  return r;
}

/// Rows of B a pack walks 8 columns at a time (pack_rows_at) for a panel of k columns:
/// their copy an eighth of a panel (TuningProfile::spmm_left_panel_bytes), which stays in
/// cache. Measured on a Zen 5 VM (crack, fe_4elt2, k = 8, 32, 128): chunks of 64 to 4096
/// rows within noise of each other.
inline std::int64_t pack_chunk(std::int64_t panel_bytes, std::int64_t k, std::size_t scalar) {
  const std::int64_t rows = panel_bytes / 8 / (k * static_cast<std::int64_t>(scalar)) / 8 * 8;
  return rows > 8 ? rows : 8;
}

/// Rows i0..i1 of the column-major operand `colmajor` copied into the row-major panel
/// `rowmajor` (row i at rowmajor + i * k). Whole 8 x 8 blocks are transposed in registers
/// at SIMD width Bytes (transpose_8x8). The rows go in chunks of `chunk` (a multiple of 8),
/// each walked 8 columns at a time down all its rows: 8 read streams, each a column's run
/// of rows, rather than every column of B at once 8 rows at a time (k streams and k pages
/// every 8 rows, beyond the prefetchers and the L1 TLB: at k = 128, 3x a plain copy of B
/// on a Zen 5). With a leading dimension that is a multiple of 4 KiB the 8 columns map
/// to one L1 set, which holds 8 lines. The chunk's rows of the copy stay in L2 from one
/// group of columns to the next.
template <int Bytes, class S>
KOKKOS_FORCEINLINE_FUNCTION void pack_rows_at(const DenseArg<const S, Kokkos::LayoutLeft>& colmajor,
                                              S* rowmajor, std::int64_t i0, std::int64_t i1,
                                              std::int64_t k, std::int64_t chunk) {
  for (std::int64_t c0 = i0; c0 < i1; c0 += chunk) {
    const std::int64_t c1 = c0 + chunk < i1 ? c0 + chunk : i1;
    for (std::int64_t t0 = 0; t0 < k; t0 += 8) {
      const std::int64_t t1 = t0 + 8 < k ? t0 + 8 : k;
      for (std::int64_t b0 = c0; b0 < c1; b0 += 8) {
        const std::int64_t b1 = b0 + 8 < c1 ? b0 + 8 : c1;
#ifdef MIMD_SIMD_SHUFFLE
        if (b1 - b0 == 8 && t1 - t0 == 8) {
          transpose_8x8<Bytes>(colmajor.at(b0, t0), colmajor.ld, rowmajor + b0 * k + t0, k,
                               CopyLanes<S>{});
          continue;
        }
#endif
        for (std::int64_t i = b0; i < b1; ++i)
          for (std::int64_t t = t0; t < t1; ++t) rowmajor[i * k + t] = colmajor(i, t);
      }
    }
  }
}

/// Rows r0..r1 (nonzero z at val[z - base]) times columns t0 .. t0 + W of B into C;
/// column-major C (packed B) in groups of 8 rows, each computed into a stage and stored
/// through store_rows_left.
template <int W, int Bytes, class S, class Layout>
KOKKOS_FORCEINLINE_FUNCTION void rows_tile(const Operands<S, Layout>& op, std::int64_t r0,
                                           std::int64_t r1, const S* val, const std::int32_t* col,
                                           std::int64_t base, std::int64_t t0) {
  // The operands in locals: C's stores may alias `op`, whose fields would otherwise be
  // reloaded after each of them.
  const std::int64_t* const row_map = op.a.row_map;
  const auto b = op.b;
  if constexpr (std::is_same<Layout, LeftPackedB>::value) {
    const DenseArg<S, LeftPackedB> c = op.c;
    const S alpha = op.alpha, beta = op.beta;
    for (std::int64_t g0 = r0; g0 < r1; g0 += 8) {
      const int rows = static_cast<int>(r1 - g0 < 8 ? r1 - g0 : 8);
      S stage[8][W];
      for (int i = 0; i < rows; ++i) {
        const std::int64_t z = row_map[g0 + i] - base;
        accumulate<W, Bytes>(val + z, col + z, row_map[g0 + i + 1] - row_map[g0 + i], b, t0,
                             stage[i]);
      }
      store_rows_left<W, Bytes>(c, alpha, beta, g0, rows, t0, stage);
    }
  } else {
    StoreC<S, Layout> store{op.c, 0, op.alpha, op.beta};
    for (std::int64_t r = r0; r < r1; ++r) {
      const std::int64_t z = row_map[r] - base;
      S acc[W];
      accumulate<W, Bytes>(val + z, col + z, row_map[r + 1] - row_map[r], b, t0, acc);
      store.row = r;
      store.template operator()<W>(t0, acc);
    }
  }
}

#ifdef MIMD_SIMD_X86_TARGETS
// rows_tile in a function of its own for each tile width and SIMD width. Inlined into
// whole_rows_at beside every other width, the row loop lost its registers to the others:
// at W = 1 gcc 12 kept the loop bound and B's address in vector registers, moved back
// for every nonzero, and k = 1 ran 1.4x slower than the same loop compiled alone
// (rajat19, jagmesh7 on a Zen 4, one thread). Apart, over nine matrices on 2 threads
// there: k = 1 1.29x, k = 8 1.09x, k = 32 1.07x; LayoutLeft 1.17-1.20x at k = 8-128.
template <int W, int Bytes, class S, class Layout>
__attribute__((noinline)) void rows_tile_own(const Operands<S, Layout>& op, std::int64_t r0,
                                             std::int64_t r1, const S* val, const std::int32_t* col,
                                             std::int64_t base, std::int64_t t0) {
  rows_tile<W, Bytes>(op, r0, r1, val, col, base, t0);
}
template <int W, class S, class Layout>
__attribute__((target("avx2,fma"), noinline)) void rows_tile_256(
    const Operands<S, Layout>& op, std::int64_t r0, std::int64_t r1, const S* val,
    const std::int32_t* col, std::int64_t base, std::int64_t t0) {
  rows_tile<W, 32>(op, r0, r1, val, col, base, t0);
}
template <int W, class S, class Layout>
__attribute__((target("avx512f,avx2,fma"), noinline)) void rows_tile_512(
    const Operands<S, Layout>& op, std::int64_t r0, std::int64_t r1, const S* val,
    const std::int32_t* col, std::int64_t base, std::int64_t t0) {
  rows_tile<W, 64>(op, r0, r1, val, col, base, t0);
}
#endif

/// rows_tile, in a function of its own for its width in x86 builds (rows_tile_own,
/// rows_tile_256, rows_tile_512: MIMD_SIMD_X86_TARGETS), inline elsewhere.
template <int W, int Bytes, class S, class Layout>
KOKKOS_FORCEINLINE_FUNCTION void rows_tile_apart(const Operands<S, Layout>& op, std::int64_t r0,
                                                 std::int64_t r1, const S* val,
                                                 const std::int32_t* col, std::int64_t base,
                                                 std::int64_t t0) {
#if defined(MIMD_SIMD_X86_TARGETS)
  if constexpr (Bytes == 64)
    rows_tile_512<W>(op, r0, r1, val, col, base, t0);
  else if constexpr (Bytes == 32)
    rows_tile_256<W>(op, r0, r1, val, col, base, t0);
  else
    rows_tile_own<W, Bytes>(op, r0, r1, val, col, base, t0);
#else
  rows_tile<W, Bytes>(op, r0, r1, val, col, base, t0);
#endif
}

/// Whole rows r0..r1 (nonzero z at val[z - base]) into C. When k fits one tile
/// width, the width is chosen once for all the rows, so runs of very short rows (1-2
/// nonzeros, where the per-row dispatch would dominate) stay in one tight loop. For
/// wider k every row does all its tiles in turn, so the rows of B it gathers are still
/// in L1/L2 for the next tile (tiles outside the row loop re-fetch them from L3: 2-5x
/// slower at k = 128); column-major C with packed B the same per group of 8 rows,
/// which keeps its rows of B in L1 from one tile to the next. The tiles of one row or
/// group stay inline: a call of rows_tile_apart for each group and tile ran 2-7% slower
/// at k = 128 on matrices of about 1000 rows (Zen 4).
template <int Bytes, class S, class Layout>
KOKKOS_FORCEINLINE_FUNCTION void whole_rows_at(const Operands<S, Layout>& op, std::int64_t r0,
                                               std::int64_t r1, const S* val,
                                               const std::int32_t* col, std::int64_t base) {
  if (op.k > op.k_tile) {
    if constexpr (std::is_same<Layout, LeftPackedB>::value) {
      for (std::int64_t g0 = r0; g0 < r1; g0 += 8) {
        const std::int64_t g1 = r1 - g0 < 8 ? r1 : g0 + 8;
        for (std::int64_t t0 = 0; t0 < op.k;)
          t0 += with_tile_width(
              op.k - t0 < op.k_tile ? op.k - t0 : op.k_tile, [&](auto w) MIMD_INLINE_LAMBDA {
                rows_tile<decltype(w)::value, Bytes>(op, g0, g1, val, col, base, t0);
              });
      }
    } else {
      for (std::int64_t r = r0; r < r1; ++r) {
        const std::int64_t b = op.a.row_map[r] - base;
        row_segment_at<Bytes>(val + b, col + b, op.a.row_map[r + 1] - op.a.row_map[r], op.b, op.k,
                              op.k_tile, StoreC<S, Layout>{op.c, r, op.alpha, op.beta});
      }
    }
  } else {
    for (std::int64_t t0 = 0; t0 < op.k;)
      t0 += with_tile_width(
          op.k - t0 < op.k_tile ? op.k - t0 : op.k_tile, [&](auto w) MIMD_INLINE_LAMBDA {
            rows_tile_apart<decltype(w)::value, Bytes>(op, r0, r1, val, col, base, t0);
          });
  }
}

#ifdef MIMD_SIMD_X86_TARGETS
// The 256- and 512-bit variants, each compiled for its ISA whatever -march says (the
// always-inline micro-kernel takes the ISA of the function it is inlined into).
template <class S, class Layout, class Sink>
__attribute__((target("avx2,fma"), noinline)) void row_segment_256(
    const S* val, const std::int32_t* col, std::int64_t len, const DenseArg<const S, Layout>& b,
    std::int64_t k, int k_tile, const Sink& sink) {
  row_segment_at<32>(val, col, len, b, k, k_tile, sink);
}
template <class S, class Layout, class Sink>
__attribute__((target("avx512f,avx2,fma"), noinline)) void row_segment_512(
    const S* val, const std::int32_t* col, std::int64_t len, const DenseArg<const S, Layout>& b,
    std::int64_t k, int k_tile, const Sink& sink) {
  row_segment_at<64>(val, col, len, b, k, k_tile, sink);
}
template <class S>
__attribute__((target("avx2,fma"), noinline)) void pack_rows_256(
    const DenseArg<const S, Kokkos::LayoutLeft>& colmajor, S* rowmajor, std::int64_t i0,
    std::int64_t i1, std::int64_t k, std::int64_t chunk) {
  pack_rows_at<32>(colmajor, rowmajor, i0, i1, k, chunk);
}
template <class S>
__attribute__((target("avx512f,avx2,fma"), noinline)) void pack_rows_512(
    const DenseArg<const S, Kokkos::LayoutLeft>& colmajor, S* rowmajor, std::int64_t i0,
    std::int64_t i1, std::int64_t k, std::int64_t chunk) {
  pack_rows_at<64>(colmajor, rowmajor, i0, i1, k, chunk);
}
template <class S, class Layout>
__attribute__((target("avx2,fma"), noinline)) void whole_rows_256(const Operands<S, Layout>& op,
                                                                  std::int64_t r0, std::int64_t r1,
                                                                  const S* val,
                                                                  const std::int32_t* col,
                                                                  std::int64_t base) {
  whole_rows_at<32>(op, r0, r1, val, col, base);
}
template <class S, class Layout>
__attribute__((target("avx512f,avx2,fma"), noinline)) void whole_rows_512(
    const Operands<S, Layout>& op, std::int64_t r0, std::int64_t r1, const S* val,
    const std::int32_t* col, std::int64_t base) {
  whole_rows_at<64>(op, r0, r1, val, col, base);
}
#endif

/// row_segment_at at the SIMD width `simd` (bytes; Operands::simd).
template <class S, class Layout, class Sink>
KOKKOS_FORCEINLINE_FUNCTION void row_segment(const S* val, const std::int32_t* col,
                                             std::int64_t len, const DenseArg<const S, Layout>& b,
                                             std::int64_t k, int k_tile, int simd,
                                             const Sink& sink) {
#ifdef MIMD_SIMD_X86_TARGETS
  if (simd == 64) return row_segment_512(val, col, len, b, k, k_tile, sink);
  if (simd == 32) return row_segment_256(val, col, len, b, k, k_tile, sink);
#endif
  if (simd >= 16) return row_segment_at<16>(val, col, len, b, k, k_tile, sink);
  row_segment_at<8>(val, col, len, b, k, k_tile, sink);
}

/// pack_rows_at at the SIMD width `simd` (bytes; Operands::simd).
template <class S>
KOKKOS_FORCEINLINE_FUNCTION void pack_rows(const DenseArg<const S, Kokkos::LayoutLeft>& colmajor,
                                           S* rowmajor, std::int64_t i0, std::int64_t i1,
                                           std::int64_t k, int simd, std::int64_t chunk) {
#ifdef MIMD_SIMD_X86_TARGETS
  if (simd == 64) return pack_rows_512(colmajor, rowmajor, i0, i1, k, chunk);
  if (simd == 32) return pack_rows_256(colmajor, rowmajor, i0, i1, k, chunk);
#endif
  if (simd >= 16) return pack_rows_at<16>(colmajor, rowmajor, i0, i1, k, chunk);
  pack_rows_at<8>(colmajor, rowmajor, i0, i1, k, chunk);
}

/// whole_rows_at at the SIMD width op.simd.
template <class S, class Layout>
KOKKOS_FORCEINLINE_FUNCTION void whole_rows(const Operands<S, Layout>& op, std::int64_t r0,
                                            std::int64_t r1, const S* val, const std::int32_t* col,
                                            std::int64_t base) {
#ifdef MIMD_SIMD_X86_TARGETS
  if (op.simd == 64) return whole_rows_512(op, r0, r1, val, col, base);
  if (op.simd == 32) return whole_rows_256(op, r0, r1, val, col, base);
#endif
  if (op.simd >= 16) return whole_rows_at<16>(op, r0, r1, val, col, base);
  whole_rows_at<8>(op, r0, r1, val, col, base);
}

}  // namespace mimd::spmm_detail
