/* The C interface of mimd-kernels: SpMM, BFS and the Matrix Market reader on plain
 * arrays, behind an opaque context.
 *
 * Conventions (as in GraphBLAS / LAGraph):
 *  - every call returns a mimd_status_t; MIMD_SUCCESS is 0;
 *  - on failure, mimd_last_error(ctx) gives the complete message (which file, line,
 *    extents...) of the last failed call made with `ctx`; calls that fail before a
 *    context exists (or with ctx == NULL) leave their message in a per-thread slot
 *    read by mimd_last_error(NULL);
 *  - no C++ exception ever crosses this interface; output arguments are left
 *    untouched or zeroed (documented per call) when a call fails;
 *  - a context may be used by one thread at a time; several contexts may coexist and
 *    share the process' single Kokkos runtime (initialised by the first context,
 *    finalised at process exit).
 *
 * Matrices are 0-based CSR: row_map has nrows + 1 64-bit offsets (row_map[0] == 0),
 * col_idx and values have row_map[nrows] entries; column indices are 32-bit.
 * The arrays are checked once per call (O(nnz)); a message about a broken matrix
 * names col_idx "entries" (e.g. "entries[4] (row 2): column 7 outside [0, 3)").
 */
#ifndef MIMD_MIMD_H
#define MIMD_MIMD_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mimd_status_t {
  MIMD_SUCCESS = 0,
  MIMD_INVALID_ARGUMENT = 1,   /* an argument outside the documented preconditions */
  MIMD_DIMENSION_MISMATCH = 2, /* operand extents do not agree (message gives them all) */
  MIMD_INVALID_MATRIX = 3,     /* CSR arrays break an invariant (offsets, column range) */
  MIMD_PARSE_ERROR = 4,        /* malformed input file ("file:line: kind: detail") */
  MIMD_IO_ERROR = 5,           /* a file could not be opened or read */
  MIMD_RUNTIME_FAILURE = 6,    /* the machine refused something (hwloc, binding) */
  MIMD_OUT_OF_MEMORY = 7,      /* an allocation failed (std::bad_alloc, Kokkos' included) */
  MIMD_INTERNAL_ERROR = 8      /* a bug in mimd-kernels: please report the message */
} mimd_status_t;

/* The name of a status, e.g. "MIMD_PARSE_ERROR"; "MIMD_UNKNOWN_STATUS" otherwise. */
const char* mimd_status_string(mimd_status_t status);

/* The library version, "major.minor.patch". */
const char* mimd_version(void);

typedef struct mimd_context_s* mimd_context_t;

/* Creates a context: initialises Kokkos when nobody has, discovers the topology and
 * binds the worker threads (one per core).
 * num_threads: worker threads, 0 = one per core; ignored when the caller initialised
 *              Kokkos itself.
 * ctx:         receives the new context (NULL on failure).
 * Errors: MIMD_INVALID_ARGUMENT (ctx NULL, negative or too many threads),
 *         MIMD_RUNTIME_FAILURE (hwloc or binding failure). */
mimd_status_t mimd_context_create(int num_threads, mimd_context_t* ctx);

/* Destroys a context (NULL is accepted and ignored). */
mimd_status_t mimd_context_destroy(mimd_context_t ctx);

/* The message of the last failed call made with `ctx` ("" if none failed), or with
 * ctx == NULL the last failure of this thread that had no context. The pointer stays
 * valid until the next call with the same context (or thread). */
const char* mimd_last_error(mimd_context_t ctx);

/* The threads the context runs on. */
mimd_status_t mimd_context_num_threads(mimd_context_t ctx, int* num_threads);

/* ---- SpMM: C = alpha * A * B + beta * C ----------------------------------------- */

typedef enum mimd_layout_t {
  MIMD_ROW_MAJOR = 0, /* element (i, j) at i * ld + j, ld >= columns */
  MIMD_COL_MAJOR = 1  /* element (i, j) at j * ld + i, ld >= rows */
} mimd_layout_t;

/* A is m x n in CSR (row_map, col_idx, values), B is n x k, C is m x k, both dense in
 * `layout` with leading dimensions ldb and ldc. beta = 0 overwrites C (NaN included).
 * The arrays are used in place (not copied); offsets and column indices are checked
 * (one pass over them) before the product. Needs a host-accessible default memory
 * space (an OpenMP, Threads or Serial build of Kokkos): MIMD_INVALID_ARGUMENT otherwise.
 * algorithm: "reference", "row_parallel", "merge_path", "lssm", "lssm_team", "auto", or NULL
 * (auto).
 * The scalar arguments (layout, m, n, k, ldb, ldc) are checked before any array is
 * read: a layout other than the two below, or m or n above INT32_MAX, is rejected.
 * Errors: MIMD_INVALID_ARGUMENT (NULL pointers, negative sizes, m or n > INT32_MAX, ld
 *         too small, bad layout, unknown algorithm: the message lists the valid names),
 *         MIMD_DIMENSION_MISMATCH, MIMD_INVALID_MATRIX, MIMD_OUT_OF_MEMORY.
 *         C is unspecified on failure. */
mimd_status_t mimd_spmm_d(mimd_context_t ctx, const char* algorithm, mimd_layout_t layout,
                          int64_t m, int64_t n, int64_t k, double alpha, const int64_t* row_map,
                          const int32_t* col_idx, const double* values, const double* b,
                          int64_t ldb, double beta, double* c, int64_t ldc);
mimd_status_t mimd_spmm_s(mimd_context_t ctx, const char* algorithm, mimd_layout_t layout,
                          int64_t m, int64_t n, int64_t k, float alpha, const int64_t* row_map,
                          const int32_t* col_idx, const float* values, const float* b, int64_t ldb,
                          float beta, float* c, int64_t ldc);

/* ---- BFS -------------------------------------------------------------------------- */

/* Breadth-first search from `source` on the graph of n vertices whose out-edges are
 * the CSR pattern (row_map, col_idx). The arrays are copied and checked (offsets
 * non-decreasing, columns in [0, n)); they are not modified.
 * undirected: non-zero when the pattern is symmetric (both directions stored), which
 *             lets bottom-up steps reuse it; zero for a directed graph (the in-edges
 *             are built by transposition).
 * algorithm:  "reference", "top_down", "bottom_up", "direction_optimizing", or NULL
 *             (direction_optimizing).
 * parents:    NULL, or n entries: parent of each vertex, parents[source] = source,
 *             -1 for vertices not reached.
 * depths:     NULL, or n entries: hops from the source, -1 for vertices not reached.
 * reached:    NULL, or receives the number of vertices reached (source included).
 * n and source are checked before any array is read.
 * Errors: MIMD_INVALID_ARGUMENT (NULL arrays, n < 0, source outside [0, n), unknown
 *         algorithm), MIMD_INVALID_MATRIX (broken CSR arrays), MIMD_OUT_OF_MEMORY (the
 *         copies of the arrays or the search's state could not be allocated). */
mimd_status_t mimd_bfs(mimd_context_t ctx, const char* algorithm, int32_t n, const int64_t* row_map,
                       const int32_t* col_idx, int undirected, int32_t source, int32_t* parents,
                       int32_t* depths, int64_t* reached);

/* ---- Matrix Market ------------------------------------------------------------------ */

/* Reads a Matrix Market file (.mtx, .mtx.gz, or a SuiteSparse .tar.gz) into CSR arrays
 * allocated with malloc, which the caller releases with mimd_free (or free).
 * Symmetric storage is expanded, pattern values are 1, duplicates summed, columns
 * sorted. On failure every output is set to 0 / NULL.
 * Errors: MIMD_INVALID_ARGUMENT (NULL arguments), MIMD_IO_ERROR (cannot read the file),
 *         MIMD_PARSE_ERROR (the message names the file, the line and the bad text;
 *         also a file whose claims exceed the memory budget, see mimd/io.hpp),
 *         MIMD_OUT_OF_MEMORY. */
mimd_status_t mimd_read_matrix_market_d(mimd_context_t ctx, const char* path, int64_t* nrows,
                                        int64_t* ncols, int64_t* nnz, int64_t** row_map,
                                        int32_t** col_idx, double** values);

/* Releases memory returned by mimd-kernels (NULL is accepted). */
void mimd_free(void* p);

#ifdef __cplusplus
}
#endif

#endif /* MIMD_MIMD_H */
