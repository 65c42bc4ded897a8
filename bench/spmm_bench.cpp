// SpMM measurements: every mimd algorithm and every baseline on one input, for each k
// and precision, each verified against mimd's reference SpMM before it is timed.
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "bench.hpp"
#include "mimd/spmm.hpp"
#include "registry.hpp"

namespace mimd::bench {

namespace {

// B's entries: uniform in [-1, 1) from a counter-based hash (deterministic, any order).
template <class Scalar>
std::vector<Scalar> make_b(std::int64_t n, int k) {
  std::vector<Scalar> b(static_cast<std::size_t>(n) * k);
  for (std::size_t i = 0; i < b.size(); ++i) {
    std::uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    b[i] = static_cast<Scalar>(static_cast<double>(z >> 11) * 0x1.0p-52 - 1.0);
  }
  return b;
}

template <class Scalar>
HostCsr<Scalar> convert(const HostCsr<double>& a) {
  if constexpr (std::is_same<Scalar, double>::value)
    return a;
  else
    return convert_values<Scalar>(a);
}

template <class Scalar>
class MimdSpmm final : public SpmmImpl<Scalar> {
 public:
  using Layout = Kokkos::LayoutRight;
  MimdSpmm(const ExecutionContext& ctx, const Csr<Scalar>& a, const std::vector<Scalar>& b, int k,
           SpmmAlgorithm algorithm)
      : a_(a),
        plan_(ctx, a, k,
              [&] {
                SpmmOptions o;
                o.algorithm = algorithm;
                return o;
              }()),
        b_("B", a.ncols, k),
        c_("C", a.nrows, k) {
    auto hb = Kokkos::create_mirror_view(b_);
    std::copy(b.begin(), b.end(), hb.data());  // LayoutRight: row-major, contiguous
    Kokkos::deep_copy(b_, hb);
  }

  void run() override {
    plan_.apply(Scalar(1), a_, b_, Scalar(0), c_);
    Kokkos::fence();
  }

  void result(std::vector<Scalar>& c) const override {
    auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c_);
    c.assign(hc.data(), hc.data() + hc.size());
  }

  std::string describe() const { return plan_.describe(); }
  double inspect_seconds() const { return plan_.inspect_seconds(); }

 private:
  Csr<Scalar> a_;
  SpmmPlan<Scalar, Layout> plan_;
  Dense<Scalar, Layout> b_;
  Dense<Scalar, Layout> c_;
};

// Forward error bound of a dot product of length L: |c - c_exact| <= L u sum|a||b|, so
// two correct results differ by at most 2 L u sum|a||b| <= L eps |a_i|_1 max|B|.
// Rows are checked with (L + 1) for the final add of the accumulation into C.
template <class Scalar>
std::string verify(const HostCsr<Scalar>& a, int k, const std::vector<Scalar>& b,
                   const std::vector<Scalar>& ref, const std::vector<Scalar>& got) {
  if (got.size() != ref.size())
    return "result has " + std::to_string(got.size()) + " entries, expected " +
           std::to_string(ref.size());
  double bmax = 0;
  for (Scalar x : b) bmax = std::max(bmax, std::abs(static_cast<double>(x)));
  const double eps = std::numeric_limits<Scalar>::epsilon();
  for (std::int64_t i = 0; i < a.nrows; ++i) {
    double rowabs = 0;
    for (std::int64_t p = a.row_map(i); p < a.row_map(i + 1); ++p)
      rowabs += std::abs(static_cast<double>(a.values(p)));
    const double len = static_cast<double>(a.row_map(i + 1) - a.row_map(i));
    const double tol = (len + 1) * eps * rowabs * bmax;
    for (int j = 0; j < k; ++j) {
      const std::size_t idx = static_cast<std::size_t>(i) * k + j;
      const double g = static_cast<double>(got[idx]), r = static_cast<double>(ref[idx]);
      // NaN or Inf (in A, or overflow): no error bound applies; both must be NaN, or
      // the same infinity.
      const double diff = std::abs(g - r);
      const bool agree = std::isfinite(r) && std::isfinite(g)
                             ? diff <= tol
                             : (std::isnan(r) && std::isnan(g)) || r == g;
      if (!agree) {
        std::ostringstream os;
        os.precision(17);
        os << "C(" << i << "," << j << ") = " << got[idx] << ", reference " << ref[idx]
           << ", |diff| = " << diff << " > tolerance " << tol << " (row length " << len << ")";
        return os.str();
      }
    }
  }
  return {};
}

std::vector<int> ks_of(const Input& input, const RunOptions& options) {
  return input.ks.empty() ? options.ks : input.ks;
}

// Memory the dense operands of one k take at the peak of a measurement: B and the
// reference C held throughout, the implementation's own B and C (every one copies
// them), the result copied out and its host mirror; a quarter more for the
// allocators' slack. Only one implementation is alive at a time.
double dense_bytes_needed(std::int64_t m, std::int64_t n, int k, int scalar_bytes) {
  return 1.25 * static_cast<double>(2 * n + 4 * m) * k * scalar_bytes;
}

std::string gigabytes(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GB", bytes * 1e-9);
  return buf;
}

template <class Scalar>
void bench_one_precision(const ExecutionContext& ctx, const Input& input,
                         const HostCsr<double>& a64, const RunOptions& options, Progress& progress,
                         std::vector<Record>& records) {
  const HostCsr<Scalar> a = convert<Scalar>(a64);
  const Csr<Scalar> a_dev = to_memory_space<DefaultMemorySpace>(a);
  const RowStats st = row_stats(a);
  const char* scalar_name = std::is_same<Scalar, double>::value ? "double" : "float";

  struct Named {
    std::string name;
    bool baseline;
    SpmmMaker<Scalar> make;
  };
  std::vector<Named> impls;
  for (const auto& name : options.spmm_algorithms) {
    const SpmmAlgorithm alg = spmm_algorithm_from_string(name);
    impls.push_back(
        {name, false,
         [&ctx, &a_dev, alg](const SpmmProblem<Scalar>& p) -> std::unique_ptr<SpmmImpl<Scalar>> {
           return std::make_unique<MimdSpmm<Scalar>>(ctx, a_dev, *p.b, p.k, alg);
         }});
  }
  for (const auto& name : options.baselines) {
    const ImplInfo* info = find_impl(name);
    if (info->kernel == "spmm") impls.push_back({name, true, info->spmm_maker<Scalar>()});
  }

  for (int k : ks_of(input, options)) {
    Record base;
    base.kernel = "spmm";
    base.input = input.name;
    base.input_kind = input.real ? "real" : "generated";
    base.scalar = scalar_name;
    base.rows = a.nrows;
    base.cols = a.ncols;
    base.nnz = a.nnz();
    base.mean_row = st.mean;
    base.max_row = st.max_row;
    base.k = k;
    base.threads = ctx.num_threads();
    base.footprint_bytes = spmm_footprint(a.nrows, a.ncols, a.nnz(), k, sizeof(Scalar));
    base.above_llc = options.llc_bytes > 0 && base.footprint_bytes > options.llc_bytes;
    base.verified = true;  // until something fails

    const double need = dense_bytes_needed(a.nrows, a.ncols, k, sizeof(Scalar));
    if (need > options.memory_bytes) {
      for (const auto& f : impls) {
        progress.step("spmm " + input.name + " k=" + std::to_string(k) + " " + f.name);
        Record r = base;
        r.impl = f.name;
        r.baseline = f.baseline;
        r.skip_reason = "dense operands need " + gigabytes(need) + ", " +
                        gigabytes(options.memory_bytes) + " available (" + options.memory_source +
                        ")";
        records.push_back(r);
      }
      continue;
    }

    const std::vector<Scalar> b = make_b<Scalar>(a.ncols, k);
    std::vector<Scalar> ref;
    progress.note("spmm " + input.name + " k=" + std::to_string(k) + " reference");
    {
      MimdSpmm<Scalar> reference(ctx, a_dev, b, k, SpmmAlgorithm::Reference);
      reference.run();
      reference.result(ref);
    }

    const SpmmProblem<Scalar> problem{&a, k, &b};
    const double flops = 2.0 * static_cast<double>(a.nnz()) * k;
    const double bytes = spmm_bytes(a.nrows, a.ncols, a.nnz(), k, sizeof(Scalar));
    for (const auto& f : impls) {
      progress.step("spmm " + input.name + " " + scalar_name + " k=" + std::to_string(k) + " " +
                    f.name);
      Record r = base;
      r.impl = f.name;
      r.baseline = f.baseline;
      try {
        auto impl = f.make(problem);
        impl->run();
        std::vector<Scalar> got;
        impl->result(got);
        const std::string err = verify(a, k, b, ref, got);
        if (!err.empty()) {
          r.verified = false;
          r.note = "verification failed: " + err;
        } else {
          r.time = measure([&] { impl->run(); }, options.timing);
        }
        if (r.time.limit_reached) {
          char why[96];
          std::snprintf(why, sizeof why, "time limit %.3g s reached after %d timed calls",
                        options.timing.time_limit, r.time.reps);
          r.skip_reason = why;
          r.time = Timing{};
        } else if (r.verified) {
          r.gflops = flops / r.time.median * 1e-9;
          r.gbps = bytes / r.time.median * 1e-9;
          r.pct_triad = options.triad_gbps > 0 ? 100.0 * r.gbps / options.triad_gbps : 0;
          if (auto* m = dynamic_cast<MimdSpmm<Scalar>*>(impl.get())) {
            r.inspect_s = m->inspect_seconds();
            char cost[96];
            std::snprintf(cost, sizeof cost, "; inspection %.1f us = %.2f x one call",
                          r.inspect_s * 1e6, r.inspect_s / r.time.median);
            r.note = m->describe() + cost;
          }
        }
      } catch (const std::exception& e) {
        r.verified = false;
        r.note = std::string("error: ") + e.what();
      }
      records.push_back(r);
    }
  }
}

}  // namespace

int spmm_steps(const Input& input, const RunOptions& options) {
  int impls = static_cast<int>(options.spmm_algorithms.size());
  for (const auto& b : options.baselines)
    if (find_impl(b)->kernel == "spmm") ++impls;
  const int precisions = (options.run_double ? 1 : 0) + (options.run_float ? 1 : 0);
  return precisions * static_cast<int>(ks_of(input, options).size()) * impls;
}

std::vector<Record> bench_spmm(const ExecutionContext& ctx, const Input& input,
                               const HostCsr<double>& a, const RunOptions& options,
                               Progress& progress) {
  std::vector<Record> records;
  if (options.run_double) bench_one_precision<double>(ctx, input, a, options, progress, records);
  if (options.run_float) bench_one_precision<float>(ctx, input, a, options, progress, records);
  return records;
}

}  // namespace mimd::bench
