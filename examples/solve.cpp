// mimd-solve: CG, block CG and LOBPCG on a generated stencil or a real SPD matrix,
// through the public mimd API. With --check it is a test (exit 1 on failure, 77 when
// the dataset is absent); with --bench it times the solvers (not a test).
#include <mimd/datasets.hpp>
#include <mimd/error.hpp>
#include <mimd/generators.hpp>
#include <mimd/io.hpp>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "solvers.hpp"

namespace {

using namespace mimd_examples;

constexpr int kSkip = 77;  // ctest's SKIP_RETURN_CODE

struct Args {
  std::string matrix;
  std::string solver = "cg";
  int k = 8;
  int nev = 4;
  int guard = 4;
  bool jacobi = false;
  bool rhs_ones = false;
  bool check = false;
  bool dense = false;
  bool bench = false;
  int repeats = 3;
  double tol = 0;        // 0: 1e-8 for CG, 1e-6 for LOBPCG
  double inner_tol = 0;  // LOBPCG: inner block CG preconditioner's tolerance (0: none)
  int threads = 0;
};

// Right-hand sides: deterministic uniform(-1, 1) columns (column j from seed j), or
// ones (the right-hand side of the C example, examples/cg.c).
Block right_hand_sides(std::int64_t n, int k, bool ones) {
  Block b(n, k);
  if (ones) {
    std::fill(b.ref().data, b.ref().data + n * k, 1.0);
    return b;
  }
  for (int j = 0; j < k; ++j) {
    std::mt19937_64 gen(1000 + static_cast<std::uint64_t>(j));
    std::uniform_real_distribution<double> uni(-1, 1);
    double* col = b.ref().col(j);
    for (std::int64_t i = 0; i < n; ++i) col[i] = uni(gen);
  }
  return b;
}

SolveStats run_solver(const mimd::ExecutionContext& ctx, const Matrix& a, const Args& args,
                      mimd::SpmmAlgorithm algorithm, std::vector<double>* eigenvalues) {
  SolverOptions opt;
  opt.jacobi = args.jacobi;
  opt.inner_tol = args.inner_tol;
  opt.spmm.algorithm = algorithm;
  opt.tol = args.tol > 0 ? args.tol : (args.solver == "lobpcg" ? 1e-6 : 1e-8);
  if (args.solver == "lobpcg") {
    opt.max_iter = 5000;
    EigenResult r = lobpcg(ctx, a, args.nev, args.guard, opt);
    if (eigenvalues) *eigenvalues = r.values;
    return r.stats;
  }
  const int k = args.solver == "cg" ? 1 : args.k;
  Block b = right_hand_sides(a.nrows, k, args.rhs_ones), x(a.nrows, k);
  return args.solver == "cg" ? cg(ctx, a, b.ref().data, x.ref().data, opt)
                             : block_cg(ctx, a, b.ref(), x.ref(), opt);
}

void print_row(const char* label, const std::string& matrix, const Matrix& a, int k,
               const SolveStats& s) {
  const double per_iter = s.iterations > 0 ? s.seconds / s.iterations : 0;
  std::printf(
      "%-10s %-22s n=%-8d nnz=%-9lld k=%-3d iters=%-6d residual=%.2e  %8.3f ms/iter  "
      "SpMM %4.1f%%  %s",
      label, matrix.c_str(), a.nrows, static_cast<long long>(a.nnz()), k, s.iterations, s.residual,
      1e3 * per_iter, s.seconds > 0 ? 100 * s.spmm_seconds / s.seconds : 0.0,
      s.converged ? "converged" : "NOT CONVERGED");
  if (s.inner_iterations > 0) std::printf("  (inner block CG: %d iters)", s.inner_iterations);
  std::printf("\n");
}

int check(const mimd::ExecutionContext& ctx, const Matrix& a, const mimd::HostCsr<double>& host,
          const Args& args) {
  const int k = args.solver == "cg" ? 1 : args.solver == "lobpcg" ? args.nev : args.k;
  std::vector<double> lambda, lambda_ref;
  const SolveStats s = run_solver(ctx, a, args, mimd::SpmmAlgorithm::Auto, &lambda);
  print_row(args.solver.c_str(), args.matrix, a, k, s);
  const SolveStats ref = run_solver(ctx, a, args, mimd::SpmmAlgorithm::Reference, &lambda_ref);
  print_row("reference", args.matrix, a, k, ref);
  int failures = 0;
  if (!s.converged || !ref.converged) {
    std::printf("FAIL: not converged (residual %.3e, reference kernel %.3e)\n", s.residual,
                ref.residual);
    ++failures;
  }
  // Same iteration count on the reference kernel: within 2% (and at least one
  // iteration, for the rounding differences of a short run).
  const int allowed = std::max(1, static_cast<int>(0.02 * ref.iterations));
  if (std::abs(s.iterations - ref.iterations) > allowed) {
    std::printf("FAIL: %d iterations, %d on the reference kernel (allowed difference %d)\n",
                s.iterations, ref.iterations, allowed);
    ++failures;
  }
  if (args.dense) {
    const std::vector<double> all = dense_eigenvalues(host);
    for (int j = 0; j < args.nev && j < static_cast<int>(lambda.size()); ++j) {
      const double d = all[static_cast<std::size_t>(j)];
      const double err = std::abs(lambda[static_cast<std::size_t>(j)] - d) / std::abs(d);
      std::printf("lambda_%d = %.15g  dsyev %.15g  relative difference %.2e\n", j,
                  lambda[static_cast<std::size_t>(j)], d, err);
      if (!(err <= 1e-8)) {
        std::printf("FAIL: eigenvalue %d differs from dsyev by %.3e (> 1e-8)\n", j, err);
        ++failures;
      }
    }
  }
  std::printf("%s\n", failures == 0 ? "PASS" : "FAILED");
  return failures == 0 ? 0 : 1;
}

// Median, min and max of a sample.
struct Spread {
  double median, min, max;
};
Spread spread(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front(), v.back()};
}

int bench(const mimd::ExecutionContext& ctx, const Matrix& a, Args args) {
  std::printf("# %s: n = %d, nnz = %lld, %s, %d threads, Jacobi %s\n", args.matrix.c_str(), a.nrows,
              static_cast<long long>(a.nnz()), ctx.backend().c_str(), ctx.num_threads(),
              args.jacobi ? "on" : "off");
  args.solver = "cg";
  std::vector<double> per_iter, share;
  SolveStats one;
  for (int r = 0; r < args.repeats; ++r) {
    one = run_solver(ctx, a, args, mimd::SpmmAlgorithm::Auto, nullptr);
    per_iter.push_back(1e3 * one.seconds / std::max(1, one.iterations));
    share.push_back(100 * one.spmm_seconds / one.seconds);
  }
  const Spread t1 = spread(per_iter), s1 = spread(share);
  std::printf(
      "cg        k=1   iters=%-5d residual=%.2e  %.3f ms/iter (min %.3f max %.3f)  "
      "SpMM %.1f%% (min %.1f max %.1f)\n",
      one.iterations, one.residual, t1.median, t1.min, t1.max, s1.median, s1.min, s1.max);
  // k separate CG solves (one per column) against one block CG on all k columns.
  for (int k : {8, 32}) {
    const Block b = right_hand_sides(a.nrows, k, args.rhs_ones);
    Block x(a.nrows, 1);
    SolverOptions opt;
    opt.jacobi = args.jacobi;
    double separate = 0;
    int separate_iters = 0;
    for (int j = 0; j < k; ++j) {
      const SolveStats s =
          cg(ctx, a, b.storage.data() + static_cast<std::size_t>(j) * a.nrows, x.ref().data, opt);
      separate += s.seconds;
      separate_iters += s.iterations;
    }
    std::vector<double> block_times;
    SolveStats bs;
    Block xb(a.nrows, k);
    Block bcopy = b;
    for (int r = 0; r < args.repeats; ++r) {
      bs = block_cg(ctx, a, bcopy.ref(), xb.ref(), opt);
      block_times.push_back(bs.seconds);
    }
    const Spread tb = spread(block_times);
    std::printf(
        "block-cg  k=%-3d iters=%-5d residual=%.2e  %.3f ms/iter  SpMM %.1f%%  "
        "total %.3f s (min %.3f max %.3f) | %d x cg: %d iters, %.3f s | speedup %.2f\n",
        k, bs.iterations, bs.residual, 1e3 * bs.seconds / std::max(1, bs.iterations),
        100 * bs.spmm_seconds / bs.seconds, tb.median, tb.min, tb.max, k, separate_iters, separate,
        separate / tb.median);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  CLI::App app{"CG, block CG and LOBPCG on mimd's SpMM (an example of the public API)"};
  app.add_option("matrix", args.matrix,
                 "generator spec (stencil3d:32:7) or dataset name/path (bcsstk13)")
      ->required();
  app.add_option("--solver", args.solver, "cg, block-cg or lobpcg")
      ->check(CLI::IsMember({"cg", "block-cg", "lobpcg"}));
  app.add_option("--k", args.k, "right-hand sides of block CG")->check(CLI::Range(1, 1024));
  app.add_option("--nev", args.nev, "eigenpairs wanted (LOBPCG)")->check(CLI::Range(1, 256));
  app.add_option("--guard", args.guard, "extra block columns (LOBPCG)")->check(CLI::Range(0, 256));
  app.add_option("--tol", args.tol, "tolerance (default 1e-8; LOBPCG 1e-6)");
  app.add_flag("--jacobi", args.jacobi, "diagonal (Jacobi) preconditioning");
  app.add_option("--inner-tol", args.inner_tol,
                 "LOBPCG: precondition by an inner block CG solve to this tolerance")
      ->check(CLI::Range(0.0, 0.5));
  app.add_flag("--rhs-ones", args.rhs_ones, "right-hand sides of ones (as the C example's)");
  app.add_flag("--check", args.check,
               "test: converge, same iterations on the reference kernel (within 2%)");
  app.add_flag("--dense", args.dense, "test: LOBPCG eigenvalues against dense dsyev");
  app.add_flag("--bench", args.bench, "time CG and block CG (k = 8, 32) against k CG solves");
  app.add_option("--repeats", args.repeats, "bench repetitions")->check(CLI::Range(1, 100));
  app.add_option("--threads", args.threads, "worker threads (0: one per core)");
  CLI11_PARSE(app, argc, argv);
  try {
    mimd::ContextOptions copt;
    copt.num_threads = args.threads;
    const mimd::ExecutionContext ctx(copt);
    mimd::HostCsr<double> host;
    if (mimd::is_generator_spec(args.matrix)) {
      host = mimd::generate(args.matrix);
    } else {
      std::string path;
      try {
        path = mimd::find_dataset(args.matrix);
      } catch (const mimd::IoError& e) {
        std::printf("SKIP: dataset %s not found: %s\n", args.matrix.c_str(), e.what());
        return kSkip;
      }
      host = mimd::read_matrix_market<double>(path);
    }
    const Matrix a = mimd::to_memory_space<mimd::DefaultMemorySpace>(host);
    if (args.bench) return bench(ctx, a, args);
    if (args.check) return check(ctx, a, host, args);
    const int k = args.solver == "cg" ? 1 : args.solver == "lobpcg" ? args.nev : args.k;
    std::vector<double> lambda;
    const SolveStats s = run_solver(ctx, a, args, mimd::SpmmAlgorithm::Auto, &lambda);
    print_row(args.solver.c_str(), args.matrix, a, k, s);
    for (std::size_t j = 0; j < lambda.size(); ++j)
      std::printf("lambda_%zu = %.15g\n", j, lambda[j]);
    return s.converged ? 0 : 1;
  } catch (const mimd::Error& e) {
    std::fprintf(stderr, "mimd-solve: %s\n", e.what());
    return 1;
  }
}
