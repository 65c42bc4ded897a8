// Uses the installed distributed interface under mpirun: a stencil generated on every
// rank and distributed, one SpMV with B = 1 (each local row's sum of values), one
// direction-optimizing BFS validated by Graph500's rules.
#include <mpi.h>

#include <cmath>
#include <cstdio>

#include "mimd/dist/bfs.hpp"
#include "mimd/dist/csr.hpp"
#include "mimd/dist/spmm.hpp"

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  const int status = mimd::dist::run_or_abort(MPI_COMM_WORLD, [] {
    const mimd::dist::Context ctx(MPI_COMM_WORLD);
    const auto a = mimd::dist::generate(ctx, "stencil2d:16:5");
    const std::int32_t n = a.map.local_rows();
    mimd::dist::SpmmPlan<double, Kokkos::LayoutRight> plan(ctx, a, 1);
    mimd::Dense<double, Kokkos::LayoutRight> b("b", n, 1), c("c", n, 1);
    Kokkos::deep_copy(b, 1.0);
    plan.apply(1.0, b, 0.0, c);
    int bad = 0;
    for (std::int32_t i = 0; i < n; ++i) {
      double sum = 0;
      for (auto z = a.local.row_map(i); z < a.local.row_map(i + 1); ++z) sum += a.local.values(z);
      bad += std::abs(c(i, 0) - sum) > 1e-12 * (1 + std::abs(sum));
    }
    const auto g = mimd::dist::as_graph(a);
    mimd::dist::BfsRunner bfs(ctx, g);
    const auto& r = bfs.run(0);
    const auto v = mimd::dist::validate(ctx, g, 0, r);
    int any = bad + (v.ok && r.reached == 16 * 16 ? 0 : 1), total = 0;
    MPI_Allreduce(&any, &total, 1, MPI_INT, MPI_SUM, ctx.comm());
    if (ctx.rank() == 0)
      std::printf("consumer_dist: %d ranks, %d local rows on rank 0, SpMV %s, BFS reached %lld%s\n",
                  ctx.size(), n, bad ? "WRONG" : "ok", static_cast<long long>(r.reached),
                  v.ok ? "" : (" invalid: " + v.message).c_str());
    return total == 0 ? 0 : 1;
  });
  MPI_Finalize();
  return status;
}
