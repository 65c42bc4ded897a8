// Two host threads applying two SpMM plans at once through the C++ API, where the
// Kokkos backend accepts launches from several host threads (Kokkos 4 OpenMP: one
// mutex per instance serialises the launches, so the two plans' launches interleave).
// Kokkos 3.4 OpenMP and the Threads backend accept launches only from the thread that
// initialised Kokkos; there the C API serialises callers on its dispatch thread
// (tests/c/test_c_threads.c covers that on every backend).
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <thread>
#include <type_traits>
#include <vector>

#include "mimd/spmm.hpp"
#include "support/test_context.hpp"

namespace {

constexpr bool kConcurrentLaunches =
#if defined(KOKKOS_ENABLE_OPENMP) && KOKKOS_VERSION >= 40000
    std::is_same<Kokkos::DefaultExecutionSpace, Kokkos::OpenMP>::value;
#else
    false;
#endif

// A matrix with a few rows long enough to be split into LSSM units and many short
// rows merged into units; small integer values, so that every product is exact.
mimd::Csr<double> split_and_merged_rows(int seed) {
  const std::int32_t m = 6000, n = 4000;
  mimd::HostCsr<double> h;
  std::vector<std::int64_t> rm{0};
  std::vector<std::int32_t> col;
  std::vector<double> val;
  for (std::int32_t i = 0; i < m; ++i) {
    const int len = i % 750 == 0 ? 20000 : 1 + (i * 7 + seed) % 5;
    for (int t = 0; t < len; ++t) {
      col.push_back(static_cast<std::int32_t>((i * 13 + t * (seed + 3)) % n));
      val.push_back((i + t + seed) % 3 + 1);
    }
    rm.push_back(static_cast<std::int64_t>(col.size()));
  }
  h.nrows = m;
  h.ncols = n;
  h.row_map = decltype(h.row_map)("rm", rm.size());
  h.entries = decltype(h.entries)("col", col.size());
  h.values = decltype(h.values)("val", val.size());
  std::copy(rm.begin(), rm.end(), h.row_map.data());
  std::copy(col.begin(), col.end(), h.entries.data());
  std::copy(val.begin(), val.end(), h.values.data());
  return mimd::to_memory_space<mimd::DefaultMemorySpace>(h);
}

TEST(SpmmConcurrency, TwoThreadsTwoPlansCppApi) {
  if (!kConcurrentLaunches)
    GTEST_SKIP() << "this Kokkos backend accepts launches only from the thread that "
                    "initialised it (see mimd/spmm.hpp, SpmmPlan)";
  using Plan = mimd::SpmmPlan<double, Kokkos::LayoutRight>;
  const int k = 8, rounds = 40;
  const mimd::ExecutionContext ctx[2] = {mimd::testing::context(), mimd::ExecutionContext()};
  struct Job {
    mimd::Csr<double> a;
    std::vector<double> b, want, c;
    int wrong = 0;
  } jobs[2];
  std::vector<Plan> plans;
  for (int j = 0; j < 2; ++j) {
    Job& job = jobs[j];
    job.a = split_and_merged_rows(j + 1);
    job.b.resize(static_cast<std::size_t>(job.a.ncols) * k);
    for (std::size_t x = 0; x < job.b.size(); ++x) job.b[x] = static_cast<double>(x * (j + 2) % 5);
    job.want.assign(static_cast<std::size_t>(job.a.nrows) * k, 0.0);
    job.c = job.want;
    mimd::SpmmOptions reference;
    reference.algorithm = mimd::SpmmAlgorithm::Reference;
    Plan(ctx[j], job.a, k, reference)
        .apply(1.0, job.a, k, job.b.data(), k, 0.0, job.want.data(), k);
    mimd::SpmmOptions lssm;
    lssm.algorithm = mimd::SpmmAlgorithm::Lssm;
    plans.emplace_back(ctx[j], job.a, k, lssm);
    ASSERT_GT(plans.back().num_split_rows(), 0) << plans.back().describe();
  }
  std::vector<std::thread> threads;
  for (int j = 0; j < 2; ++j)
    threads.emplace_back([&, j] {
      Job& job = jobs[j];
      for (int r = 0; r < rounds; ++r) {
        std::fill(job.c.begin(), job.c.end(), -1.0);
        plans[j].apply(1.0, job.a, k, job.b.data(), k, 0.0, job.c.data(), k);
        Kokkos::fence();
        if (job.c != job.want) ++job.wrong;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(jobs[0].wrong, 0) << "of " << rounds << " applies";
  EXPECT_EQ(jobs[1].wrong, 0) << "of " << rounds << " applies";
}

}  // namespace
