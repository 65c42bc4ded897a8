// Dense building blocks of the example solvers: tall-skinny blocks stored column-major
// (n x k, leading dimension n) and the small k x k algebra around them, all through
// the reference BLAS/LAPACK interface (Debian liblapack-dev with libblas-dev or
// OpenBLAS). Nothing here factorises or diagonalises by hand.
#pragma once
#include <cstdint>
#include <vector>

namespace mimd_examples {

/// A column-major block of `cols` columns of length `rows`, columns `ld` apart.
struct BlockRef {
  double* data = nullptr;
  std::int64_t rows = 0;
  int cols = 0;
  std::int64_t ld = 0;
  double* col(int j) const { return data + static_cast<std::int64_t>(j) * ld; }
  /// Columns [first, first + count) of this block.
  BlockRef sub(int first, int count) const { return {col(first), rows, count, ld}; }
};

/// Owning column-major block (n x k, ld = n), zero-initialised.
struct Block {
  std::vector<double> storage;
  std::int64_t rows = 0;
  int cols = 0;
  Block() = default;
  Block(std::int64_t n, int k)
      : storage(static_cast<std::size_t>(n) * static_cast<std::size_t>(k), 0.0), rows(n), cols(k) {}
  BlockRef ref() { return {storage.data(), rows, cols, rows}; }
  BlockRef sub(int first, int count) { return ref().sub(first, count); }
};

/// A small column-major matrix (r x c, ld = r).
struct Small {
  std::vector<double> a;
  int r = 0, c = 0;
  Small() = default;
  Small(int rows, int cols)
      : a(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols), 0.0), r(rows), c(cols) {}
  double& operator()(int i, int j) { return a[static_cast<std::size_t>(j) * r + i]; }
  double operator()(int i, int j) const { return a[static_cast<std::size_t>(j) * r + i]; }
};

double dot(std::int64_t n, const double* x, const double* y);         ///< x . y
double norm2(std::int64_t n, const double* x);                        ///< ||x||_2
void axpy(std::int64_t n, double alpha, const double* x, double* y);  ///< y += alpha x
void scal(std::int64_t n, double alpha, double* x);                   ///< x *= alpha

/// G = X^T Y (X: n x a, Y: n x b; G: a x b).
Small gram(const BlockRef& x, const BlockRef& y);
/// Y = alpha X C + beta Y (X: n x a, C: a x b, Y: n x b).
void update(double alpha, const BlockRef& x, const Small& c, double beta, const BlockRef& y);
/// Copies the columns of `from` into `to` (same shape).
void copy(const BlockRef& from, const BlockRef& to);

/// Cholesky factorisation G = U^T U in place (dpotrf, upper). False when G is not
/// numerically positive definite.
bool cholesky(Small& g);
/// B <- G^{-1} B with G's Cholesky factor from cholesky() (dpotrs).
void cholesky_solve(const Small& u, Small& b);

/// An orthonormal basis of span(Z) in place, by Cholesky QR with pivoting (dpstrf on
/// Z^T Z, column directions whose Gram pivot falls below rank_tol * the largest are
/// dropped: the rank-revealing step of breakdown-free block CG, Ji & Li 2017), then a
/// second unpivoted Cholesky QR pass to restore orthogonality lost to conditioning.
/// The same column transform is applied to `az` when it has columns (keeping AZ = A Z
/// without another SpMM). Zero columns are allowed (they are dropped).
/// @return the rank r; the basis is in columns [0, r) of Z (and AZ)
int orthonormalize(const BlockRef& z, const BlockRef& az, double rank_tol);

/// Eigenvalues (ascending) and, when `vectors`, eigenvectors (overwriting `a`) of a
/// symmetric matrix (dsyev). @throws std::runtime_error when dsyev fails
std::vector<double> symmetric_eigen(Small& a, bool vectors);
/// The generalized problem A c = theta B c with B SPD (dsygv, type 1). Eigenvectors
/// overwrite `a`, B-orthonormal. False when B is not positive definite (or dsygv fails).
bool generalized_eigen(Small& a, Small& b, std::vector<double>& theta);

}  // namespace mimd_examples
