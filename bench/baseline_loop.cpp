// Baseline: the plain OpenMP CSR loop a careful programmer writes, at its best
// (see ../shared/BASELINES.md): rows handed out by schedule(dynamic, 64), the loop over
// the k columns vectorised with `omp simd`, and k a compile-time constant for the
// k values the benchmark uses (1, 8, 32, 128), a run-time one otherwise.
#include <omp.h>

#include "impls.hpp"

namespace mimd::bench {

namespace {

template <class Scalar, int K>
void loop_fixed_k(std::int64_t m, const std::int64_t* rp, const std::int32_t* ci, const Scalar* v,
                  const Scalar* b, Scalar* c) {
#pragma omp parallel for schedule(dynamic, 64)
  for (std::int64_t i = 0; i < m; ++i) {
    Scalar acc[K] = {};
    for (std::int64_t p = rp[i]; p < rp[i + 1]; ++p) {
      const Scalar a = v[p];
      const Scalar* brow = b + static_cast<std::int64_t>(ci[p]) * K;
#pragma omp simd
      for (int j = 0; j < K; ++j) acc[j] += a * brow[j];
    }
    Scalar* crow = c + i * K;
#pragma omp simd
    for (int j = 0; j < K; ++j) crow[j] = acc[j];
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
SpmmFactory<Scalar> plain_loop_factory() {
  return {"omp_loop", true, [](const SpmmProblem<Scalar>& p) -> std::unique_ptr<SpmmImpl<Scalar>> {
            return std::make_unique<PlainLoop<Scalar>>(p);
          }};
}

template SpmmFactory<float> plain_loop_factory<float>();
template SpmmFactory<double> plain_loop_factory<double>();

}  // namespace mimd::bench
