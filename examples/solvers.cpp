#include "solvers.hpp"

#include <mimd/error.hpp>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <utility>

namespace mimd_examples {
namespace {

static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, mimd::DefaultMemorySpace>::accessible,
              "the example solvers keep their dense blocks in host memory");

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// A as the solvers see it: the SpMM plan (inspected once), the timing of its applies
// and the Jacobi preconditioner.
class Operator {
 public:
  Operator(const mimd::ExecutionContext& ctx, const Matrix& a, int k_hint,
           const SolverOptions& options, SolveStats& stats)
      : a_(a), plan_(ctx, a, k_hint, options.spmm), stats_(stats) {
    if (!options.jacobi) return;
    inv_diag_.assign(static_cast<std::size_t>(a.nrows), 0.0);
    for (std::int32_t i = 0; i < a.nrows; ++i) {
      for (std::int64_t p = a.row_map(i); p < a.row_map(i + 1); ++p)
        if (a.entries(p) == i) inv_diag_[static_cast<std::size_t>(i)] += a.values(p);
      const double d = inv_diag_[static_cast<std::size_t>(i)];
      if (!(d > 0))
        throw mimd::InvalidArgument("Jacobi preconditioner: diagonal entry of row " +
                                    std::to_string(i) + " is " + std::to_string(d) +
                                    " (an SPD matrix has a positive diagonal)");
      inv_diag_[static_cast<std::size_t>(i)] = 1 / d;
    }
  }

  /// y = A x, column by column of x's width.
  void apply(const BlockRef& x, const BlockRef& y) {
    const auto t0 = Clock::now();
    plan_.apply(1.0, a_, x.cols, x.data, x.ld, 0.0, y.data, y.ld);
    stats_.spmm_seconds += seconds_since(t0);
    ++stats_.spmm_calls;
  }

  /// z = M^{-1} r (a copy without preconditioning); z may be r.
  void precondition(const BlockRef& r, const BlockRef& z) const {
    if (inv_diag_.empty()) {
      if (r.data != z.data) copy(r, z);
      return;
    }
    const double* d = inv_diag_.data();
    for (int j = 0; j < r.cols; ++j) {
      const double* rj = r.col(j);
      double* zj = z.col(j);
      Kokkos::parallel_for(
          "mimd_examples::jacobi", Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(0, r.rows),
          KOKKOS_LAMBDA(const std::int64_t i) { zj[i] = d[i] * rj[i]; });
    }
    Kokkos::fence();
  }

  /// R = B - A X; returns max_j ||r_j|| / ||b_j|| (columns with b_j = 0 count as 0).
  double residual(const BlockRef& b, const BlockRef& x, const BlockRef& r,
                  const std::vector<double>& bnorm) {
    apply(x, r);
    double worst = 0;
    for (int j = 0; j < b.cols; ++j) {
      double* rj = r.col(j);
      scal(r.rows, -1, rj);
      axpy(r.rows, 1, b.col(j), rj);
      if (bnorm[static_cast<std::size_t>(j)] > 0)
        worst = std::max(worst, norm2(r.rows, rj) / bnorm[static_cast<std::size_t>(j)]);
    }
    return worst;
  }

 private:
  Matrix a_;
  mimd::SpmmPlan<double, Kokkos::LayoutLeft> plan_;
  SolveStats& stats_;
  std::vector<double> inv_diag_;
};

// max_j ||r_j|| / ||b_j|| from the recurrence's residual block.
double recurrence_residual(const BlockRef& r, const std::vector<double>& bnorm) {
  double worst = 0;
  for (int j = 0; j < r.cols; ++j)
    if (bnorm[static_cast<std::size_t>(j)] > 0)
      worst = std::max(worst, norm2(r.rows, r.col(j)) / bnorm[static_cast<std::size_t>(j)]);
  return worst;
}

void symmetrize(Small& g) {
  for (int j = 0; j < g.c; ++j)
    for (int i = 0; i < j; ++i) g(i, j) = g(j, i) = 0.5 * (g(i, j) + g(j, i));
}

// Dependent directions: a Gram pivot below this fraction of the largest (a singular
// value ratio of 1e-6 after the columns are scaled to unit length).
constexpr double kRankTol = 1e-12;

}  // namespace

SolveStats cg(const mimd::ExecutionContext& ctx, const Matrix& a, const double* b, double* x,
              const SolverOptions& options) {
  SolveStats s;
  const auto t0 = Clock::now();
  Operator op(ctx, a, 1, options, s);
  const std::int64_t n = a.nrows;
  Block r(n, 1), z(n, 1), p(n, 1), q(n, 1);
  const BlockRef bb{const_cast<double*>(b), n, 1, n}, xb{x, n, 1, n};
  std::fill(x, x + n, 0.0);
  copy(bb, r.ref());
  const std::vector<double> bnorm{norm2(n, b)};
  if (bnorm[0] == 0) {
    s.converged = true;
    s.seconds = seconds_since(t0);
    return s;
  }
  double* rp = r.ref().data;
  double* zp = z.ref().data;
  double* pp = p.ref().data;
  double* qp = q.ref().data;
  auto restart = [&] {
    op.precondition(r.ref(), z.ref());
    copy(z.ref(), p.ref());
    return dot(n, rp, zp);
  };
  double rz = restart();
  while (s.iterations < options.max_iter) {
    op.apply(p.ref(), q.ref());
    const double alpha = rz / dot(n, pp, qp);
    axpy(n, alpha, pp, x);
    axpy(n, -alpha, qp, rp);
    ++s.iterations;
    if (norm2(n, rp) / bnorm[0] <= options.tol) {
      if (op.residual(bb, xb, r.ref(), bnorm) <= options.tol) break;
      rz = restart();  // the recurrence drifted: continue from the true residual
      continue;
    }
    op.precondition(r.ref(), z.ref());
    const double rz_next = dot(n, rp, zp);
    scal(n, rz_next / rz, pp);
    axpy(n, 1, zp, pp);
    rz = rz_next;
  }
  s.residual = op.residual(bb, xb, r.ref(), bnorm);
  s.converged = s.residual <= options.tol;
  s.seconds = seconds_since(t0);
  return s;
}

namespace {

// Block CG's iteration on an operator (the body of block_cg(), and LOBPCG's inner solve).
// X starts at 0; stops when every column meets tol, by the recurrence and then by an
// explicitly recomputed residual, or after max_iter iterations.
struct BlockCgRun {
  int iterations = 0;
  double residual = 0;  ///< recomputed: max_j ||b_j - A x_j|| / ||b_j||
};
BlockCgRun block_cg_run(Operator& op, const BlockRef& b, const BlockRef& x, double tol,
                        int max_iter) {
  BlockCgRun s;
  const int k = b.cols;
  const std::int64_t n = b.rows;
  Block r(n, k), z(n, k), p(n, k), q(n, k);
  for (int j = 0; j < k; ++j) std::fill(x.col(j), x.col(j) + n, 0.0);
  copy(b, r.ref());
  std::vector<double> bnorm(static_cast<std::size_t>(k));
  for (int j = 0; j < k; ++j) bnorm[static_cast<std::size_t>(j)] = norm2(n, b.col(j));
  auto restart = [&] {
    op.precondition(r.ref(), p.ref());
    return orthonormalize(p.ref(), {}, kRankTol);
  };
  int rank = recurrence_residual(r.ref(), bnorm) <= tol ? 0 : restart();
  while (rank > 0 && s.iterations < max_iter) {
    const BlockRef pr = p.sub(0, rank), qr = q.sub(0, rank);
    op.apply(pr, qr);
    Small ptq = gram(pr, qr);
    symmetrize(ptq);
    if (!cholesky(ptq))
      throw mimd::RuntimeFailure("block_cg: P^T A P is not positive definite at iteration " +
                                 std::to_string(s.iterations) + " (is A SPD?)");
    Small alpha = gram(pr, r.ref());
    cholesky_solve(ptq, alpha);
    update(1, pr, alpha, 1, x);
    update(-1, qr, alpha, 1, r.ref());
    ++s.iterations;
    if (recurrence_residual(r.ref(), bnorm) <= tol) {
      if (op.residual(b, x, r.ref(), bnorm) <= tol) break;
      rank = restart();
      continue;
    }
    op.precondition(r.ref(), z.ref());
    // The next block, A-conjugate to P: Z - P (P^T A P)^{-1} (A P)^T Z.
    Small beta = gram(qr, z.ref());
    cholesky_solve(ptq, beta);
    update(-1, pr, beta, 1, z.ref());
    std::swap(p, z);
    rank = orthonormalize(p.ref(), {}, kRankTol);
  }
  s.residual = op.residual(b, x, r.ref(), bnorm);
  return s;
}

}  // namespace

SolveStats block_cg(const mimd::ExecutionContext& ctx, const Matrix& a, const BlockRef& b,
                    const BlockRef& x, const SolverOptions& options) {
  if (b.cols != x.cols || b.rows != a.nrows || x.rows != a.ncols)
    throw mimd::DimensionMismatch(
        "block_cg", "A " + std::to_string(a.nrows) + " x " + std::to_string(a.ncols) + ", B " +
                        std::to_string(b.rows) + " x " + std::to_string(b.cols) + ", X " +
                        std::to_string(x.rows) + " x " + std::to_string(x.cols));
  SolveStats s;
  const auto t0 = Clock::now();
  Operator op(ctx, a, b.cols, options, s);
  const BlockCgRun run = block_cg_run(op, b, x, options.tol, options.max_iter);
  s.iterations = run.iterations;
  s.residual = run.residual;
  s.converged = s.residual <= options.tol;
  s.seconds = seconds_since(t0);
  return s;
}

EigenResult lobpcg(const mimd::ExecutionContext& ctx, const Matrix& a, int nev, int guard,
                   const SolverOptions& options, std::uint64_t seed) {
  const std::int64_t n = a.nrows;
  const int m = nev + guard;
  if (nev < 1 || guard < 0 || 3 * static_cast<std::int64_t>(m) > n)
    throw mimd::InvalidArgument(
        "lobpcg: nev = " + std::to_string(nev) + ", guard = " + std::to_string(guard) +
        " for n = " + std::to_string(n) + " (need nev >= 1, guard >= 0, 3 (nev + guard) <= n)");
  EigenResult out;
  SolveStats& s = out.stats;
  const auto t0 = Clock::now();
  Operator op(ctx, a, m, options, s);
  Block x(n, m), ax(n, m), w(n, m), aw(n, m), p(n, m), ap(n, m), r(n, m), z(n, m), sb(n, 3 * m),
      asb(n, 3 * m);
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> uni(-1, 1);
  for (double& v : x.storage) v = uni(gen);
  if (orthonormalize(x.ref(), {}, kRankTol) != m)
    throw mimd::RuntimeFailure("lobpcg: the random start block is rank deficient");
  op.apply(x.ref(), ax.ref());

  // Rayleigh-Ritz on span(X) alone to start.
  Small h = gram(x.ref(), ax.ref());
  symmetrize(h);
  std::vector<double> theta = symmetric_eigen(h, true);
  update(1, x.ref(), h, 0, sb.sub(0, m));
  copy(sb.sub(0, m), x.ref());
  update(1, ax.ref(), h, 0, sb.sub(0, m));
  copy(sb.sub(0, m), ax.ref());

  std::vector<double> res(static_cast<std::size_t>(m));
  auto residuals = [&] {  // R = AX - X Theta and the relative residual of each pair
    copy(ax.ref(), r.ref());
    for (int j = 0; j < m; ++j) {
      axpy(n, -theta[static_cast<std::size_t>(j)], x.ref().col(j), r.ref().col(j));
      res[static_cast<std::size_t>(j)] =
          norm2(n, r.ref().col(j)) /
          (std::abs(theta[static_cast<std::size_t>(j)]) * norm2(n, x.ref().col(j)));
    }
    return *std::max_element(res.begin(), res.begin() + nev);
  };
  auto gather = [](const BlockRef& from, const std::vector<int>& cols, const BlockRef& to) {
    for (std::size_t t = 0; t < cols.size(); ++t)
      copy(from.sub(cols[t], 1), to.sub(static_cast<int>(t), 1));
  };
  int np = 0;  // columns of P in use
  while (residuals() > options.tol && s.iterations < options.max_iter) {
    std::vector<int> active;  // soft locking: converged pairs get no new directions
    for (int j = 0; j < m; ++j)
      if (res[static_cast<std::size_t>(j)] > options.tol) active.push_back(j);
    const int na = static_cast<int>(active.size());
    if (np > 0) {
      // P restricted to the active pairs, in place (active is increasing), orthonormal.
      gather(p.ref(), active, p.ref());
      gather(ap.ref(), active, ap.ref());
      np = orthonormalize(p.sub(0, na), ap.sub(0, na), kRankTol);
    }
    const BlockRef wa = w.sub(0, na);
    if (options.inner_tol > 0) {
      // W ~ A^{-1} R: block CG on the active residuals (Jacobi inside when set).
      gather(r.ref(), active, z.sub(0, na));
      s.inner_iterations +=
          block_cg_run(op, z.sub(0, na), wa, options.inner_tol, options.inner_max_iter).iterations;
    } else {
      gather(r.ref(), active, wa);
      op.precondition(wa, wa);
    }
    for (int pass = 0; pass < 2; ++pass) {
      update(-1, x.ref(), gram(x.ref(), wa), 1, wa);
      if (np > 0) update(-1, p.sub(0, np), gram(p.sub(0, np), wa), 1, wa);
    }
    const int nw = orthonormalize(wa, {}, kRankTol);
    op.apply(w.sub(0, nw), aw.sub(0, nw));

    // Rayleigh-Ritz on span[X W P]; without P when its Gram matrix is not SPD.
    copy(x.ref(), sb.sub(0, m));
    copy(ax.ref(), asb.sub(0, m));
    copy(w.sub(0, nw), sb.sub(m, nw));
    copy(aw.sub(0, nw), asb.sub(m, nw));
    copy(p.sub(0, np), sb.sub(m + nw, np));
    copy(ap.sub(0, np), asb.sub(m + nw, np));
    int dim = 0;
    Small ga, gb;
    std::vector<double> all;
    for (int use_p = np > 0 ? 1 : 0; use_p >= 0; --use_p) {
      dim = m + nw + (use_p ? np : 0);
      ga = gram(sb.sub(0, dim), asb.sub(0, dim));
      gb = gram(sb.sub(0, dim), sb.sub(0, dim));
      symmetrize(ga);
      symmetrize(gb);
      if (generalized_eigen(ga, gb, all)) break;
      if (use_p == 0)
        throw mimd::RuntimeFailure(
            "lobpcg: the Rayleigh-Ritz Gram matrix of [X W] is not "
            "positive definite at iteration " +
            std::to_string(s.iterations));
    }
    Small c(dim, m), cp(dim - m, m);
    for (int j = 0; j < m; ++j)
      for (int i = 0; i < dim; ++i) {
        c(i, j) = ga(i, j);
        if (i >= m) cp(i - m, j) = ga(i, j);
      }
    theta.assign(all.begin(), all.begin() + m);
    update(1, sb.sub(m, dim - m), cp, 0, p.ref());
    update(1, asb.sub(m, dim - m), cp, 0, ap.ref());
    update(1, sb.sub(0, dim), c, 0, x.ref());
    update(1, asb.sub(0, dim), c, 0, ax.ref());
    np = m;
    ++s.iterations;
  }
  // The wanted pairs' residuals from a fresh product, not the updated A X.
  op.apply(x.ref(), ax.ref());
  s.residual = residuals();
  s.converged = s.residual <= options.tol;
  out.values.assign(theta.begin(), theta.begin() + nev);
  out.vectors = Block(n, nev);
  copy(x.sub(0, nev), out.vectors.ref());
  s.seconds = seconds_since(t0);
  return out;
}

std::vector<double> dense_eigenvalues(const mimd::HostCsr<double>& a) {
  Small d(a.nrows, a.ncols);
  for (std::int32_t i = 0; i < a.nrows; ++i)
    for (std::int64_t p = a.row_map(i); p < a.row_map(i + 1); ++p)
      d(i, a.entries(p)) += a.values(p);
  return symmetric_eigen(d, false);
}

}  // namespace mimd_examples
