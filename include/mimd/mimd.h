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
 *  - every failure also leaves its message in the calling thread's slot, read by
 *    mimd_last_error(NULL); calls on the csr, plan and runner handles below have no
 *    context argument and report there only;
 *  - threads: every function may be called from any host thread, and concurrently.
 *    Kokkos 3.4 (OpenMP) and Kokkos 4.x (Threads) accept parallel launches only from
 *    the thread that initialised Kokkos (from other threads, reductions and team
 *    launches throw), so on those backends the library runs the work of all calls on
 *    one thread of its own: the first context initialises Kokkos on this dispatch
 *    thread, and every call's work (SpMM, BFS, reading, creating and destroying
 *    handles) runs there, one call at a time, the calling thread waiting for it (a
 *    hand-over per call: one thread wake-up, microseconds on an idle machine, more on
 *    a loaded one). On Kokkos 4 OpenMP, which accepts launches from any thread, and
 *    whenever the program initialised Kokkos itself before its first context, calls
 *    run on the calling thread, one at a time under a process-wide lock (then, on the
 *    two backends above, they must come from the thread that initialised Kokkos).
 *    Calls on different handles never share state: each plan keeps its own work
 *    counters and buffers.
 *  - a context's own message slot (mimd_last_error(ctx)) holds one message: when
 *    several threads share a context, read mimd_last_error(NULL) instead. Several
 *    contexts may coexist and share the process' single Kokkos runtime (initialised by
 *    the first context, finalised at process exit).
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

/* ---- Persistent handles: a CSR matrix, an SpMM plan, a BFS runner ------------------ */

/* Element types of the arrays given to mimd_csr_create. */
typedef enum mimd_type_t {
  MIMD_INT32 = 0,
  MIMD_INT64 = 1,
  MIMD_FLOAT = 2, /* 32-bit IEEE */
  MIMD_DOUBLE = 3 /* 64-bit IEEE */
} mimd_type_t;

typedef struct mimd_csr_s* mimd_csr_t;
typedef struct mimd_spmm_plan_s* mimd_spmm_plan_t;
typedef struct mimd_bfs_runner_s* mimd_bfs_runner_t;

/* Creates a CSR matrix handle from the caller's arrays, checked here (offsets, column
 * range: the library's one CSR validation, O(nnz)). Making a plan or a runner from the
 * handle checks once more (the C++ SpmmPlan and BfsGraph validate what they are
 * given); applies and runs never do.
 * nrows, ncols: extents, in [0, INT32_MAX].
 * nnz:          entries: col_idx and values hold nnz elements, row_map[nrows] == nnz.
 * offset_type:  MIMD_INT64 (row_map is int64_t[nrows + 1]) or MIMD_INT32 (int32_t[]).
 * row_map:      non-decreasing offsets starting at 0.
 * col_idx:      0-based column indices in [0, ncols), any order within a row.
 * value_type:   MIMD_DOUBLE or MIMD_FLOAT: the scalar type of the plans made from it.
 * values:       nnz elements of value_type, or NULL for a pattern (a graph for
 *               mimd_bfs_runner_create; value_type is then ignored and no SpMM plan
 *               can be made from it).
 * csr:          receives the handle (NULL on failure).
 * Copy or not: in a build whose default memory space is host-accessible (OpenMP,
 * Threads, Serial), int64 offsets, the column indices and the values are used in place
 * (zero-copy: the arrays must stay alive and unmodified, except the values, which may
 * change between applies, until the handle and every plan and runner made from it are
 * destroyed); int32 offsets are converted into a 64-bit copy. In a device build every
 * array is copied to the device once, here. mimd_csr_zero_copy tells which happened.
 * Errors: MIMD_INVALID_ARGUMENT (ctx or csr NULL, negative or too large extents, nnz <
 *         0, NULL arrays where entries exist, a type outside the lists above; checked
 *         before any array is read), MIMD_INVALID_MATRIX (the first broken offset or
 *         column: "entries[j] (row i): column c outside [0, n)"), MIMD_OUT_OF_MEMORY.
 * Thread safety: the handle is immutable; any thread may use it. */
mimd_status_t mimd_csr_create(mimd_context_t ctx, int64_t nrows, int64_t ncols, int64_t nnz,
                              mimd_type_t offset_type, const void* row_map, const int32_t* col_idx,
                              mimd_type_t value_type, const void* values, mimd_csr_t* csr);

/* Extents of a matrix handle; any output may be NULL. zero_copy receives 1 when every
 * array of the handle is the caller's own (used in place), 0 when one was copied.
 * Errors: MIMD_INVALID_ARGUMENT (csr NULL). */
mimd_status_t mimd_csr_info(mimd_csr_t csr, int64_t* nrows, int64_t* ncols, int64_t* nnz,
                            int* zero_copy);

/* Destroys a matrix handle (NULL: no-op). Plans and runners made from it keep what
 * they need alive; with zero-copy, the caller's arrays must outlive them too. */
mimd_status_t mimd_csr_destroy(mimd_csr_t csr);

/* Inspects `a` once for C = alpha * A * B + beta * C with dense B and C in `layout`
 * (row classification, LSSM units: the inspector of mimd::SpmmPlan).
 * algorithm: as for mimd_spmm_d ("auto" or NULL: chosen from the row lengths, k_hint
 *            and the tuning profile of the context `a` was made with).
 * k_hint:    expected columns of B (>= 1); the applies accept any k.
 * plan:      receives the handle (NULL on failure).
 * Errors: MIMD_INVALID_ARGUMENT (NULL a or plan, a pattern without values, bad layout,
 *         k_hint < 1, unknown algorithm), MIMD_OUT_OF_MEMORY.
 * Thread safety: applies on one plan from several threads are serialised (see the
 * top of this file); plans never share work counters or buffers with other plans. */
mimd_status_t mimd_spmm_plan_create(mimd_csr_t a, const char* algorithm, mimd_layout_t layout,
                                    int64_t k_hint, mimd_spmm_plan_t* plan);

/* C = alpha * A * B + beta * C with the plan's matrix (its current values), B n x k
 * and C m x k dense in the plan's layout with leading dimensions ldb and ldc (as for
 * mimd_spmm_d); beta = 0 overwrites C (NaN included). The arrays must be accessible
 * from the default execution space (host memory in OpenMP, Threads, Serial builds).
 * _d needs a MIMD_DOUBLE matrix, _s a MIMD_FLOAT one.
 * Errors: MIMD_INVALID_ARGUMENT (plan NULL, wrong scalar type, k < 0, ld too small,
 *         B or C NULL while the product is not empty). C is unspecified on failure. */
mimd_status_t mimd_spmm_plan_apply_d(mimd_spmm_plan_t plan, int64_t k, double alpha,
                                     const double* b, int64_t ldb, double beta, double* c,
                                     int64_t ldc);
mimd_status_t mimd_spmm_plan_apply_s(mimd_spmm_plan_t plan, int64_t k, float alpha, const float* b,
                                     int64_t ldb, float beta, float* c, int64_t ldc);

/* One line describing the plan ("lssm block=... units=..."); the text stays valid
 * until the plan is destroyed. Errors: MIMD_INVALID_ARGUMENT (a NULL argument). */
mimd_status_t mimd_spmm_plan_describe(mimd_spmm_plan_t plan, const char** text);

/* Destroys a plan (NULL: no-op). */
mimd_status_t mimd_spmm_plan_destroy(mimd_spmm_plan_t plan);

/* A BFS runner on the graph whose out-edges are the pattern of `graph` (a square
 * handle; its values, if any, are ignored): the graph is set up once (in-edges by
 * transposition when directed) and the search state is kept across runs, so many
 * sources cost no re-upload.
 * algorithm:  as for mimd_bfs (NULL: direction_optimizing).
 * undirected: non-zero when the pattern is symmetric (precondition, not checked).
 * Errors: MIMD_INVALID_ARGUMENT (NULL graph or runner, non-square graph, unknown
 *         algorithm), MIMD_OUT_OF_MEMORY. */
mimd_status_t mimd_bfs_runner_create(mimd_csr_t graph, const char* algorithm, int undirected,
                                     mimd_bfs_runner_t* runner);

/* One search from `source`; parents, depths and reached as for mimd_bfs (each may be
 * NULL; n = the graph's vertex count entries each).
 * Errors: MIMD_INVALID_ARGUMENT (runner NULL, source outside [0, n)). */
mimd_status_t mimd_bfs_runner_run(mimd_bfs_runner_t runner, int32_t source, int32_t* parents,
                                  int32_t* depths, int64_t* reached);

/* Destroys a runner (NULL: no-op). */
mimd_status_t mimd_bfs_runner_destroy(mimd_bfs_runner_t runner);

#ifdef __cplusplus
}
#endif

#endif /* MIMD_MIMD_H */
