/* The C interface, compiled as C: statuses, messages, SpMM on every algorithm and both
 * layouts, BFS on undirected and directed graphs, the Matrix Market reader.
 * Usage: test_c_api SCRATCH_DIR (where the test writes its small input files).
 * Prints one line per check; returns non-zero when any check fails. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mimd/mimd.h"

/* A (4 x 3): row 0 = {0: 1, 2: 2}, row 1 empty, row 2 = {1: 3}, row 3 = {0: 4, 1: 5, 2: 6}.
 * B (3 x 2) = [1 2; 3 4; 5 6], so A * B = [11 14; 0 0; 9 12; 49 64]. */
static const int64_t a_row_map[] = {0, 2, 2, 3, 6};
static const int32_t a_cols[] = {0, 2, 1, 0, 1, 2};
static const double a_vals[] = {1, 2, 3, 4, 5, 6};
static const double b_dense[3][2] = {{1, 2}, {3, 4}, {5, 6}};
static const double ab[4][2] = {{11, 14}, {0, 0}, {9, 12}, {49, 64}};

/* Runs C = alpha A B + beta C with padded leading dimensions and checks every element
 * (small integers: exact) and that the padding is untouched. */
static void check_spmm(mimd_context_t ctx, const char* algorithm, mimd_layout_t layout,
                       double alpha, double beta, double c0) {
  const int64_t m = 4, n = 3, k = 2;
  const int64_t ldb = layout == MIMD_ROW_MAJOR ? k + 1 : n + 1;
  const int64_t ldc = layout == MIMD_ROW_MAJOR ? k + 2 : m + 2;
  double b[16], c[16];
  const double pad = -777;
  int i, j, ok = 1;
  for (i = 0; i < 16; ++i) b[i] = c[i] = pad;
  for (i = 0; i < n; ++i)
    for (j = 0; j < k; ++j) b[layout == MIMD_ROW_MAJOR ? i * ldb + j : j * ldb + i] = b_dense[i][j];
  for (i = 0; i < m; ++i)
    for (j = 0; j < k; ++j) c[layout == MIMD_ROW_MAJOR ? i * ldc + j : j * ldc + i] = c0;
  mimd_status_t s = mimd_spmm_d(ctx, algorithm, layout, m, n, k, alpha, a_row_map, a_cols, a_vals,
                                b, ldb, beta, c, ldc);
  for (i = 0; i < m; ++i)
    for (j = 0; j < k; ++j) {
      const double want = alpha * ab[i][j] + (beta == 0 ? 0 : beta * c0);
      const double got = c[layout == MIMD_ROW_MAJOR ? i * ldc + j : j * ldc + i];
      if (got != want) {
        printf("  C(%d,%d) = %g, expected %g\n", i, j, got, want);
        ok = 0;
      }
    }
  for (i = 0; i < 16; ++i) {
    const int in_c =
        layout == MIMD_ROW_MAJOR ? (i / ldc < m && i % ldc < k) : (i / ldc < k && i % ldc < m);
    if (!in_c && c[i] != pad) ok = 0;
  }
  CHECK(s == MIMD_SUCCESS && ok, "spmm_d %s %s alpha=%g beta=%g C0=%g (%s)",
        algorithm ? algorithm : "NULL", layout == MIMD_ROW_MAJOR ? "row-major" : "col-major", alpha,
        beta, c0, s == MIMD_SUCCESS ? "values checked" : mimd_last_error(ctx));
}

static void test_spmm(mimd_context_t ctx) {
  const char* algorithms[] = {NULL, "reference", "row_parallel", "merge_path", "lssm", "auto"};
  size_t i;
  double b[6] = {1, 2, 3, 4, 5, 6}, c[8];
  float bs[6] = {1, 2, 3, 4, 5, 6}, cs[8];
  const float as[6] = {1, 2, 3, 4, 5, 6};
  int ok = 1;
  for (i = 0; i < sizeof algorithms / sizeof *algorithms; ++i) {
    check_spmm(ctx, algorithms[i], MIMD_ROW_MAJOR, 2.0, 3.0, 1.0);
    check_spmm(ctx, algorithms[i], MIMD_COL_MAJOR, 2.0, 3.0, 1.0);
    check_spmm(ctx, algorithms[i], MIMD_ROW_MAJOR, 1.0, 0.0, NAN); /* beta = 0 overwrites NaN */
    check_spmm(ctx, algorithms[i], MIMD_COL_MAJOR, -1.0, 0.0, NAN);
  }

  CHECK(mimd_spmm_s(ctx, "lssm", MIMD_ROW_MAJOR, 4, 3, 2, 1.0f, a_row_map, a_cols, as, bs, 2, 0.0f,
                    cs, 2) == MIMD_SUCCESS,
        "spmm_s runs");
  for (i = 0; i < 8; ++i) ok = ok && cs[i] == (float)ab[i / 2][i % 2];
  CHECK(ok, "spmm_s values");

  check_error(ctx,
              mimd_spmm_d(ctx, "fastest", MIMD_ROW_MAJOR, 4, 3, 2, 1.0, a_row_map, a_cols, a_vals,
                          b, 2, 0.0, c, 2),
              MIMD_INVALID_ARGUMENT, "lssm", "unknown algorithm lists the valid names");
  check_error(ctx,
              mimd_spmm_d(ctx, NULL, MIMD_ROW_MAJOR, 4, 3, 2, 1.0, a_row_map, a_cols, a_vals, b, 1,
                          0.0, c, 2),
              MIMD_INVALID_ARGUMENT, "mimd_spmm_d", "ldb smaller than k");
  check_error(
      ctx,
      mimd_spmm_d(ctx, NULL, MIMD_ROW_MAJOR, 4, 3, 2, 1.0, NULL, a_cols, a_vals, b, 2, 0.0, c, 2),
      MIMD_INVALID_ARGUMENT, "mimd_spmm_d", "NULL row_map");
  {
    const int32_t bad_cols[] = {0, 2, 1, 0, 3, 2};
    check_error(ctx,
                mimd_spmm_d(ctx, "lssm", MIMD_ROW_MAJOR, 4, 3, 2, 1.0, a_row_map, bad_cols, a_vals,
                            b, 2, 0.0, c, 2),
                MIMD_INVALID_MATRIX, "entries[4] (row 3)", "column index out of range");
  }
  check_error(ctx,
              mimd_spmm_d(ctx, NULL, (mimd_layout_t)7, 4, 3, 2, 1.0, a_row_map, a_cols, a_vals, b,
                          2, 0.0, c, 2),
              MIMD_INVALID_ARGUMENT, "layout = 7", "out-of-range layout rejected as an integer");
  /* Found by trying the tools: scalar arguments are checked before any array is read
   * (a_row_map has 5 entries; reading row_map[m] would be out of bounds). */
  check_error(ctx,
              mimd_spmm_d(ctx, NULL, MIMD_ROW_MAJOR, (int64_t)1 << 31, 3, 2, 1.0, a_row_map, a_cols,
                          a_vals, b, 2, 0.0, c, 2),
              MIMD_INVALID_ARGUMENT, "m = 2147483648", "m = 2^31 rejected before row_map[m]");
  check_error(ctx,
              mimd_spmm_d(ctx, NULL, MIMD_ROW_MAJOR, 4, -3, 2, 1.0, a_row_map, a_cols, a_vals, b, 2,
                          0.0, c, 2),
              MIMD_INVALID_ARGUMENT, "n = -3", "n = -3 is an invalid argument, not a matrix");
  check_error(ctx,
              mimd_spmm_d(ctx, NULL, MIMD_COL_MAJOR, 1000, 3, 2, 1.0, a_row_map, a_cols, a_vals, b,
                          3, 0.0, c, 4),
              MIMD_INVALID_ARGUMENT, "ldc = 4 (min 1000)", "ldc checked before row_map[m]");
  check_error(NULL,
              mimd_spmm_d(NULL, NULL, MIMD_ROW_MAJOR, 4, 3, 2, 1.0, a_row_map, a_cols, a_vals, b, 2,
                          0.0, c, 2),
              MIMD_INVALID_ARGUMENT, "ctx is NULL", "NULL context");
}

static void test_bfs(mimd_context_t ctx) {
  /* Undirected: 0-1, 1-2, 1-3, vertex 4 isolated (both directions stored). */
  const int64_t u_row_map[] = {0, 1, 4, 5, 6, 6};
  const int32_t u_cols[] = {1, 0, 2, 3, 1, 1};
  const int32_t u_parents[] = {0, 0, 1, 1, -1};
  const int32_t u_depths[] = {0, 1, 2, 2, -1};
  /* Directed: 0->1, 1->2, 2->0, 3->0 (3 is not reachable from 0). */
  const int64_t d_row_map[] = {0, 1, 2, 3, 4};
  const int32_t d_cols[] = {1, 2, 0, 0};
  const int32_t d_parents[] = {0, 0, 1, -1};
  const int32_t d_depths[] = {0, 1, 2, -1};
  const int32_t broken_cols[] = {1, 0, 2, 9, 1, 1};
  const char* algorithms[] = {NULL, "reference", "top_down", "bottom_up", "direction_optimizing"};
  int32_t parents[5], depths[5];
  int64_t reached = 0;
  size_t i;
  mimd_status_t s;
  for (i = 0; i < sizeof algorithms / sizeof *algorithms; ++i) {
    const char* name = algorithms[i] ? algorithms[i] : "NULL";
    s = mimd_bfs(ctx, algorithms[i], 5, u_row_map, u_cols, 1, 0, parents, depths, &reached);
    CHECK(s == MIMD_SUCCESS && same_i32(parents, u_parents, 5) && same_i32(depths, u_depths, 5) &&
              reached == 4,
          "bfs %s undirected: parents, depths, reached (%s)", name, mimd_status_string(s));
    s = mimd_bfs(ctx, algorithms[i], 4, d_row_map, d_cols, 0, 0, parents, depths, &reached);
    CHECK(s == MIMD_SUCCESS && same_i32(parents, d_parents, 4) && same_i32(depths, d_depths, 4) &&
              reached == 3,
          "bfs %s directed: parents, depths, reached (%s)", name, mimd_status_string(s));
  }
  s = mimd_bfs(ctx, NULL, 5, u_row_map, u_cols, 1, 2, NULL, depths, NULL);
  CHECK(s == MIMD_SUCCESS && depths[2] == 0 && depths[0] == 2 && depths[4] == -1,
        "bfs with depths only");
  check_error(ctx, mimd_bfs(ctx, NULL, 5, u_row_map, u_cols, 1, 5, parents, depths, NULL),
              MIMD_INVALID_ARGUMENT, "mimd_bfs", "source outside the graph");
  /* u_row_map has 6 entries: the source is checked before row_map[n] is read. */
  check_error(ctx, mimd_bfs(ctx, NULL, 1000000, u_row_map, u_cols, 1, -1, parents, depths, NULL),
              MIMD_INVALID_ARGUMENT, "source = -1 is outside [0, 1000000)",
              "source checked before row_map[n]");
  check_error(ctx, mimd_bfs(ctx, NULL, 5, u_row_map, broken_cols, 1, 0, parents, depths, NULL),
              MIMD_INVALID_MATRIX, "column 9", "column index out of range");
  check_error(ctx, mimd_bfs(ctx, "sideways", 5, u_row_map, u_cols, 1, 0, parents, depths, NULL),
              MIMD_INVALID_ARGUMENT, "top_down", "unknown BFS algorithm");
  check_error(ctx, mimd_bfs(ctx, NULL, 5, NULL, u_cols, 1, 0, parents, depths, NULL),
              MIMD_INVALID_ARGUMENT, "row_map is NULL", "NULL row_map");
}

static int write_file(const char* path, const char* text) {
  FILE* f = fopen(path, "w");
  if (!f) return 0;
  fputs(text, f);
  return fclose(f) == 0;
}

static void test_read(mimd_context_t ctx, const char* dir) {
  char good[1024], bad[1024], missing[1024];
  int64_t nrows = -1, ncols = -1, nnz = -1, *row_map = NULL;
  int32_t* cols = NULL;
  double* vals = NULL;
  mimd_status_t s;
  snprintf(good, sizeof good, "%s/c_api_good.mtx", dir);
  snprintf(bad, sizeof bad, "%s/c_api_bad.mtx", dir);
  snprintf(missing, sizeof missing, "%s/c_api_missing.mtx", dir);
  CHECK(write_file(good,
                   "%%MatrixMarket matrix coordinate real symmetric\n"
                   "% lower triangle of a 3 x 3 matrix\n"
                   "3 3 3\n1 1 2.0\n2 1 -1.0\n3 3 4.5\n") &&
            write_file(bad,
                       "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n"
                       "1 x 2.0\n"),
        "scratch files written in %s", dir);

  s = mimd_read_matrix_market_d(ctx, good, &nrows, &ncols, &nnz, &row_map, &cols, &vals);
  CHECK(s == MIMD_SUCCESS && nrows == 3 && ncols == 3 && nnz == 4, "read symmetric file: %s",
        s == MIMD_SUCCESS ? "3 x 3, 4 entries" : mimd_last_error(ctx));
  if (s == MIMD_SUCCESS && nnz == 4) {
    const int64_t want_rm[] = {0, 2, 3, 4};
    const int32_t want_cols[] = {0, 1, 0, 2};
    const double want_vals[] = {2.0, -1.0, -1.0, 4.5};
    int ok = 1, i;
    for (i = 0; i < 4; ++i)
      ok = ok && row_map[i] == want_rm[i] && cols[i] == want_cols[i] && vals[i] == want_vals[i];
    CHECK(ok, "read symmetric file: mirrored entries, sorted columns");
  }
  mimd_free(row_map);
  mimd_free(cols);
  mimd_free(vals);

  s = mimd_read_matrix_market_d(ctx, bad, &nrows, &ncols, &nnz, &row_map, &cols, &vals);
  check_error(ctx, s, MIMD_PARSE_ERROR, "c_api_bad.mtx:4", "malformed entry names file and line");
  CHECK(row_map == NULL && cols == NULL && vals == NULL && nnz == 0,
        "outputs cleared after a parse error");
  s = mimd_read_matrix_market_d(ctx, missing, &nrows, &ncols, &nnz, &row_map, &cols, &vals);
  check_error(ctx, s, MIMD_IO_ERROR, "c_api_missing.mtx", "missing file");
  check_error(ctx,
              mimd_read_matrix_market_d(ctx, NULL, &nrows, &ncols, &nnz, &row_map, &cols, &vals),
              MIMD_INVALID_ARGUMENT, "NULL", "NULL path");
  remove(good);
  remove(bad);
}

int main(int argc, char** argv) {
  mimd_context_t ctx = NULL;
  int threads = 0;
  mimd_status_t s;
  if (argc != 2) {
    fprintf(stderr, "usage: %s SCRATCH_DIR\n", argv[0]);
    return 2;
  }
  CHECK(strcmp(mimd_status_string(MIMD_PARSE_ERROR), "MIMD_PARSE_ERROR") == 0 &&
            strcmp(mimd_status_string((mimd_status_t)99), "MIMD_UNKNOWN_STATUS") == 0,
        "status names");
  CHECK(strlen(mimd_version()) >= 5, "version %s", mimd_version());
  check_error(NULL, mimd_context_create(-3, &ctx), MIMD_INVALID_ARGUMENT, "num_threads = -3",
              "negative thread count");
  CHECK(ctx == NULL, "no context after a failed create");
  check_error(NULL, mimd_context_create(0, NULL), MIMD_INVALID_ARGUMENT, "ctx is NULL",
              "NULL output");
  s = mimd_context_create(0, &ctx);
  CHECK(s == MIMD_SUCCESS && ctx != NULL, "context created (%s)",
        s == MIMD_SUCCESS ? "no error" : mimd_last_error(NULL));
  if (s != MIMD_SUCCESS) return 1;
  CHECK(mimd_context_num_threads(ctx, &threads) == MIMD_SUCCESS && threads >= 1, "%d threads",
        threads);
  CHECK(strcmp(mimd_last_error(ctx), "") == 0, "no message before a failure");

  test_spmm(ctx);
  test_bfs(ctx);
  test_read(ctx, argv[1]);

  CHECK(mimd_context_destroy(ctx) == MIMD_SUCCESS, "context destroyed");
  return check_summary();
}
