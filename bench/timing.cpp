// Measurement protocol and STREAM probe.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "bench.hpp"

namespace mimd::bench {

namespace {
double now() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}
}  // namespace

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

Timing measure(const std::function<void()>& fn, const TimingPolicy& policy) {
  // Warm-up: at least one call (page faults, plans, caches), then until warmup_seconds.
  Timing best;
  const double w0 = now();
  auto past_limit = [&] { return now() - w0 > policy.time_limit; };
  do {
    fn();
    if (past_limit()) {
      best.limit_reached = true;
      return best;
    }
  } while (now() - w0 < policy.warmup_seconds);

  const int rounds = std::max(1, policy.rounds);
  for (int round = 0; round < rounds; ++round) {
    std::vector<double> t;
    double total = 0;
    while ((static_cast<int>(t.size()) < policy.min_reps || total < policy.min_seconds) &&
           static_cast<int>(t.size()) < policy.max_reps) {
      const double t0 = now();
      fn();
      const double dt = now() - t0;
      t.push_back(dt);
      total += dt;
      if (past_limit()) {
        best.limit_reached = true;
        best.reps = static_cast<int>(t.size());
        return best;
      }
    }
    const double med = median_of(t);
    if (round == 0 || med < best.median) {
      best.reps = static_cast<int>(t.size());
      best.median = med;
      best.min = *std::min_element(t.begin(), t.end());
      best.max = *std::max_element(t.begin(), t.end());
    }
    best.rounds = round + 1;
    best.clean = best.median <= policy.clean_ratio * best.min;
    if (best.clean) break;
  }
  return best;
}

double spmm_bytes(std::int64_t m, std::int64_t n, std::int64_t nnz, int k, int scalar_bytes) {
  const double a = static_cast<double>(nnz) * (scalar_bytes + sizeof(std::int32_t)) +
                   static_cast<double>(m + 1) * sizeof(std::int64_t);
  const double b = static_cast<double>(n) * k * scalar_bytes;
  const double c = 2.0 * static_cast<double>(m) * k * scalar_bytes;
  return a + b + c;
}

double spmm_footprint(std::int64_t m, std::int64_t n, std::int64_t nnz, int k, int scalar_bytes) {
  return spmm_bytes(m, n, nnz, k, scalar_bytes) - static_cast<double>(m) * k * scalar_bytes;
}

std::string size_class(const Record& r) {
  return r.above_llc ? "llc+" : r.nnz >= kLargeNnz ? "100k+" : "small";
}

// STREAM (McCalpin): copy c = a (16 bytes/element), triad a = b + s*c (24 bytes/element),
// write-allocate traffic not counted, best rep reported. Static schedule everywhere so
// that each thread touches the pages it initialised.
StreamResult run_stream(std::int64_t elements, int threads, int reps) {
  std::unique_ptr<double[]> a(new double[elements]), b(new double[elements]),
      c(new double[elements]);
  double* pa = a.get();
  double* pb = b.get();
  double* pc = c.get();
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::int64_t i = 0; i < elements; ++i) {
    pa[i] = 1.0;
    pb[i] = 2.0;
    pc[i] = 0.0;
  }
  double best_copy = 1e30, best_triad = 1e30;
  const double s = 3.0;
  for (int r = 0; r < reps; ++r) {
    double t0 = now();
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::int64_t i = 0; i < elements; ++i) pc[i] = pa[i];
    best_copy = std::min(best_copy, now() - t0);
    t0 = now();
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::int64_t i = 0; i < elements; ++i) pa[i] = pb[i] + s * pc[i];
    best_triad = std::min(best_triad, now() - t0);
  }
  StreamResult out;
  out.elements = elements;
  out.threads = threads;
  out.copy_gbps = 16.0 * static_cast<double>(elements) / best_copy * 1e-9;
  out.triad_gbps = 24.0 * static_cast<double>(elements) / best_triad * 1e-9;
  return out;
}

}  // namespace mimd::bench
