// Synthetic workloads: Graph500 Kronecker, uniform random graphs and matrices, FEM-like
// stencils, power-law row lengths.
//
// Determinism: every random quantity comes from a counter-based stream keyed by
// (seed, block) — edge generators use blocks of kEdgeBlock edges, matrix generators one
// stream per row — so the output is the same for any thread count. Edge lists become
// CSR patterns through the library's CSR engine (src/sparse/csr_build.hpp), which sorts
// every row and merges duplicates, so the result does not depend on the schedule.
#include "mimd/generators.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>
#include <vector>

#include "io/io_detail.hpp"
#include "sparse/csr_build.hpp"

namespace mimd {

namespace {

constexpr std::int64_t kEdgeBlock = std::int64_t{1} << 16;
constexpr std::int64_t kMaxOrdinal = std::numeric_limits<std::int32_t>::max();

// splitmix64's finaliser (Steele, Lea, Flood 2014): a bijective 64-bit mixer.
inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// A splitmix64 stream whose starting point is derived from (seed, stream, substream).
class Rng {
 public:
  Rng(std::uint64_t seed, std::uint64_t stream, std::uint64_t substream = 0)
      : state_(mix64(mix64(seed ^ 0x6a09e667f3bcc909ULL) + stream) ^ mix64(substream + 1)) {}
  static constexpr std::uint64_t kGamma = 0x9e3779b97f4a7c15ULL;
  std::uint64_t next() {
    state_ += kGamma;
    return mix64(state_);
  }
  /// out[0..n) = the next n draws; written without a loop-carried dependency so that the
  /// compiler vectorises it.
  void fill(std::uint64_t* out, int n) {
    const std::uint64_t base = state_;
    for (int k = 0; k < n; ++k) out[k] = mix64(base + (k + 1) * kGamma);
    state_ += n * kGamma;
  }
  /// Uniform in [0, 1) with 53 random bits.
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Uniform in [0, n) (Lemire's multiply-shift; the bias is below 2^-32 for n < 2^32).
  std::int64_t below(std::int64_t n) {
    __extension__ using u128 = unsigned __int128;
    return static_cast<std::int64_t>((static_cast<u128>(next()) * static_cast<std::uint64_t>(n)) >>
                                     64);
  }

 private:
  std::uint64_t state_;
};

// Value in [-1, 1) attached to entry (row, col): independent of how the entry was found.
inline double entry_value(std::uint64_t seed, std::int64_t row, std::int64_t col) {
  const std::uint64_t h =
      mix64(mix64(seed + 0x3c6ef372fe94f82bULL) ^
            mix64((static_cast<std::uint64_t>(row) << 32) ^ static_cast<std::uint64_t>(col)));
  return static_cast<double>(h >> 11) * 0x1.0p-52 - 1.0;
}

struct Edge {
  std::int32_t u, v;
};

using csr_detail::Scratch;

void check_scale(const char* who, int scale, int edge_factor) {
  if (scale < 1 || scale > 30)
    throw InvalidArgument(std::string(who) + ": scale " + std::to_string(scale) +
                          " outside [1, 30] (2^scale vertices must fit a 32-bit ordinal)");
  if (edge_factor < 1)
    throw InvalidArgument(std::string(who) + ": edge factor " + std::to_string(edge_factor) +
                          " must be at least 1");
}

void check_extent(const char* who, const char* what, std::int64_t n, std::int64_t lo) {
  if (n < lo || n > kMaxOrdinal)
    throw InvalidArgument(std::string(who) + ": " + what + " = " + std::to_string(n) +
                          " outside [" + std::to_string(lo) + ", " + std::to_string(kMaxOrdinal) +
                          "]");
}

// An edge list as a Source for the CSR engine (sparse/csr_build.hpp), in blocks of
// kEdgeBlock edges: edge (u, v) gives entry (u, v), and (v, u) too when `symmetric`;
// self-loops are skipped when `drop_self_loops`.
struct EdgeSource {
  const Edge* edges;
  std::int64_t m;
  bool symmetric, drop_self_loops;
  std::size_t segments() const {
    return static_cast<std::size_t>((m + kEdgeBlock - 1) / kEdgeBlock);
  }
  std::size_t weight(std::size_t seg) const {
    const auto b = static_cast<std::int64_t>(seg) * kEdgeBlock;
    return static_cast<std::size_t>((std::min(m, b + kEdgeBlock) - b) * (symmetric ? 2 : 1));
  }
  template <class F>
  void each(std::size_t seg, F&& f) const {
    const auto b = static_cast<std::int64_t>(seg) * kEdgeBlock;
    const std::int64_t e = std::min(m, b + kEdgeBlock);
    for (std::int64_t i = b; i < e; ++i) {
      const Edge x = edges[i];
      if (drop_self_loops && x.u == x.v) continue;
      f(x.u, x.v, 0.0f);
      if (symmetric) f(x.v, x.u, 0.0f);
    }
  }
};

// The CSR pattern of an edge list (see EdgeSource), columns sorted, duplicates merged,
// built by the library's one CSR engine.
HostPattern pattern_from_edges(std::int32_t nrows, std::int32_t ncols, const Scratch<Edge>& edges,
                               std::int64_t m, bool symmetric, bool drop_self_loops) {
  const EdgeSource src{edges.get(), m, symmetric, drop_self_loops};
  return csr_detail::build_csr<float, false>(nrows, ncols, src, DuplicatePolicy::Sum,
                                             /*presorted=*/false)
      .pattern();
}

// Allocates an uninitialised edge list of m edges filled block by block by `fill`,
// called as fill(rng, first, count, edges + first) for each block of kEdgeBlock edges.
template <class Fill>
Scratch<Edge> generate_edges(std::int64_t m, std::uint64_t seed, Fill fill) {
  Scratch<Edge> edges(static_cast<std::size_t>(m));
  Edge* const e = edges.get();
  const std::int64_t nblocks = (m + kEdgeBlock - 1) / kEdgeBlock;
#pragma omp parallel for schedule(static)
  for (std::int64_t b = 0; b < nblocks; ++b) {
    Rng rng(seed, static_cast<std::uint64_t>(b));
    const std::int64_t first = b * kEdgeBlock;
    fill(rng, std::min(kEdgeBlock, m - first), e + first);
  }
  return edges;
}

// A keyed pseudo-random permutation of [0, 2^bits), computed without memory: adding a
// constant, multiplying by an odd constant and xor-shifting right are each bijections
// modulo 2^bits. Kronecker vertex labels go through it so that the high-degree vertices
// (small ids before permutation) are spread over the id range, as Graph500 requires.
class VertexScrambler {
 public:
  VertexScrambler(int bits, std::uint64_t seed)
      : mask_((std::uint64_t{1} << bits) - 1), shift_(std::max(1, (bits + 1) / 2)) {
    Rng rng(seed, 0, 0x7065726dULL);
    for (auto& k : add_) k = rng.next() & mask_;
    for (auto& k : mul_) k = (rng.next() & mask_) | 1;
  }
  std::int32_t operator()(std::uint64_t x) const {
    for (int round = 0; round < 3; ++round) {
      x = ((x + add_[round]) * mul_[round]) & mask_;
      x ^= x >> shift_;
    }
    return static_cast<std::int32_t>(x);
  }

 private:
  std::uint64_t mask_;
  int shift_;
  std::uint64_t add_[3], mul_[3];
};

// Sorted sample of `k` distinct columns out of [0, n), written to out[0..k).
void sample_columns(Rng& rng, std::int64_t k, std::int64_t n, std::int32_t* out,
                    std::vector<std::int32_t>& scratch) {
  if (k == 0) return;
  if (k * 8 >= n) {
    // Selection sampling (Knuth's Algorithm S): O(n), output already sorted.
    std::int64_t chosen = 0;
    for (std::int64_t c = 0; c < n && chosen < k; ++c)
      if (static_cast<double>(n - c) * rng.unit() < static_cast<double>(k - chosen))
        out[chosen++] = static_cast<std::int32_t>(c);
    return;
  }
  scratch.clear();
  while (static_cast<std::int64_t>(scratch.size()) < k) {
    for (auto need = k - static_cast<std::int64_t>(scratch.size()); need > 0; --need)
      scratch.push_back(static_cast<std::int32_t>(rng.below(n)));
    std::sort(scratch.begin(), scratch.end());
    scratch.erase(std::unique(scratch.begin(), scratch.end()), scratch.end());
  }
  std::copy(scratch.begin(), scratch.end(), out);
}

// Attaches entry_value(seed, row, col) to every entry of `p`.
HostCsr<double> with_random_values(const HostPattern& p, std::uint64_t seed) {
  HostCsr<double> a = with_unit_values<double>(p);
  double* const v = a.values.data();
  const std::int64_t* const rm = p.row_map.data();
  const std::int32_t* const en = p.entries.data();
#pragma omp parallel for schedule(dynamic, 1024)
  for (std::int32_t r = 0; r < p.nrows; ++r)
    for (auto j = rm[r]; j < rm[r + 1]; ++j) v[j] = entry_value(seed, r, en[j]);
  return a;
}

// Rows of random columns, as power_law and graded_matrix make them: row r holds length(r)
// entries rounded stochastically (down, or up with the fraction's probability, so that the
// mean is kept), at distinct uniform random columns of [first(r), first(r) + width), sorted;
// values as with_random_values gives them. Preconditions: 0 <= length(r) <= width and
// 0 <= first(r) <= cols - width.
template <class Length, class First>
HostCsr<double> random_rows(const std::string& label, std::int64_t rows, std::int64_t cols,
                            std::int64_t width, std::uint64_t seed, Length length, First first) {
  HostCsr<double> a;
  a.nrows = static_cast<std::int32_t>(rows);
  a.ncols = static_cast<std::int32_t>(cols);
  a.row_map = HostPattern::row_map_type(Kokkos::ViewAllocateWithoutInitializing(label + ".row_map"),
                                        rows + 1);
  std::int64_t* const rm = a.row_map.data();
  rm[0] = 0;
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < rows; ++r) {
    Rng rng(seed, static_cast<std::uint64_t>(r), 1);
    const double x = length(r);
    const double fl = std::floor(x);
    rm[r + 1] = static_cast<std::int64_t>(fl) + (rng.unit() < x - fl);
  }
  for (std::int64_t r = 0; r < rows; ++r) rm[r + 1] += rm[r];
  a.entries = HostPattern::entries_type(Kokkos::ViewAllocateWithoutInitializing(label + ".entries"),
                                        rm[rows]);
  std::int32_t* const en = a.entries.data();
#pragma omp parallel
  {
    std::vector<std::int32_t> scratch;
#pragma omp for schedule(dynamic, 256)
    for (std::int64_t r = 0; r < rows; ++r) {
      Rng rng(seed, static_cast<std::uint64_t>(r), 2);
      sample_columns(rng, rm[r + 1] - rm[r], width, en + rm[r], scratch);
      const auto shift = static_cast<std::int32_t>(first(r));
      for (auto j = rm[r]; j < rm[r + 1]; ++j) en[j] += shift;
    }
  }
  return with_random_values(a.pattern(), seed);
}

// Laplacian-like stencil on a grid of `dims` dimensions of n points each: every point
// is coupled to the neighbours whose offsets lie in {-1, 0, 1}^dims and are accepted by
// `keep`; off-diagonal entries are -1, the diagonal holds the number of stencil
// neighbours so that interior rows sum to 0 (boundary rows are diagonally dominant).
template <class Keep>
HostCsr<double> stencil(const char* who, int dims, int n, int points, Keep keep) {
  if (n < 1) throw InvalidArgument(std::string(who) + ": n = " + std::to_string(n) + " < 1");
  std::int64_t rows = 1;
  for (int d = 0; d < dims; ++d) rows *= n;
  check_extent(who, "number of grid points", rows, 1);
  const auto nrows = static_cast<std::int32_t>(rows);
  const std::int64_t nn = n;
  auto coords = [&](std::int64_t r, std::int64_t* x) {
    for (int d = 0; d < 3; ++d) {
      x[d] = d < dims ? r % nn : 0;
      if (d < dims) r /= nn;
    }
  };
  // Offsets in lexicographic (z, y, x) order so that columns come out sorted.
  std::vector<std::array<int, 3>> offsets;
  for (int dz = dims == 3 ? -1 : 0; dz <= (dims == 3 ? 1 : 0); ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx)
        if (keep(std::abs(dx) + std::abs(dy) + std::abs(dz))) offsets.push_back({dx, dy, dz});
  MIMD_ASSERT(static_cast<int>(offsets.size()) == points, "stencil offsets do not match points");
  const double diag = points - 1;

  HostCsr<double> a;
  a.nrows = a.ncols = nrows;
  a.row_map = HostPattern::row_map_type(Kokkos::ViewAllocateWithoutInitializing("stencil.row_map"),
                                        static_cast<std::size_t>(nrows) + 1);
  std::int64_t* const rm = a.row_map.data();
  auto inside = [&](const std::int64_t* x, const std::array<int, 3>& off) {
    for (int d = 0; d < dims; ++d) {
      const std::int64_t y = x[d] + off[d];
      if (y < 0 || y >= nn) return false;
    }
    return true;
  };
  rm[0] = 0;
#pragma omp parallel for schedule(static)
  for (std::int32_t r = 0; r < nrows; ++r) {
    std::int64_t x[3];
    coords(r, x);
    std::int64_t count = 0;
    for (const auto& off : offsets) count += inside(x, off);
    rm[r + 1] = count;
  }
  for (std::int32_t r = 0; r < nrows; ++r) rm[r + 1] += rm[r];
  a.entries = HostPattern::entries_type(Kokkos::ViewAllocateWithoutInitializing("stencil.entries"),
                                        static_cast<std::size_t>(rm[nrows]));
  a.values = HostCsr<double>::values_type(Kokkos::ViewAllocateWithoutInitializing("stencil.values"),
                                          static_cast<std::size_t>(rm[nrows]));
  std::int32_t* const en = a.entries.data();
  double* const va = a.values.data();
  const std::int64_t stride[3] = {1, nn, nn * nn};
#pragma omp parallel for schedule(static)
  for (std::int32_t r = 0; r < nrows; ++r) {
    std::int64_t x[3];
    coords(r, x);
    std::int64_t j = rm[r];
    for (const auto& off : offsets) {
      if (!inside(x, off)) continue;
      std::int64_t col = r;
      for (int d = 0; d < dims; ++d) col += off[d] * stride[d];
      en[j] = static_cast<std::int32_t>(col);
      va[j] = col == r ? diag : -1.0;
      ++j;
    }
  }
  return a;
}

}  // namespace

HostPattern kronecker(int scale, int edge_factor, std::uint64_t seed) {
  check_scale("kronecker", scale, edge_factor);
  const std::int32_t n = std::int32_t{1} << scale;
  const std::int64_t m = static_cast<std::int64_t>(edge_factor) << scale;
  // Quadrant thresholds on 16-bit draws (4 levels per 64-bit draw; the rounding of
  // the probabilities is below 2^-16): A = 0.57, A + B = 0.76, A + B + C = 0.95.
  constexpr std::uint32_t kA = 37356, kAB = 49807, kABC = 62259;
  const VertexScrambler scramble(scale, seed);
  auto edges = generate_edges(m, seed, [=](Rng& rng, std::int64_t count, Edge* out) {
    // kLanes edges advance level by level together so that the compiler vectorises
    // across edges (the levels of one edge form a dependency chain).
    constexpr int kLanes = 16;
    for (std::int64_t i = 0; i < count; i += kLanes) {
      std::uint64_t bits[kLanes] = {};
      std::uint32_t u[kLanes] = {}, v[kLanes] = {};
      for (int level = 0; level < scale; ++level) {
        if ((level & 3) == 0) rng.fill(bits, kLanes);
        for (int k = 0; k < kLanes; ++k) {
          const auto r = static_cast<std::uint32_t>(bits[k] & 0xffff);
          bits[k] >>= 16;
          // Quadrants A (0,0), B (0,1), C (1,0), D (1,1), without branches.
          const std::uint32_t ubit = r >= kAB;
          const std::uint32_t vbit = (r >= kA) ^ (r >= kAB) ^ (r >= kABC);
          u[k] = (u[k] << 1) | ubit;
          v[k] = (v[k] << 1) | vbit;
        }
      }
      const int lanes = static_cast<int>(std::min<std::int64_t>(kLanes, count - i));
      for (int k = 0; k < lanes; ++k) out[i + k] = Edge{scramble(u[k]), scramble(v[k])};
    }
  });
  return pattern_from_edges(n, n, edges, m, true, true);
}

HostPattern uniform_random(int scale, int edge_factor, std::uint64_t seed) {
  check_scale("uniform_random", scale, edge_factor);
  const std::int32_t n = std::int32_t{1} << scale;
  const std::int64_t m = static_cast<std::int64_t>(edge_factor) << scale;
  auto edges = generate_edges(m, seed, [=](Rng& rng, std::int64_t count, Edge* out) {
    for (std::int64_t i = 0; i < count; ++i) {
      const std::uint64_t r = rng.next();
      out[i] = Edge{static_cast<std::int32_t>((r & 0xffffffffULL) >> (32 - scale)),
                    static_cast<std::int32_t>((r >> 32) >> (32 - scale))};
    }
  });
  return pattern_from_edges(n, n, edges, m, true, true);
}

HostCsr<double> stencil_2d(int n, int points) {
  if (points == 5) return stencil("stencil_2d", 2, n, 5, [](int dist) { return dist <= 1; });
  if (points == 9) return stencil("stencil_2d", 2, n, 9, [](int) { return true; });
  throw InvalidArgument("stencil_2d: points = " + std::to_string(points) + ", expected 5 or 9");
}

HostCsr<double> stencil_3d(int n, int points) {
  if (points == 7) return stencil("stencil_3d", 3, n, 7, [](int dist) { return dist <= 1; });
  if (points == 27) return stencil("stencil_3d", 3, n, 27, [](int) { return true; });
  throw InvalidArgument("stencil_3d: points = " + std::to_string(points) + ", expected 7 or 27");
}

HostCsr<double> power_law(std::int64_t rows, std::int64_t cols, double mean, double exponent,
                          int long_rows, std::int64_t long_len, std::uint64_t seed) {
  check_extent("power_law", "rows", rows, 0);
  check_extent("power_law", "cols", cols, 1);
  if (!(mean > 0) || mean > static_cast<double>(cols))
    throw InvalidArgument("power_law: mean row length " + std::to_string(mean) +
                          " outside (0, cols = " + std::to_string(cols) + "]");
  if (!(exponent > 1) || !std::isfinite(exponent))
    throw InvalidArgument("power_law: exponent " + std::to_string(exponent) +
                          " must be finite and greater than 1");
  if (long_rows < 0 || long_rows > rows)
    throw InvalidArgument("power_law: long_rows = " + std::to_string(long_rows) +
                          " outside [0, rows = " + std::to_string(rows) + "]");
  if (long_len < 0 || long_len > cols)
    throw InvalidArgument("power_law: long_len = " + std::to_string(long_len) +
                          " outside [0, cols = " + std::to_string(cols) + "]");
  if (long_len == 0) long_len = std::max<std::int64_t>(1, cols / 2);
  const auto nrows = static_cast<std::int32_t>(rows);

  // Long rows are spread evenly: row (2k + 1) * rows / (2 long_rows).
  std::vector<char> is_long(static_cast<std::size_t>(nrows), 0);
  for (int k = 0; k < long_rows; ++k) is_long[(2 * k + 1) * rows / (2 * long_rows)] = 1;

  // Pass 1: Pareto weights w = u^(-1/(exponent-1)), capped at cols; their sum in fixed
  // blocks so that the scale factor does not depend on the thread count.
  std::vector<double> weight(static_cast<std::size_t>(nrows), 0.0);
  const std::int64_t nblocks = (rows + kEdgeBlock - 1) / kEdgeBlock;
  std::vector<double> block_sum(static_cast<std::size_t>(nblocks), 0.0);
  const double inv_alpha = -1.0 / (exponent - 1.0);
#pragma omp parallel for schedule(static)
  for (std::int64_t b = 0; b < nblocks; ++b) {
    double s = 0;
    for (std::int64_t r = b * kEdgeBlock; r < std::min(rows, (b + 1) * kEdgeBlock); ++r) {
      if (is_long[r]) continue;
      Rng rng(seed, static_cast<std::uint64_t>(r));
      const double w = std::min(std::pow(1.0 - rng.unit(), inv_alpha), static_cast<double>(cols));
      weight[r] = w;
      s += w;
    }
    block_sum[b] = s;
  }
  double total = 0;
  for (double s : block_sum) total += s;
  const double factor = total > 0 ? mean * static_cast<double>(rows - long_rows) / total : 0.0;

  // Pass 2: lengths by stochastic rounding (keeps the mean), then columns and values.
  return random_rows(
      "power_law", rows, cols, cols, seed,
      [&](std::int64_t r) {
        return is_long[r] ? static_cast<double>(long_len)
                          : std::min(weight[r] * factor, static_cast<double>(cols));
      },
      [](std::int64_t) { return 0; });
}

HostCsr<double> uniform_matrix(std::int64_t rows, std::int64_t cols, double per_row,
                               std::uint64_t seed) {
  check_extent("uniform_matrix", "rows", rows, 0);
  check_extent("uniform_matrix", "cols", cols, 1);
  if (!(per_row >= 0) || per_row > static_cast<double>(cols))
    throw InvalidArgument("uniform_matrix: per_row = " + std::to_string(per_row) +
                          " outside [0, cols = " + std::to_string(cols) + "]");
  const auto m = static_cast<std::int64_t>(std::llround(per_row * static_cast<double>(rows)));
  auto edges = generate_edges(m, seed, [=](Rng& rng, std::int64_t count, Edge* out) {
    for (std::int64_t i = 0; i < count; ++i)
      out[i] = Edge{static_cast<std::int32_t>(rng.below(rows)),
                    static_cast<std::int32_t>(rng.below(cols))};
  });
  return with_random_values(
      pattern_from_edges(static_cast<std::int32_t>(rows), static_cast<std::int32_t>(cols), edges, m,
                         false, false),
      seed);
}

HostCsr<double> graded_matrix(std::int64_t rows, std::int64_t cols, double lo, double hi,
                              std::uint64_t seed) {
  check_extent("graded_matrix", "rows", rows, 0);
  check_extent("graded_matrix", "cols", cols, 1);
  if (!(lo >= 0) || !(hi >= lo) || hi > static_cast<double>(cols))
    throw InvalidArgument("graded_matrix: lo = " + std::to_string(lo) +
                          ", hi = " + std::to_string(hi) +
                          " outside 0 <= lo <= hi <= cols = " + std::to_string(cols));
  const std::int64_t window =
      std::min<std::int64_t>(cols, std::max<std::int64_t>(1, static_cast<std::int64_t>(8 * hi)));
  return random_rows(
      "graded", rows, cols, window, seed,
      [=](std::int64_t r) {
        return rows > 1 ? lo + (hi - lo) * static_cast<double>(r) / static_cast<double>(rows - 1)
                        : lo;
      },
      [=](std::int64_t r) {
        return std::clamp<std::int64_t>(r * cols / rows - window / 2, 0, cols - window);
      });
}

// ---- specs ---------------------------------------------------------------------------

namespace {

const char* const kSpecForms =
    "kron:SCALE[:EF], urand:SCALE[:EF], stencil2d:N[:POINTS], stencil3d:N[:POINTS], "
    "powerlaw:ROWS[:MEAN[:EXP[:LONGROWS]]], uniform:ROWS[:PER_ROW], graded:ROWS[:LO[:HI]]";

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const auto pos = s.find(sep, start);
    parts.push_back(s.substr(start, pos - start));
    if (pos == std::string::npos) return parts;
    start = pos + 1;
  }
}

[[noreturn]] void bad_spec(const std::string& spec, const std::string& why) {
  throw InvalidArgument("generator spec '" + spec + "': " + why + " (forms: " + kSpecForms + ")");
}

std::int64_t parse_int(const std::string& spec, const std::string& field, const char* name,
                       std::int64_t lo, std::int64_t hi) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(field.c_str(), &end, 10);
  if (field.empty() || *end != '\0' || errno == ERANGE ||
      std::isspace(static_cast<unsigned char>(field[0])))
    bad_spec(spec, std::string(name) + " '" + field + "' is not an integer");
  if (v < lo || v > hi)
    bad_spec(spec, std::string(name) + " = " + field + " outside [" + std::to_string(lo) + ", " +
                       std::to_string(hi) + "]");
  return v;
}

double parse_real(const std::string& spec, const std::string& field, const char* name) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(field.c_str(), &end);
  if (field.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(v) ||
      std::isspace(static_cast<unsigned char>(field[0])))
    bad_spec(spec, std::string(name) + " '" + field + "' is not a finite number");
  return v;
}

// Refuses a spec, before anything is allocated, whose matrix of `rows` rows and at most
// `entries` stored entries would not fit the memory budget of a load (io.hpp:
// $MIMD_MEMORY_BUDGET, else the available memory): 24 bytes an entry (its column and value,
// and the edge list or scratch the generator builds it from) and 16 a row.
void check_size(const std::string& spec, double rows, double entries) {
  const double need = 24 * entries + 16 * rows;
  const std::uint64_t budget = io_detail::memory_budget();
  if (need <= static_cast<double>(budget)) return;
  const auto bytes =
      need < 1.8e19 ? static_cast<std::uint64_t>(need) : std::numeric_limits<std::uint64_t>::max();
  char count[32];
  std::snprintf(count, sizeof count, "%.3g", entries);
  throw InvalidArgument("generator spec '" + spec + "': up to " + count + " entries, about " +
                        io_detail::bytes_text(bytes) + ", more than the memory budget of " +
                        io_detail::bytes_text(budget) + " (" + io_detail::budget_source() + ")");
}

const char* const kPrefixes[] = {"kron",     "urand",   "stencil2d", "stencil3d",
                                 "powerlaw", "uniform", "graded"};

}  // namespace

bool is_generator_spec(const std::string& spec) {
  const auto colon = spec.find(':');
  if (colon == std::string::npos) return false;
  const std::string prefix = spec.substr(0, colon);
  return std::find(std::begin(kPrefixes), std::end(kPrefixes), prefix) != std::end(kPrefixes);
}

bool generates_symmetric(const std::string& spec) {
  if (!is_generator_spec(spec)) return false;
  const std::string kind = spec.substr(0, spec.find(':'));
  return kind == "kron" || kind == "urand" || kind == "stencil2d" || kind == "stencil3d";
}

HostCsr<double> generate(const std::string& spec) {
  const auto f = split(spec, ':');
  const std::string& kind = f[0];
  if (std::find(std::begin(kPrefixes), std::end(kPrefixes), kind) == std::end(kPrefixes))
    bad_spec(spec, "unknown generator '" + kind + "'");
  auto arity = [&](std::size_t lo, std::size_t hi) {
    if (f.size() - 1 < lo || f.size() - 1 > hi)
      bad_spec(spec, kind + " takes " + std::to_string(lo) + " to " + std::to_string(hi) +
                         " fields, got " + std::to_string(f.size() - 1));
  };
  auto field = [&](std::size_t i) -> const std::string& { return f[i]; };
  if (kind == "kron" || kind == "urand") {
    arity(1, 2);
    const int scale = static_cast<int>(parse_int(spec, field(1), "SCALE", 1, 30));
    const int ef = f.size() > 2 ? static_cast<int>(parse_int(spec, field(2), "EF", 1, 1024)) : 16;
    const double vertices = std::ldexp(1.0, scale);
    check_size(spec, vertices, 2.0 * ef * vertices);  // both directions stored
    return with_unit_values<double>(kind == "kron" ? kronecker(scale, ef)
                                                   : uniform_random(scale, ef));
  }
  if (kind == "stencil2d" || kind == "stencil3d") {
    arity(1, 2);
    const bool two = kind == "stencil2d";
    const int n = static_cast<int>(parse_int(spec, field(1), "N", 1, two ? 46340 : 1290));
    const int points = f.size() > 2 ? static_cast<int>(parse_int(spec, field(2), "POINTS", 1, 27))
                                    : (two ? 5 : 27);
    if (two && points != 5 && points != 9) bad_spec(spec, "POINTS must be 5 or 9 for stencil2d");
    if (!two && points != 7 && points != 27) bad_spec(spec, "POINTS must be 7 or 27 for stencil3d");
    const double grid = std::pow(static_cast<double>(n), two ? 2 : 3);
    check_size(spec, grid, grid * points);
    return two ? stencil_2d(n, points) : stencil_3d(n, points);
  }
  if (kind == "powerlaw") {
    arity(1, 4);
    const std::int64_t rows = parse_int(spec, field(1), "ROWS", 1, kMaxOrdinal);
    const double mean = f.size() > 2 ? parse_real(spec, field(2), "MEAN") : 16.0;
    const double exponent = f.size() > 3 ? parse_real(spec, field(3), "EXP") : 2.0;
    const int long_rows =
        f.size() > 4 ? static_cast<int>(parse_int(spec, field(4), "LONGROWS", 0, rows)) : 4;
    if (!(mean > 0) || mean > static_cast<double>(rows))
      bad_spec(spec, "MEAN must lie in (0, ROWS]");
    if (!(exponent > 1)) bad_spec(spec, "EXP must be greater than 1");
    const double n = static_cast<double>(rows);
    check_size(spec, n, n * mean + long_rows * std::max(1.0, std::floor(n / 2)));
    return power_law(rows, rows, mean, exponent, long_rows, 0);
  }
  if (kind == "graded") {
    arity(1, 3);
    const std::int64_t rows = parse_int(spec, field(1), "ROWS", 1, kMaxOrdinal);
    const double lo = f.size() > 2 ? parse_real(spec, field(2), "LO") : 4.0;
    const double hi = f.size() > 3 ? parse_real(spec, field(3), "HI") : 12.0;
    if (!(lo >= 0) || !(hi >= lo) || hi > static_cast<double>(rows))
      bad_spec(spec, "0 <= LO <= HI <= ROWS must hold");
    const double n = static_cast<double>(rows);
    check_size(spec, n, n * (lo + hi) / 2);
    return graded_matrix(rows, rows, lo, hi);
  }
  arity(1, 2);  // uniform
  const std::int64_t rows = parse_int(spec, field(1), "ROWS", 1, kMaxOrdinal);
  const double per_row = f.size() > 2 ? parse_real(spec, field(2), "PER_ROW") : 16.0;
  if (!(per_row >= 0) || per_row > static_cast<double>(rows))
    bad_spec(spec, "PER_ROW must lie in [0, ROWS]");
  check_size(spec, static_cast<double>(rows), static_cast<double>(rows) * per_row);
  return uniform_matrix(rows, rows, per_row);
}

}  // namespace mimd
