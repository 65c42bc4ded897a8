// Iterative solvers built on the public mimd API only: conjugate gradients with SpMV
// (an SpmmPlan applied to one column), block conjugate gradients with SpMM for k
// right-hand sides, and LOBPCG for the few smallest eigenpairs of an SPD matrix.
// Dense blocks are column-major host arrays (dense.hpp): the examples need a default
// memory space the host can read (OpenMP, Serial, Threads), which solvers.cpp checks
// at compile time.
#pragma once
#include <mimd/context.hpp>
#include <mimd/spmm.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "dense.hpp"

namespace mimd_examples {

using Matrix = mimd::Csr<double>;

/// What every solver reports. Times are wall-clock seconds; spmm_seconds is the part
/// spent inside SpmmPlan::apply.
struct SolveStats {
  int iterations = 0;
  bool converged = false;
  /// CG / block CG: max over columns of ||b - A x|| / ||b||, recomputed with a fresh
  /// product at the end (not the recurrence's). LOBPCG: max over the wanted pairs of
  /// ||A x - lambda x|| / (|lambda| ||x||), likewise recomputed.
  double residual = 0;
  double seconds = 0;
  double spmm_seconds = 0;
  int spmm_calls = 0;
  /// LOBPCG with an inner solve (SolverOptions::inner_tol): block CG iterations in all.
  int inner_iterations = 0;
};

struct SolverOptions {
  double tol = 1e-8;  ///< relative residual (CG) or eigen-residual (LOBPCG) to reach
  int max_iter = 20000;
  bool jacobi = false;  ///< diagonal (Jacobi) preconditioning M = diag(A)
  /// LOBPCG: when > 0, the preconditioner is an inner block CG solve A W = R to this
  /// relative residual (Jacobi-preconditioned when `jacobi`), at most inner_max_iter
  /// iterations, instead of W = M^{-1} R. An approximate inverse makes the outer
  /// iteration count nearly independent of A's condition number.
  double inner_tol = 0;
  int inner_max_iter = 1000;
  /// SpMM options; the kernel under test. Reference gives the check on iteration counts.
  mimd::SpmmOptions spmm;
};

/// Preconditioned CG for A x = b (A SPD), x starting at 0. b and x hold n entries.
/// Converged when ||r|| / ||b|| <= tol by the recurrence and then by an explicitly
/// recomputed residual (else the iteration continues from the recomputed one).
/// @throws mimd::InvalidArgument for a zero diagonal entry when jacobi is set
SolveStats cg(const mimd::ExecutionContext& ctx, const Matrix& a, const double* b, double* x,
              const SolverOptions& options);

/// Block CG (O'Leary 1980) for A X = B with k right-hand sides, X starting at 0, in the
/// breakdown-free form of Ji & Li (2017): the search block is orthonormalised every
/// iteration by rank-revealing Cholesky QR (dpstrf), so columns that converge or become
/// dependent drop out instead of making P^T A P singular. alpha and beta come from
/// Cholesky solves with P^T A P (dpotrf/dpotrs). Converged when every column meets
/// ||r_j|| / ||b_j|| <= tol (recomputed explicitly as for cg()).
SolveStats block_cg(const mimd::ExecutionContext& ctx, const Matrix& a, const BlockRef& b,
                    const BlockRef& x, const SolverOptions& options);

struct EigenResult {
  std::vector<double> values;  ///< the nev smallest eigenvalues, ascending
  Block vectors;               ///< n x nev, orthonormal
  SolveStats stats;
};

/// LOBPCG (Knyazev 2001) for the nev smallest eigenpairs of an SPD matrix, block size
/// nev + guard, with the safeguards of Hetmaniuk & Lehoucq (2006): soft locking (a
/// converged pair keeps its place in the Rayleigh-Ritz basis but gets no new
/// directions), W orthogonalised against X and P and orthonormalised (rank-revealing
/// Cholesky QR), P orthonormalised with A P updated by the same transform, and a
/// Rayleigh-Ritz step by dsygv that restarts without P when the basis Gram matrix is
/// not numerically positive definite. Jacobi preconditioning when options.jacobi; an
/// inner block CG solve (on A, Jacobi inside when options.jacobi) when options.inner_tol
/// is set (a preconditioner that varies from call to call, which LOBPCG's Rayleigh-Ritz
/// step tolerates).
/// Converged when every wanted pair meets ||A x - lambda x|| / (|lambda| ||x||) <= tol.
/// @throws mimd::InvalidArgument for nev < 1 or nev + guard > n
EigenResult lobpcg(const mimd::ExecutionContext& ctx, const Matrix& a, int nev, int guard,
                   const SolverOptions& options, std::uint64_t seed = 20260101);

/// All eigenvalues of a (small) symmetric matrix, ascending, by dense dsyev.
std::vector<double> dense_eigenvalues(const mimd::HostCsr<double>& a);

}  // namespace mimd_examples
