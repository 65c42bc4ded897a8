// Baseline: the plain OpenMP CSR loop a careful programmer writes, at its best
// (see ../shared/BASELINES.md): rows handed out by schedule(dynamic, 64), k a
// compile-time constant for the k values the benchmark uses (1, 8, 32, 128) and a
// run-time one otherwise. Written independently of mimd's kernels.
//
// For a compile-time k the row's accumulators are a tile of SIMD vectors (GCC/Clang
// vector extensions) that the compiler keeps in registers: each nonzero broadcasts
// A's value once and adds it times B's row, loaded contiguously, to every vector of
// the tile. A tile holds at most kTileVectors vectors (8 of 32 zmm or 16 ymm
// registers); wider k is done tile by tile, re-reading the row's nonzeros from L1.
// (A `#pragma omp simd` loop over a `Scalar acc[K]` array was GCC 12's undoing: it
// stored the accumulators to the stack after every FMA and gathered B with vgatherqpd.)
#include <omp.h>

#include <cstring>

#include "impls.hpp"

namespace mimd::bench {

namespace {

#if defined(__AVX512F__)
constexpr int kSimdBytes = 64;
#elif defined(__AVX__)
constexpr int kSimdBytes = 32;
#else
constexpr int kSimdBytes = 16;
#endif
constexpr int kTileVectors = 8;

constexpr int min_int(int a, int b) {
  return a < b ? a : b;
}

// Lanes of the vector type used for k columns: the SIMD width, or k when narrower.
template <class Scalar, int K>
constexpr int lanes() {
  return min_int(K, kSimdBytes / static_cast<int>(sizeof(Scalar)));
}

// W lanes of Scalar (GCC/Clang vector extension); a plain Scalar for one lane, which
// GCC would otherwise keep in memory.
template <class Scalar, int W>
struct Simd {
  typedef Scalar type __attribute__((vector_size(W * sizeof(Scalar))));
};
template <class Scalar>
struct Simd<Scalar, 1> {
  using type = Scalar;
};

template <class Scalar, int K>
void loop_fixed_k(std::int64_t m, const std::int64_t* rp, const std::int32_t* ci, const Scalar* v,
                  const Scalar* b, Scalar* c) {
  constexpr int W = lanes<Scalar, K>();
  static_assert(K % W == 0, "k must be a multiple of the vector width");
  constexpr int NV = min_int(K / W, kTileVectors);  // vectors per tile
  constexpr int T = NV * W;                         // columns per tile
  static_assert(K % T == 0, "k must be a multiple of the tile width");
  using Vec = typename Simd<Scalar, W>::type;

#pragma omp parallel for schedule(dynamic, 64)
  for (std::int64_t i = 0; i < m; ++i) {
    const std::int64_t begin = rp[i], end = rp[i + 1];
    for (int t = 0; t < K; t += T) {
      Vec acc[NV] = {};
      for (std::int64_t p = begin; p < end; ++p) {
        const Vec a = v[p] - Vec{};  // broadcast
        const Scalar* brow = b + static_cast<std::int64_t>(ci[p]) * K + t;
        for (int q = 0; q < NV; ++q) {
          Vec x;
          std::memcpy(&x, brow + q * W, sizeof x);  // unaligned vector load
          acc[q] += a * x;
        }
      }
      Scalar* crow = c + i * K + t;
      for (int q = 0; q < NV; ++q) std::memcpy(crow + q * W, &acc[q], sizeof(Vec));
    }
  }
}

template <class Scalar>
void loop_runtime_k(std::int64_t m, int k, const std::int64_t* rp, const std::int32_t* ci,
                    const Scalar* v, const Scalar* b, Scalar* c) {
#pragma omp parallel for schedule(dynamic, 64)
  for (std::int64_t i = 0; i < m; ++i) {
    Scalar* crow = c + i * k;
#pragma omp simd
    for (int j = 0; j < k; ++j) crow[j] = 0;
    for (std::int64_t p = rp[i]; p < rp[i + 1]; ++p) {
      const Scalar a = v[p];
      const Scalar* brow = b + static_cast<std::int64_t>(ci[p]) * k;
#pragma omp simd
      for (int j = 0; j < k; ++j) crow[j] += a * brow[j];
    }
  }
}

template <class Scalar>
class PlainLoop final : public SpmmImpl<Scalar> {
 public:
  explicit PlainLoop(const SpmmProblem<Scalar>& p)
      : a_(*p.a), k_(p.k), b_(*p.b), c_(static_cast<std::size_t>(a_.nrows) * k_) {}

  void run() override {
    const std::int64_t m = a_.nrows;
    const std::int64_t* rp = a_.row_map.data();
    const std::int32_t* ci = a_.entries.data();
    const Scalar* v = a_.values.data();
    const Scalar* b = b_.data();
    Scalar* c = c_.data();
    switch (k_) {
      case 1:
        loop_fixed_k<Scalar, 1>(m, rp, ci, v, b, c);
        break;
      case 8:
        loop_fixed_k<Scalar, 8>(m, rp, ci, v, b, c);
        break;
      case 32:
        loop_fixed_k<Scalar, 32>(m, rp, ci, v, b, c);
        break;
      case 128:
        loop_fixed_k<Scalar, 128>(m, rp, ci, v, b, c);
        break;
      default:
        loop_runtime_k<Scalar>(m, k_, rp, ci, v, b, c);
        break;
    }
  }

  void result(std::vector<Scalar>& c) const override { c = c_; }

 private:
  const HostCsr<Scalar>& a_;
  int k_;
  const std::vector<Scalar>& b_;
  std::vector<Scalar> c_;
};

}  // namespace

template <class Scalar>
std::unique_ptr<SpmmImpl<Scalar>> make_plain_loop(const SpmmProblem<Scalar>& p) {
  return std::make_unique<PlainLoop<Scalar>>(p);
}

template std::unique_ptr<SpmmImpl<float>> make_plain_loop(const SpmmProblem<float>&);
template std::unique_ptr<SpmmImpl<double>> make_plain_loop(const SpmmProblem<double>&);

}  // namespace mimd::bench
