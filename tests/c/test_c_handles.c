/* The persistent handles of the C interface, compiled as C: a CSR matrix from int32 or
 * int64 offsets and float or double values (zero-copy or converted), SpMM plans applied
 * many times on every algorithm and both layouts, BFS runners on many sources, and the
 * argument checks (NULL, negative, out of range) with their messages.
 * Prints one line per check; returns non-zero when any check fails. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "mimd/mimd.h"

/* A (4 x 3): row 0 = {0: 1, 2: 2}, row 1 empty, row 2 = {1: 3}, row 3 = {0: 4, 1: 5, 2: 6}.
 * B (3 x 2) = [1 2; 3 4; 5 6], so A * B = [11 14; 0 0; 9 12; 49 64]. */
static const int64_t rm64[] = {0, 2, 2, 3, 6};
static const int32_t rm32[] = {0, 2, 2, 3, 6};
static const int32_t cols[] = {0, 2, 1, 0, 1, 2};
static const double b_dense[3][2] = {{1, 2}, {3, 4}, {5, 6}};
static const double ab[4][2] = {{11, 14}, {0, 0}, {9, 12}, {49, 64}};

/* Applies `plan` (double) to B in `layout` with beta = 0 and NaN in C; checks
 * scale * A * B exactly (small integers). */
static int applies_d(mimd_spmm_plan_t plan, mimd_layout_t layout, double scale) {
  double b[6], c[8];
  int i, j, ok = 1;
  const int row = layout == MIMD_ROW_MAJOR;
  for (i = 0; i < 3; ++i)
    for (j = 0; j < 2; ++j) b[row ? i * 2 + j : j * 3 + i] = b_dense[i][j];
  for (i = 0; i < 8; ++i) c[i] = NAN;
  if (mimd_spmm_plan_apply_d(plan, 2, 1.0, b, row ? 2 : 3, 0.0, c, row ? 2 : 4) != MIMD_SUCCESS)
    return 0;
  for (i = 0; i < 4; ++i)
    for (j = 0; j < 2; ++j) ok = ok && c[row ? i * 2 + j : j * 4 + i] == scale * ab[i][j];
  return ok;
}

static void test_spmm_plans(mimd_context_t ctx) {
  const char* algorithms[] = {NULL, "reference", "row_parallel", "merge_path", "lssm", "auto"};
  const mimd_layout_t layouts[] = {MIMD_ROW_MAJOR, MIMD_COL_MAJOR};
  double vals[] = {1, 2, 3, 4, 5, 6};
  mimd_csr_t a64 = NULL, a32 = NULL;
  int zero_copy = -1, round, v;
  int64_t nrows = 0, ncols = 0, nnz = 0;
  size_t i, l;
  mimd_status_t s;

  s = mimd_csr_create(ctx, 4, 3, 6, MIMD_INT64, rm64, cols, MIMD_DOUBLE, vals, &a64);
  CHECK(s == MIMD_SUCCESS && mimd_csr_info(a64, &nrows, &ncols, &nnz, &zero_copy) == MIMD_SUCCESS &&
            nrows == 4 && ncols == 3 && nnz == 6,
        "csr from int64 offsets: 4 x 3, 6 entries (%s)", mimd_last_error(NULL));
  CHECK(zero_copy == 1, "int64 offsets and double values are used in place (zero_copy %d)",
        zero_copy);
  s = mimd_csr_create(ctx, 4, 3, 6, MIMD_INT32, rm32, cols, MIMD_DOUBLE, vals, &a32);
  CHECK(s == MIMD_SUCCESS && mimd_csr_info(a32, NULL, NULL, NULL, &zero_copy) == MIMD_SUCCESS &&
            zero_copy == 0,
        "csr from int32 offsets: converted copy (zero_copy %d)", zero_copy);

  for (i = 0; i < sizeof algorithms / sizeof *algorithms; ++i)
    for (l = 0; l < 2; ++l) {
      const char* name = algorithms[i] ? algorithms[i] : "NULL";
      mimd_spmm_plan_t p64 = NULL, p32 = NULL;
      const char* text = NULL;
      int ok = 1;
      s = mimd_spmm_plan_create(a64, algorithms[i], layouts[l], 2, &p64);
      CHECK(s == MIMD_SUCCESS &&
                mimd_spmm_plan_create(a32, algorithms[i], layouts[l], 2, &p32) == MIMD_SUCCESS,
            "plans %s, %s (%s)", name, l ? "col-major" : "row-major", mimd_last_error(NULL));
      CHECK(mimd_spmm_plan_describe(p64, &text) == MIMD_SUCCESS && text != NULL &&
                (algorithms[i] == NULL || strcmp(algorithms[i], "auto") == 0 ||
                 strncmp(text, algorithms[i], strlen(algorithms[i])) == 0),
            "plan %s describes itself: '%s'", name, text ? text : "(null)");
      /* Inspect once, apply many: the values change in place between the applies. */
      for (round = 1; round <= 3; ++round) {
        for (v = 0; v < 6; ++v) vals[v] = (v + 1) * round;
        ok = ok && applies_d(p64, layouts[l], round);
      }
      for (v = 0; v < 6; ++v) vals[v] = v + 1;
      ok = ok && applies_d(p32, layouts[l], 1);
      CHECK(ok, "plan %s %s: three applies with new values, int32 offsets too", name,
            l ? "col-major" : "row-major");
      mimd_spmm_plan_destroy(p64);
      mimd_spmm_plan_destroy(p32);
    }
  mimd_csr_destroy(a32);
  mimd_csr_destroy(a64);
}

static void test_float_plan(mimd_context_t ctx) {
  const float fvals[] = {1, 2, 3, 4, 5, 6};
  const float b[3] = {1, 1, 1};
  const float want[4] = {3, 0, 3, 15};
  float c[4] = {7, 7, 7, 7};
  double cd[4];
  mimd_csr_t a = NULL;
  mimd_spmm_plan_t p = NULL;
  mimd_status_t s;
  /* The plan outlives the matrix handle: it keeps what it needs. */
  s = mimd_csr_create(ctx, 4, 3, 6, MIMD_INT64, rm64, cols, MIMD_FLOAT, fvals, &a);
  CHECK(
      s == MIMD_SUCCESS && mimd_spmm_plan_create(a, "lssm", MIMD_COL_MAJOR, 1, &p) == MIMD_SUCCESS,
      "float csr and plan (%s)", mimd_last_error(NULL));
  mimd_csr_destroy(a);
  s = mimd_spmm_plan_apply_s(p, 1, 2.0f, b, 3, 1.0f, c, 4);
  CHECK(s == MIMD_SUCCESS && c[0] == 2 * want[0] + 7 && c[1] == 7 && c[3] == 2 * want[3] + 7,
        "float SpMV C = 2 A b + C after the csr handle is destroyed");
  check_error(NULL, mimd_spmm_plan_apply_d(p, 1, 1.0, (const double*)b, 3, 0.0, cd, 4),
              MIMD_INVALID_ARGUMENT, "mimd_spmm_plan_apply_s", "double apply on a float plan");
  check_error(NULL, mimd_spmm_plan_apply_s(p, -1, 1.0f, b, 3, 0.0f, c, 4), MIMD_INVALID_ARGUMENT,
              "k = -1", "negative k");
  check_error(NULL, mimd_spmm_plan_apply_s(p, 1, 1.0f, b, 2, 0.0f, c, 4), MIMD_INVALID_ARGUMENT,
              "ldb = 2 (min 3)", "ldb too small");
  check_error(NULL, mimd_spmm_plan_apply_s(p, 1, 1.0f, NULL, 3, 0.0f, c, 4), MIMD_INVALID_ARGUMENT,
              "B or C is null", "NULL B");
  mimd_spmm_plan_destroy(p);
}

static void test_handle_errors(mimd_context_t ctx) {
  const double vals[] = {1, 2, 3, 4, 5, 6};
  const int32_t broken[] = {0, 2, 1, 0, 3, 2};
  mimd_csr_t a = NULL, pattern = NULL;
  mimd_spmm_plan_t p = NULL;
  mimd_bfs_runner_t r = NULL;
  const char* text = NULL;
  check_error(NULL, mimd_csr_create(NULL, 4, 3, 6, MIMD_INT64, rm64, cols, MIMD_DOUBLE, vals, &a),
              MIMD_INVALID_ARGUMENT, "ctx is NULL", "csr: NULL ctx");
  check_error(ctx, mimd_csr_create(ctx, 4, 3, 6, MIMD_INT64, rm64, cols, MIMD_DOUBLE, vals, NULL),
              MIMD_INVALID_ARGUMENT, "csr is NULL", "csr: NULL output");
  check_error(ctx, mimd_csr_create(ctx, -1, 3, 6, MIMD_INT64, rm64, cols, MIMD_DOUBLE, vals, &a),
              MIMD_INVALID_ARGUMENT, "nrows = -1", "csr: negative nrows");
  CHECK(a == NULL, "no handle after a failed create");
  check_error(NULL, mimd_csr_create(ctx, 4, -3, 6, MIMD_INT64, rm64, cols, MIMD_DOUBLE, vals, &a),
              MIMD_INVALID_ARGUMENT, "ncols = -3", "csr: negative ncols, thread's message");
  check_error(ctx, mimd_csr_create(ctx, 4, 3, -6, MIMD_INT64, rm64, cols, MIMD_DOUBLE, vals, &a),
              MIMD_INVALID_ARGUMENT, "nnz = -6", "csr: negative nnz");
  check_error(
      ctx,
      mimd_csr_create(ctx, (int64_t)1 << 31, 3, 6, MIMD_INT64, rm64, cols, MIMD_DOUBLE, vals, &a),
      MIMD_INVALID_ARGUMENT, "nrows = 2147483648",
      "csr: nrows above INT32_MAX, before "
      "row_map is read");
  check_error(ctx, mimd_csr_create(ctx, 4, 3, 6, (mimd_type_t)7, rm64, cols, MIMD_DOUBLE, vals, &a),
              MIMD_INVALID_ARGUMENT, "offset_type = 7", "csr: bad offset type");
  check_error(ctx, mimd_csr_create(ctx, 4, 3, 6, MIMD_INT64, rm64, cols, MIMD_INT32, vals, &a),
              MIMD_INVALID_ARGUMENT, "value_type = 0", "csr: integer values");
  check_error(ctx, mimd_csr_create(ctx, 4, 3, 6, MIMD_INT64, NULL, cols, MIMD_DOUBLE, vals, &a),
              MIMD_INVALID_ARGUMENT, "row_map is NULL", "csr: NULL row_map");
  check_error(ctx, mimd_csr_create(ctx, 4, 3, 6, MIMD_INT64, rm64, NULL, MIMD_DOUBLE, vals, &a),
              MIMD_INVALID_ARGUMENT, "col_idx is NULL", "csr: NULL col_idx");
  check_error(ctx, mimd_csr_create(ctx, 4, 3, 6, MIMD_INT64, rm64, broken, MIMD_DOUBLE, vals, &a),
              MIMD_INVALID_MATRIX, "column 3", "csr: column outside [0, ncols)");
  check_error(ctx, mimd_csr_create(ctx, 4, 3, 5, MIMD_INT64, rm64, cols, MIMD_DOUBLE, vals, &a),
              MIMD_INVALID_MATRIX, "row_map", "csr: nnz disagrees with row_map[nrows]");

  CHECK(mimd_csr_create(ctx, 4, 3, 6, MIMD_INT64, rm64, cols, MIMD_DOUBLE, NULL, &pattern) ==
            MIMD_SUCCESS,
        "pattern handle (values NULL)");
  check_error(NULL, mimd_spmm_plan_create(pattern, NULL, MIMD_ROW_MAJOR, 1, &p),
              MIMD_INVALID_ARGUMENT, "pattern", "plan: no values");
  CHECK(p == NULL, "no plan after a failed create");
  check_error(NULL, mimd_spmm_plan_create(NULL, NULL, MIMD_ROW_MAJOR, 1, &p), MIMD_INVALID_ARGUMENT,
              "a is NULL", "plan: NULL matrix");
  check_error(NULL, mimd_spmm_plan_create(pattern, NULL, MIMD_ROW_MAJOR, 1, NULL),
              MIMD_INVALID_ARGUMENT, "plan is NULL", "plan: NULL output");
  CHECK(
      mimd_csr_create(ctx, 4, 3, 6, MIMD_INT64, rm64, cols, MIMD_DOUBLE, vals, &a) == MIMD_SUCCESS,
      "valid csr");
  check_error(NULL, mimd_spmm_plan_create(a, NULL, (mimd_layout_t)5, 1, &p), MIMD_INVALID_ARGUMENT,
              "layout = 5", "plan: bad layout");
  check_error(NULL, mimd_spmm_plan_create(a, NULL, MIMD_ROW_MAJOR, 0, &p), MIMD_INVALID_ARGUMENT,
              "k_hint = 0", "plan: k_hint 0");
  check_error(NULL, mimd_spmm_plan_create(a, "fastest", MIMD_ROW_MAJOR, 1, &p),
              MIMD_INVALID_ARGUMENT, "merge_path", "plan: unknown algorithm lists the names");
  check_error(NULL, mimd_spmm_plan_apply_d(NULL, 1, 1.0, NULL, 1, 0.0, NULL, 1),
              MIMD_INVALID_ARGUMENT, "plan is NULL", "apply: NULL plan");
  check_error(NULL, mimd_spmm_plan_describe(NULL, &text), MIMD_INVALID_ARGUMENT, "plan is NULL",
              "describe: NULL plan");
  check_error(NULL, mimd_csr_info(NULL, NULL, NULL, NULL, NULL), MIMD_INVALID_ARGUMENT,
              "csr is NULL", "info: NULL csr");
  check_error(NULL, mimd_bfs_runner_create(a, NULL, 1, &r), MIMD_INVALID_ARGUMENT, "square",
              "runner: 4 x 3 graph");
  check_error(NULL, mimd_bfs_runner_create(NULL, NULL, 1, &r), MIMD_INVALID_ARGUMENT,
              "graph is NULL", "runner: NULL graph");
  check_error(NULL, mimd_bfs_runner_run(NULL, 0, NULL, NULL, NULL), MIMD_INVALID_ARGUMENT,
              "runner is NULL", "run: NULL runner");
  CHECK(mimd_csr_destroy(NULL) == MIMD_SUCCESS && mimd_spmm_plan_destroy(NULL) == MIMD_SUCCESS &&
            mimd_bfs_runner_destroy(NULL) == MIMD_SUCCESS,
        "destroy(NULL) is a no-op for every handle");
  mimd_csr_destroy(pattern);
  mimd_csr_destroy(a);
}

static void test_bfs_runner(mimd_context_t ctx) {
  /* Undirected path 0-1-2-3 plus isolated 4, int32 offsets, no values. */
  const int32_t rm[] = {0, 1, 3, 5, 6, 6};
  const int32_t adj[] = {1, 0, 2, 1, 3, 2};
  const int32_t want_depths[4][5] = {
      {0, 1, 2, 3, -1}, {1, 0, 1, 2, -1}, {2, 1, 0, 1, -1}, {3, 2, 1, 0, -1}};
  const char* algorithms[] = {NULL, "reference", "top_down", "bottom_up", "direction_optimizing"};
  int32_t parents[5], depths[5];
  int64_t reached = 0;
  mimd_csr_t g = NULL;
  size_t i;
  int src;
  CHECK(mimd_csr_create(ctx, 5, 5, 6, MIMD_INT32, rm, adj, MIMD_DOUBLE, NULL, &g) == MIMD_SUCCESS,
        "graph handle from int32 offsets (%s)", mimd_last_error(NULL));
  for (i = 0; i < sizeof algorithms / sizeof *algorithms; ++i) {
    const char* name = algorithms[i] ? algorithms[i] : "NULL";
    mimd_bfs_runner_t r = NULL, dr = NULL;
    int ok = 1;
    CHECK(mimd_bfs_runner_create(g, algorithms[i], 1, &r) == MIMD_SUCCESS &&
              mimd_bfs_runner_create(g, algorithms[i], 0, &dr) == MIMD_SUCCESS,
          "runners %s (%s)", name, mimd_last_error(NULL));
    for (src = 0; src < 4; ++src) {
      ok = ok && mimd_bfs_runner_run(r, src, parents, depths, &reached) == MIMD_SUCCESS &&
           same_i32(depths, want_depths[src], 5) && reached == 4 && parents[src] == src &&
           (src == 0 || parents[0] == 1) && parents[4] == -1;
      ok = ok && mimd_bfs_runner_run(dr, src, NULL, depths, NULL) == MIMD_SUCCESS &&
           same_i32(depths, want_depths[src], 5);
    }
    CHECK(ok, "runner %s: four sources, undirected and directed, parents and depths", name);
    check_error(NULL, mimd_bfs_runner_run(r, 5, parents, depths, NULL), MIMD_INVALID_ARGUMENT,
                "source = 5 is outside [0, 5)", "run: source outside the graph");
    check_error(NULL, mimd_bfs_runner_run(r, -1, parents, depths, NULL), MIMD_INVALID_ARGUMENT,
                "source = -1", "run: negative source");
    mimd_bfs_runner_destroy(dr);
    mimd_bfs_runner_destroy(r);
  }
  mimd_csr_destroy(g);
}

int main(void) {
  mimd_context_t ctx = NULL;
  const mimd_status_t s = mimd_context_create(0, &ctx);
  CHECK(s == MIMD_SUCCESS, "context created (%s)", mimd_last_error(NULL));
  if (s != MIMD_SUCCESS) return 1;
  test_spmm_plans(ctx);
  test_float_plan(ctx);
  test_handle_errors(ctx);
  test_bfs_runner(ctx);
  mimd_context_destroy(ctx);
  return check_summary();
}
