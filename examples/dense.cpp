#include "dense.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mimd/error.hpp>

#include <string>

extern "C" {
double ddot_(const int* n, const double* x, const int* incx, const double* y, const int* incy);
double dnrm2_(const int* n, const double* x, const int* incx);
void daxpy_(const int* n, const double* a, const double* x, const int* incx, double* y,
            const int* incy);
void dscal_(const int* n, const double* a, double* x, const int* incx);
void dgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k,
            const double* alpha, const double* a, const int* lda, const double* b, const int* ldb,
            const double* beta, double* c, const int* ldc);
void dtrsm_(const char* side, const char* uplo, const char* ta, const char* diag, const int* m,
            const int* n, const double* alpha, const double* a, const int* lda, double* b,
            const int* ldb);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info);
void dpotrs_(const char* uplo, const int* n, const int* nrhs, const double* a, const int* lda,
             double* b, const int* ldb, int* info);
void dpstrf_(const char* uplo, const int* n, double* a, const int* lda, int* piv, int* rank,
             const double* tol, double* work, int* info);
void dsyev_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w,
            double* work, const int* lwork, int* info);
void dsygv_(const int* itype, const char* jobz, const char* uplo, const int* n, double* a,
            const int* lda, double* b, const int* ldb, double* w, double* work, const int* lwork,
            int* info);
}

namespace mimd_examples {
namespace {

// The reference BLAS interface takes 32-bit sizes: vectors longer than that are
// handled in pieces, tall blocks are refused (the examples stay far below).
int blas_int(std::int64_t v) {
  if (v > 2147483647)
    throw mimd::InvalidArgument("BLAS size " + std::to_string(v) + " exceeds int32");
  return static_cast<int>(v);
}
constexpr std::int64_t kChunk = std::int64_t(1) << 30;
const int kOne = 1;

}  // namespace

double dot(std::int64_t n, const double* x, const double* y) {
  double s = 0;
  for (std::int64_t i = 0; i < n; i += kChunk) {
    const int len = static_cast<int>(std::min(kChunk, n - i));
    s += ddot_(&len, x + i, &kOne, y + i, &kOne);
  }
  return s;
}

double norm2(std::int64_t n, const double* x) {
  return std::sqrt(dot(n, x, x));
}

void axpy(std::int64_t n, double alpha, const double* x, double* y) {
  for (std::int64_t i = 0; i < n; i += kChunk) {
    const int len = static_cast<int>(std::min(kChunk, n - i));
    daxpy_(&len, &alpha, x + i, &kOne, y + i, &kOne);
  }
}

void scal(std::int64_t n, double alpha, double* x) {
  for (std::int64_t i = 0; i < n; i += kChunk) {
    const int len = static_cast<int>(std::min(kChunk, n - i));
    dscal_(&len, &alpha, x + i, &kOne);
  }
}

Small gram(const BlockRef& x, const BlockRef& y) {
  Small g(x.cols, y.cols);
  if (x.cols == 0 || y.cols == 0) return g;
  const int n = blas_int(x.rows), a = x.cols, b = y.cols, lx = blas_int(x.ld), ly = blas_int(y.ld);
  const double one = 1, zero = 0;
  dgemm_("T", "N", &a, &b, &n, &one, x.data, &lx, y.data, &ly, &zero, g.a.data(), &a);
  return g;
}

void update(double alpha, const BlockRef& x, const Small& c, double beta, const BlockRef& y) {
  if (y.cols == 0) return;
  if (x.cols == 0) {
    for (int j = 0; j < y.cols; ++j) scal(y.rows, beta, y.col(j));
    return;
  }
  const int n = blas_int(y.rows), a = x.cols, b = y.cols, lx = blas_int(x.ld), ly = blas_int(y.ld);
  dgemm_("N", "N", &n, &b, &a, &alpha, x.data, &lx, c.a.data(), &c.r, &beta, y.data, &ly);
}

void copy(const BlockRef& from, const BlockRef& to) {
  for (int j = 0; j < from.cols; ++j)
    if (to.col(j) != from.col(j))
      std::memcpy(to.col(j), from.col(j), static_cast<std::size_t>(from.rows) * sizeof(double));
}

bool cholesky(Small& g) {
  int info = 0;
  dpotrf_("U", &g.r, g.a.data(), &g.r, &info);
  return info == 0;
}

void cholesky_solve(const Small& u, Small& b) {
  int info = 0;
  dpotrs_("U", &u.r, &b.c, u.a.data(), &u.r, b.a.data(), &b.r, &info);
  if (info != 0) throw mimd::RuntimeFailure("dpotrs failed, info = " + std::to_string(info));
}

namespace {

// Z <- Z U^{-1} for the r x r upper factor stored in u (leading dimension u.r).
void right_solve(const Small& u, int r, const BlockRef& z) {
  if (r == 0 || z.cols == 0) return;
  const int n = blas_int(z.rows), ld = blas_int(z.ld);
  const double one = 1;
  dtrsm_("R", "U", "N", "N", &n, &r, &one, u.a.data(), &u.r, z.data, &ld);
}

// Columns of z reordered so that column j becomes column piv[j] - 1's content.
void permute_columns(const BlockRef& z, const std::vector<int>& piv, int r) {
  if (z.cols == 0) return;
  std::vector<double> tmp(static_cast<std::size_t>(z.rows) * static_cast<std::size_t>(r));
  for (int j = 0; j < r; ++j)
    std::memcpy(tmp.data() + static_cast<std::size_t>(j) * z.rows, z.col(piv[j] - 1),
                static_cast<std::size_t>(z.rows) * sizeof(double));
  for (int j = 0; j < r; ++j)
    std::memcpy(z.col(j), tmp.data() + static_cast<std::size_t>(j) * z.rows,
                static_cast<std::size_t>(z.rows) * sizeof(double));
}

}  // namespace

int orthonormalize(const BlockRef& z, const BlockRef& az, double rank_tol) {
  const int k = z.cols;
  if (k == 0) return 0;
  // Unit columns first: a small (nearly converged) column is not a dependent one.
  for (int j = 0; j < k; ++j) {
    const double nj = norm2(z.rows, z.col(j));
    if (nj > 0) {
      scal(z.rows, 1 / nj, z.col(j));
      if (az.cols > 0) scal(az.rows, 1 / nj, az.col(j));
    }
  }
  Small g = gram(z, z);
  double gmax = 0;
  for (int j = 0; j < k; ++j) gmax = std::max(gmax, g(j, j));
  if (gmax == 0) return 0;
  std::vector<int> piv(static_cast<std::size_t>(k));
  std::vector<double> work(2 * static_cast<std::size_t>(k));
  int rank = 0, info = 0;
  const double tol = rank_tol * gmax;
  dpstrf_("U", &k, g.a.data(), &k, piv.data(), &rank, &tol, work.data(), &info);
  if (info < 0) throw mimd::RuntimeFailure("dpstrf failed, info = " + std::to_string(info));
  permute_columns(z, piv, rank);
  right_solve(g, rank, z.sub(0, rank));
  if (az.cols > 0) {
    permute_columns(az, piv, rank);
    right_solve(g, rank, az.sub(0, rank));
  }
  // Second pass (CholQR2): the first leaves an orthogonality error of about
  // eps * cond(Z)^2, which this pass removes.
  Small g2 = gram(z.sub(0, rank), z.sub(0, rank));
  if (!cholesky(g2)) throw mimd::RuntimeFailure("orthonormalize: second Cholesky QR pass failed");
  right_solve(g2, rank, z.sub(0, rank));
  if (az.cols > 0) right_solve(g2, rank, az.sub(0, rank));
  return rank;
}

std::vector<double> symmetric_eigen(Small& a, bool vectors) {
  const int n = a.r;
  std::vector<double> w(static_cast<std::size_t>(n));
  if (n == 0) return w;
  int info = 0, lwork = -1;
  double query = 0;
  const char* jobz = vectors ? "V" : "N";
  dsyev_(jobz, "U", &n, a.a.data(), &n, w.data(), &query, &lwork, &info);
  lwork = static_cast<int>(query);
  std::vector<double> work(static_cast<std::size_t>(std::max(1, lwork)));
  dsyev_(jobz, "U", &n, a.a.data(), &n, w.data(), work.data(), &lwork, &info);
  if (info != 0) throw mimd::RuntimeFailure("dsyev failed, info = " + std::to_string(info));
  return w;
}

bool generalized_eigen(Small& a, Small& b, std::vector<double>& theta) {
  const int n = a.r, itype = 1;
  theta.assign(static_cast<std::size_t>(n), 0.0);
  int info = 0, lwork = -1;
  double query = 0;
  dsygv_(&itype, "V", "U", &n, a.a.data(), &n, b.a.data(), &n, theta.data(), &query, &lwork, &info);
  lwork = static_cast<int>(query);
  std::vector<double> work(static_cast<std::size_t>(std::max(1, lwork)));
  dsygv_(&itype, "V", "U", &n, a.a.data(), &n, b.a.data(), &n, theta.data(), work.data(), &lwork,
         &info);
  return info == 0;
}

}  // namespace mimd_examples
