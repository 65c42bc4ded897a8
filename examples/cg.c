/* mimd-cg-c: conjugate gradients in C through mimd.h's persistent handles: the matrix
 * is handed over once (mimd_csr_create, zero-copy), inspected once
 * (mimd_spmm_plan_create) and applied every iteration (mimd_spmm_plan_apply_d, k = 1);
 * the vector operations are plain loops.
 *
 * Usage: mimd-cg-c MATRIX [--jacobi] [--tol T]
 *   MATRIX: stencil3d:N (the 7-point 3D Poisson stencil of mimd-solve's stencil3d:N:7:
 *           diagonal 6, off-diagonals -1, Dirichlet boundary) or a Matrix Market file.
 * Solves A x = b for b = ones (mimd-solve --rhs-ones solves the same system) from x = 0
 * to the relative residual ||b - A x|| / ||b|| <= T (1e-8), recomputed with a fresh
 * product at the end. Prints one line (iterations, residual, time per iteration, SpMV
 * share). Exit status: 0 converged, 1 not converged or an error, 2 bad usage, 77 the
 * matrix file is absent. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, access */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mimd/mimd.h"

typedef struct {
  int64_t n, nnz;
  int64_t* row_map;
  int32_t* col_idx;
  double* values;
} Matrix;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The 7-point stencil on an n^3 grid, natural ordering, columns sorted. */
static int stencil3d(int64_t g, Matrix* a) {
  const int64_t n = g * g * g;
  int64_t r, x, y, z, j = 0;
  a->n = n;
  a->row_map = malloc((size_t)(n + 1) * sizeof(int64_t));
  a->col_idx = malloc((size_t)(7 * n) * sizeof(int32_t));
  a->values = malloc((size_t)(7 * n) * sizeof(double));
  if (!a->row_map || !a->col_idx || !a->values) return 0;
  a->row_map[0] = 0;
  for (r = 0; r < n; ++r) {
    x = r % g;
    y = (r / g) % g;
    z = r / (g * g);
#define MIMD_ENTRY(cond, col, v)    \
  if (cond) {                       \
    a->col_idx[j] = (int32_t)(col); \
    a->values[j++] = (v);           \
  }
    MIMD_ENTRY(z > 0, r - g * g, -1.0)
    MIMD_ENTRY(y > 0, r - g, -1.0)
    MIMD_ENTRY(x > 0, r - 1, -1.0)
    MIMD_ENTRY(1, r, 6.0)
    MIMD_ENTRY(x < g - 1, r + 1, -1.0)
    MIMD_ENTRY(y < g - 1, r + g, -1.0)
    MIMD_ENTRY(z < g - 1, r + g * g, -1.0)
#undef MIMD_ENTRY
    a->row_map[r + 1] = j;
  }
  a->nnz = j;
  return 1;
}

static double dot(int64_t n, const double* x, const double* y) {
  double s = 0;
  int64_t i;
  for (i = 0; i < n; ++i) s += x[i] * y[i];
  return s;
}

/* z = M^{-1} r: inv_diag NULL is no preconditioning. */
static void precondition(int64_t n, const double* inv_diag, const double* r, double* z) {
  int64_t i;
  for (i = 0; i < n; ++i) z[i] = inv_diag ? inv_diag[i] * r[i] : r[i];
}

typedef struct {
  mimd_spmm_plan_t plan; /* column-major, as mimd-solve's */
  int64_t n;
  double seconds; /* spent in the applies */
} Operator;

/* y = A x. */
static int apply(Operator* op, const double* x, double* y) {
  const double t0 = now();
  const mimd_status_t s = mimd_spmm_plan_apply_d(op->plan, 1, 1.0, x, op->n, 0.0, y, op->n);
  op->seconds += now() - t0;
  if (s != MIMD_SUCCESS) fprintf(stderr, "%s\n", mimd_last_error(NULL));
  return s == MIMD_SUCCESS;
}

/* r = b - A x; returns ||r|| / bnorm, or -1 when the product failed. */
static double residual(Operator* op, int64_t n, const double* b, const double* x, double* r,
                       double bnorm) {
  int64_t i;
  if (!apply(op, x, r)) return -1;
  for (i = 0; i < n; ++i) r[i] = b[i] - r[i];
  return sqrt(dot(n, r, r)) / bnorm;
}

int main(int argc, char** argv) {
  const char* spec = NULL;
  int jacobi = 0, it = 0, argi, ok = 1, zero_copy = 0, usage = 0;
  double tol = 1e-8, res = 0, bnorm, rz, t0, total;
  const int max_iter = 100000;
  Matrix a = {0, 0, NULL, NULL, NULL};
  mimd_context_t ctx = NULL;
  mimd_csr_t csr = NULL;
  Operator op = {NULL, 0, 0};
  double *b, *x, *r, *z, *p, *q, *inv_diag = NULL;
  int64_t i, k;

  for (argi = 1; argi < argc; ++argi) {
    if (strcmp(argv[argi], "--jacobi") == 0)
      jacobi = 1;
    else if (strcmp(argv[argi], "--tol") == 0 && argi + 1 < argc)
      tol = atof(argv[++argi]);
    else if (spec == NULL && argv[argi][0] != '-')
      spec = argv[argi];
    else
      usage = 1;
  }
  if (usage || spec == NULL || !(tol > 0)) {
    fprintf(stderr, "usage: %s MATRIX (stencil3d:N or a .mtx file) [--jacobi] [--tol T]\n",
            argv[0]);
    return 2;
  }
  /* An absent file is a skip, decided before anything is created that would need freeing. */
  if (strncmp(spec, "stencil3d:", 10) != 0 && access(spec, R_OK) != 0) {
    printf("SKIPPED: %s is absent\n", spec);
    return 77;
  }
  if (mimd_context_create(0, &ctx) != MIMD_SUCCESS) {
    fprintf(stderr, "%s\n", mimd_last_error(NULL));
    return 1;
  }
  if (strncmp(spec, "stencil3d:", 10) == 0) {
    const long g = atol(spec + 10);
    if (g < 1 || g > 1024 || !stencil3d(g, &a)) {
      fprintf(stderr, "%s: grid size in [1, 1024] wanted (or out of memory)\n", spec);
      return 1;
    }
  } else {
    int64_t ncols = 0;
    if (mimd_read_matrix_market_d(ctx, spec, &a.n, &ncols, &a.nnz, &a.row_map, &a.col_idx,
                                  &a.values) != MIMD_SUCCESS) {
      fprintf(stderr, "%s\n", mimd_last_error(ctx));
      return 1;
    }
  }
  /* The matrix once, inspected once. */
  if (mimd_csr_create(ctx, a.n, a.n, a.nnz, MIMD_INT64, a.row_map, a.col_idx, MIMD_DOUBLE, a.values,
                      &csr) != MIMD_SUCCESS ||
      mimd_csr_info(csr, NULL, NULL, NULL, &zero_copy) != MIMD_SUCCESS ||
      mimd_spmm_plan_create(csr, NULL, MIMD_COL_MAJOR, 1, &op.plan) != MIMD_SUCCESS) {
    fprintf(stderr, "%s\n", mimd_last_error(NULL));
    return 1;
  }
  op.n = a.n;
  b = malloc((size_t)a.n * sizeof(double));
  x = calloc((size_t)a.n, sizeof(double));
  r = malloc((size_t)a.n * sizeof(double));
  z = malloc((size_t)a.n * sizeof(double));
  p = malloc((size_t)a.n * sizeof(double));
  q = malloc((size_t)a.n * sizeof(double));
  if (!b || !x || !r || !z || !p || !q) return 1;
  if (jacobi) {
    inv_diag = calloc((size_t)a.n, sizeof(double));
    if (!inv_diag) return 1;
    for (i = 0; i < a.n; ++i) {
      for (k = a.row_map[i]; k < a.row_map[i + 1]; ++k)
        if (a.col_idx[k] == i) inv_diag[i] += a.values[k];
      if (!(inv_diag[i] > 0)) {
        fprintf(stderr, "Jacobi: diagonal of row %lld is %g (not SPD)\n", (long long)i,
                inv_diag[i]);
        return 1;
      }
      inv_diag[i] = 1 / inv_diag[i];
    }
  }

  t0 = now();
  for (i = 0; i < a.n; ++i) b[i] = r[i] = 1.0;
  bnorm = sqrt(dot(a.n, b, b));
  precondition(a.n, inv_diag, r, z);
  memcpy(p, z, (size_t)a.n * sizeof(double));
  rz = dot(a.n, r, z);
  while (it < max_iter && ok) {
    double alpha, rz_next;
    ok = apply(&op, p, q);
    alpha = rz / dot(a.n, p, q);
    for (i = 0; i < a.n; ++i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
    }
    ++it;
    if (sqrt(dot(a.n, r, r)) / bnorm <= tol) {
      res = residual(&op, a.n, b, x, r, bnorm);
      if (res <= tol) break;
      /* The recurrence drifted: continue from the true residual. */
      precondition(a.n, inv_diag, r, z);
      memcpy(p, z, (size_t)a.n * sizeof(double));
      rz = dot(a.n, r, z);
      continue;
    }
    precondition(a.n, inv_diag, r, z);
    rz_next = dot(a.n, r, z);
    for (i = 0; i < a.n; ++i) p[i] = z[i] + rz_next / rz * p[i];
    rz = rz_next;
  }
  res = residual(&op, a.n, b, x, r, bnorm);
  total = now() - t0;
  ok = ok && res >= 0 && res <= tol;
  printf(
      "cg-c %-22s n=%-8lld nnz=%-9lld iters=%-6d residual=%.2e  %8.3f ms/iter  SpMV %4.1f%%  "
      "zero_copy=%d  %s\n",
      spec, (long long)a.n, (long long)a.nnz, it, res, 1e3 * total / (it > 0 ? it : 1),
      total > 0 ? 100 * op.seconds / total : 0.0, zero_copy, ok ? "converged" : "NOT CONVERGED");

  mimd_spmm_plan_destroy(op.plan);
  mimd_csr_destroy(csr);
  mimd_context_destroy(ctx);
  free(b);
  free(x);
  free(r);
  free(z);
  free(p);
  free(q);
  free(inv_diag);
  mimd_free(a.row_map);
  mimd_free(a.col_idx);
  mimd_free(a.values);
  return ok ? 0 : 1;
}
