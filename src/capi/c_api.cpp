// The C interface (include/mimd/mimd.h): thin wrappers that translate arguments, run
// the C++ call, and turn every exception into a status plus a stored message.
#include "mimd/mimd.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "capi/dispatch.hpp"
#include "mimd/bfs.hpp"
#include "mimd/context.hpp"
#include "mimd/error.hpp"
#include "mimd/io.hpp"
#include "mimd/spmm.hpp"

struct mimd_context_s {
  mimd::ExecutionContext context;
  std::string last_error;
};

// Host arrays (the caller's, or the 64-bit copy of int32 offsets) and the matrix on
// the default memory space (the same arrays in host builds).
struct mimd_csr_s {
  mimd::ExecutionContext context;
  mimd::HostPattern host;
  bool has_values = false;
  bool is_double = false;
  bool zero_copy = false;
  mimd::Csr<double> d;
  mimd::Csr<float> s;
};

namespace {

// A plan of either layout on a matrix of one scalar type.
template <class Scalar>
struct TypedPlan {
  mimd::Csr<Scalar> a;
  std::optional<mimd::SpmmPlan<Scalar, Kokkos::LayoutRight>> right;
  std::optional<mimd::SpmmPlan<Scalar, Kokkos::LayoutLeft>> left;

  void make(const mimd_csr_s& csr, const mimd::Csr<Scalar>& matrix, bool row_major, int k_hint,
            const mimd::SpmmOptions& options) {
    a = matrix;
    if (row_major)
      right.emplace(csr.context, a, k_hint, options);
    else
      left.emplace(csr.context, a, k_hint, options);
  }
  std::string describe() const { return right ? right->describe() : left->describe(); }
  void apply(std::int64_t k, Scalar alpha, const Scalar* b, std::int64_t ldb, Scalar beta,
             Scalar* c, std::int64_t ldc) const {
    if (right)
      right->apply(alpha, a, k, b, ldb, beta, c, ldc);
    else
      left->apply(alpha, a, k, b, ldb, beta, c, ldc);
  }
};

}  // namespace

struct mimd_spmm_plan_s {
  bool is_double = false;
  TypedPlan<double> d;
  TypedPlan<float> s;
  std::string description;
};

struct mimd_bfs_runner_s {
  std::int32_t n;
  mimd::BfsRunner runner;
};

namespace {

std::string& thread_error() {
  thread_local std::string message;
  return message;
}

std::string& error_slot(mimd_context_t ctx) {
  return ctx ? ctx->last_error : thread_error();
}

mimd_status_t fail(mimd_context_t ctx, const char* call, mimd_status_t status,
                   const char* what) noexcept {
  try {
    thread_error() = std::string(call) + ": " + what;
    if (ctx) ctx->last_error = thread_error();
  } catch (...) {
    // No memory left even for the message: the status alone must do.
  }
  return status;
}

// Kokkos reports a refused allocation as a std::runtime_error: "Kokkos failed to
// allocate memory for label ..." (3.x), "Kokkos ERROR: Host memory space failed to
// allocate ..." (4.x).
bool is_kokkos_allocation_failure(const std::exception& e) noexcept {
  const std::string_view what = e.what();
  return what.rfind("Kokkos", 0) == 0 && what.find("failed to allocate") != std::string_view::npos;
}

// Runs `body` where the C API runs its work (capi/dispatch.hpp), mapping each
// mimd::Error subtype to its status. Order matters: DimensionMismatch derives from
// InvalidArgument.
template <class Body>
mimd_status_t guarded(mimd_context_t ctx, const char* call, Body&& body) noexcept {
  try {
    mimd::capi_detail::dispatch(body);
    return MIMD_SUCCESS;
  } catch (const mimd::DimensionMismatch& e) {
    return fail(ctx, call, MIMD_DIMENSION_MISMATCH, e.what());
  } catch (const mimd::InvalidArgument& e) {
    return fail(ctx, call, MIMD_INVALID_ARGUMENT, e.what());
  } catch (const mimd::InvalidMatrix& e) {
    return fail(ctx, call, MIMD_INVALID_MATRIX, e.what());
  } catch (const mimd::ParseError& e) {
    return fail(ctx, call, MIMD_PARSE_ERROR, e.what());
  } catch (const mimd::IoError& e) {
    return fail(ctx, call, MIMD_IO_ERROR, e.what());
  } catch (const mimd::RuntimeFailure& e) {
    return fail(ctx, call, MIMD_RUNTIME_FAILURE, e.what());
  } catch (const mimd::InternalError& e) {
    return fail(ctx, call, MIMD_INTERNAL_ERROR, e.what());
  } catch (const std::bad_alloc& e) {
    // Kokkos' RawMemoryAllocationFailure is a std::bad_alloc naming the allocation.
    return fail(ctx, call, MIMD_OUT_OF_MEMORY, e.what());
  } catch (const std::exception& e) {
    return fail(ctx, call,
                is_kokkos_allocation_failure(e) ? MIMD_OUT_OF_MEMORY : MIMD_INTERNAL_ERROR,
                e.what());
  } catch (...) {
    return fail(ctx, call, MIMD_INTERNAL_ERROR, "unknown exception");
  }
}

void require(bool ok, const std::string& what) {
  if (!ok) throw mimd::InvalidArgument(what);
}

// The value a caller passed as a C enum, read as its underlying integer: a C caller
// may pass any int, and loading an out-of-range value as the enum is undefined.
template <class Enum>
std::int64_t enum_value(const Enum& e) {
  std::underlying_type_t<Enum> raw;
  static_assert(sizeof raw == sizeof e, "enum read as its underlying integer");
  std::memcpy(&raw, &e, sizeof raw);
  return static_cast<std::int64_t>(raw);
}

void require_layout(std::int64_t layout) {
  require(layout == MIMD_ROW_MAJOR || layout == MIMD_COL_MAJOR,
          "layout = " + std::to_string(layout) + " is not MIMD_ROW_MAJOR (" +
              std::to_string(MIMD_ROW_MAJOR) + ") or MIMD_COL_MAJOR (" +
              std::to_string(MIMD_COL_MAJOR) + ")");
}

// An extent of a handle: in [0, INT32_MAX] (32-bit column indices and vertex ids).
void require_extent(const char* name, std::int64_t value) {
  require(value >= 0 && value <= std::numeric_limits<std::int32_t>::max(),
          std::string(name) + " = " + std::to_string(value) + " is outside [0, INT32_MAX]");
}

// The handle's matrix: the caller's host arrays wrapped (unmanaged Views), values of
// type Scalar, moved to the default memory space (no copy where it is the host).
template <class Scalar>
mimd::Csr<Scalar> device_matrix(const mimd::HostPattern& p, const void* values) {
  mimd::HostCsr<Scalar> h;
  h.nrows = p.nrows;
  h.ncols = p.ncols;
  h.row_map = p.row_map;
  h.entries = p.entries;
  h.values = typename mimd::HostCsr<Scalar>::values_type(
      const_cast<Scalar*>(static_cast<const Scalar*>(values)), p.entries.extent(0));
  return mimd::to_memory_space<mimd::DefaultMemorySpace>(h);
}

// Returns `status` unless the handle is NULL (a message names the argument).
template <class Handle>
bool null_handle(const char* call, const char* name, Handle h, mimd_status_t& status) {
  if (h != nullptr) return false;
  status = fail(nullptr, call, MIMD_INVALID_ARGUMENT, (std::string(name) + " is NULL").c_str());
  return true;
}

template <class Scalar>
mimd_status_t spmm_c(const char* call, mimd_context_t ctx, const char* algorithm,
                     std::int64_t layout, std::int64_t m, std::int64_t n, std::int64_t k,
                     Scalar alpha, const std::int64_t* row_map, const std::int32_t* col_idx,
                     const Scalar* values, const Scalar* b, std::int64_t ldb, Scalar beta,
                     Scalar* c, std::int64_t ldc) {
  if (ctx == nullptr) return fail(ctx, call, MIMD_INVALID_ARGUMENT, "ctx is NULL");
  return guarded(ctx, call, [&] {
    require_layout(layout);
    mimd::SpmmOptions options;
    if (algorithm != nullptr) options.algorithm = mimd::spmm_algorithm_from_string(algorithm);
    const auto dense_layout =
        layout == MIMD_ROW_MAJOR ? mimd::DenseLayout::RowMajor : mimd::DenseLayout::ColMajor;
    mimd::spmm<Scalar>(ctx->context, dense_layout, m, n, k, alpha, row_map, col_idx, values, b, ldb,
                       beta, c, ldc, options);
  });
}

// malloc'd copy of n elements (at least one byte, so that NULL always means failure).
template <class T>
T* malloc_copy(const T* src, std::size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n * sizeof(T));
  if (p == nullptr) throw std::bad_alloc();
  if (n != 0) std::memcpy(p, src, n * sizeof(T));
  return static_cast<T*>(p);
}

}  // namespace

namespace {

template <class Scalar>
mimd_status_t plan_apply(const char* call, mimd_spmm_plan_t plan, std::int64_t k, Scalar alpha,
                         const Scalar* b, std::int64_t ldb, Scalar beta, Scalar* c,
                         std::int64_t ldc) {
  mimd_status_t status;
  if (null_handle(call, "plan", plan, status)) return status;
  return guarded(nullptr, call, [&] {
    require(plan->is_double == std::is_same<Scalar, double>::value,
            std::string("the plan's matrix holds ") + (plan->is_double ? "double" : "float") +
                " values: use mimd_spmm_plan_apply_" + (plan->is_double ? "d" : "s"));
    if constexpr (std::is_same<Scalar, double>::value)
      plan->d.apply(k, alpha, b, ldb, beta, c, ldc);
    else
      plan->s.apply(k, alpha, b, ldb, beta, c, ldc);
  });
}

}  // namespace

extern "C" {

const char* mimd_status_string(mimd_status_t status) {
  switch (status) {
    case MIMD_SUCCESS:
      return "MIMD_SUCCESS";
    case MIMD_INVALID_ARGUMENT:
      return "MIMD_INVALID_ARGUMENT";
    case MIMD_DIMENSION_MISMATCH:
      return "MIMD_DIMENSION_MISMATCH";
    case MIMD_INVALID_MATRIX:
      return "MIMD_INVALID_MATRIX";
    case MIMD_PARSE_ERROR:
      return "MIMD_PARSE_ERROR";
    case MIMD_IO_ERROR:
      return "MIMD_IO_ERROR";
    case MIMD_RUNTIME_FAILURE:
      return "MIMD_RUNTIME_FAILURE";
    case MIMD_OUT_OF_MEMORY:
      return "MIMD_OUT_OF_MEMORY";
    case MIMD_INTERNAL_ERROR:
      return "MIMD_INTERNAL_ERROR";
  }
  return "MIMD_UNKNOWN_STATUS";
}

const char* mimd_version(void) {
  return MIMD_VERSION;
}

mimd_status_t mimd_context_create(int num_threads, mimd_context_t* ctx) {
  const char* call = "mimd_context_create";
  if (ctx == nullptr) return fail(nullptr, call, MIMD_INVALID_ARGUMENT, "ctx is NULL");
  *ctx = nullptr;
  return guarded(nullptr, call, [&] {
    mimd::ContextOptions options;
    options.num_threads = num_threads;
    *ctx = new mimd_context_s{mimd::ExecutionContext(options), std::string()};
    mimd::capi_detail::finalize_on_dispatch_thread_at_exit();
  });
}

mimd_status_t mimd_context_destroy(mimd_context_t ctx) {
  if (ctx == nullptr) return MIMD_SUCCESS;
  return guarded(nullptr, "mimd_context_destroy", [&] { delete ctx; });
}

const char* mimd_last_error(mimd_context_t ctx) {
  return error_slot(ctx).c_str();
}

mimd_status_t mimd_context_num_threads(mimd_context_t ctx, int* num_threads) {
  const char* call = "mimd_context_num_threads";
  if (ctx == nullptr) return fail(ctx, call, MIMD_INVALID_ARGUMENT, "ctx is NULL");
  if (num_threads == nullptr) return fail(ctx, call, MIMD_INVALID_ARGUMENT, "num_threads is NULL");
  *num_threads = ctx->context.num_threads();
  return MIMD_SUCCESS;
}

mimd_status_t mimd_spmm_d(mimd_context_t ctx, const char* algorithm, mimd_layout_t layout,
                          int64_t m, int64_t n, int64_t k, double alpha, const int64_t* row_map,
                          const int32_t* col_idx, const double* values, const double* b,
                          int64_t ldb, double beta, double* c, int64_t ldc) {
  return spmm_c<double>("mimd_spmm_d", ctx, algorithm, enum_value(layout), m, n, k, alpha, row_map,
                        col_idx, values, b, ldb, beta, c, ldc);
}

mimd_status_t mimd_spmm_s(mimd_context_t ctx, const char* algorithm, mimd_layout_t layout,
                          int64_t m, int64_t n, int64_t k, float alpha, const int64_t* row_map,
                          const int32_t* col_idx, const float* values, const float* b, int64_t ldb,
                          float beta, float* c, int64_t ldc) {
  return spmm_c<float>("mimd_spmm_s", ctx, algorithm, enum_value(layout), m, n, k, alpha, row_map,
                       col_idx, values, b, ldb, beta, c, ldc);
}

mimd_status_t mimd_bfs(mimd_context_t ctx, const char* algorithm, int32_t n, const int64_t* row_map,
                       const int32_t* col_idx, int undirected, int32_t source, int32_t* parents,
                       int32_t* depths, int64_t* reached) {
  const char* call = "mimd_bfs";
  if (ctx == nullptr) return fail(ctx, call, MIMD_INVALID_ARGUMENT, "ctx is NULL");
  return guarded(ctx, call, [&] {
    require(n >= 0, "n = " + std::to_string(n) + " is negative");
    require(source >= 0 && source < n,
            "source = " + std::to_string(source) + " is outside [0, " + std::to_string(n) + ")");
    require(row_map != nullptr, "row_map is NULL");
    const std::int64_t nnz = row_map[n];
    require(nnz >= 0, "row_map[n] = " + std::to_string(nnz) + " is negative");
    require(nnz == 0 || col_idx != nullptr, "col_idx is NULL");
    mimd::BfsOptions options;
    if (algorithm != nullptr) options.algorithm = mimd::bfs_algorithm_from_string(algorithm);
    options.want_parents = parents != nullptr || depths == nullptr;
    options.want_depths = depths != nullptr;

    mimd::HostPattern g;
    g.nrows = g.ncols = n;
    g.row_map = mimd::HostPattern::row_map_type(
        Kokkos::ViewAllocateWithoutInitializing("c_api.row_map"), static_cast<std::size_t>(n) + 1);
    g.entries = mimd::HostPattern::entries_type(
        Kokkos::ViewAllocateWithoutInitializing("c_api.entries"), static_cast<std::size_t>(nnz));
    std::memcpy(g.row_map.data(), row_map, (static_cast<std::size_t>(n) + 1) * sizeof(int64_t));
    if (nnz > 0)
      std::memcpy(g.entries.data(), col_idx, static_cast<std::size_t>(nnz) * sizeof(int32_t));

    const mimd::BfsGraph graph =
        undirected ? mimd::BfsGraph::undirected(g) : mimd::BfsGraph::directed(g);
    const mimd::BfsResult r = mimd::bfs(ctx->context, graph, source, options);
    if (parents != nullptr) std::copy(r.parents.begin(), r.parents.end(), parents);
    if (depths != nullptr) std::copy(r.depths.begin(), r.depths.end(), depths);
    if (reached != nullptr) *reached = r.reached;
  });
}

mimd_status_t mimd_read_matrix_market_d(mimd_context_t ctx, const char* path, int64_t* nrows,
                                        int64_t* ncols, int64_t* nnz, int64_t** row_map,
                                        int32_t** col_idx, double** values) {
  const char* call = "mimd_read_matrix_market_d";
  if (ctx == nullptr) return fail(ctx, call, MIMD_INVALID_ARGUMENT, "ctx is NULL");
  if (!path || !nrows || !ncols || !nnz || !row_map || !col_idx || !values)
    return fail(ctx, call, MIMD_INVALID_ARGUMENT, "an argument is NULL");
  *nrows = *ncols = *nnz = 0;
  *row_map = nullptr;
  *col_idx = nullptr;
  *values = nullptr;
  std::int64_t* rm = nullptr;
  std::int32_t* ci = nullptr;
  const mimd_status_t status = guarded(ctx, call, [&] {
    mimd::ReadOptions options;
    options.progress = false;
    const auto a = mimd::read_matrix_market<double>(path, options);
    const auto count = static_cast<std::size_t>(a.nnz());
    rm = malloc_copy(a.row_map.data(), static_cast<std::size_t>(a.nrows) + 1);
    ci = malloc_copy(a.entries.data(), count);
    *values = malloc_copy(a.values.data(), count);
    *nrows = a.nrows;
    *ncols = a.ncols;
    *nnz = a.nnz();
  });
  if (status == MIMD_SUCCESS) {
    *row_map = rm;
    *col_idx = ci;
  } else {
    std::free(rm);
    std::free(ci);
  }
  return status;
}

void mimd_free(void* p) {
  std::free(p);
}

mimd_status_t mimd_csr_create(mimd_context_t ctx, int64_t nrows, int64_t ncols, int64_t nnz,
                              mimd_type_t offset_type, const void* row_map, const int32_t* col_idx,
                              mimd_type_t value_type, const void* values, mimd_csr_t* csr) {
  const char* call = "mimd_csr_create";
  if (ctx == nullptr) return fail(ctx, call, MIMD_INVALID_ARGUMENT, "ctx is NULL");
  if (csr == nullptr) return fail(ctx, call, MIMD_INVALID_ARGUMENT, "csr is NULL");
  *csr = nullptr;
  const std::int64_t offsets = enum_value(offset_type);
  const std::int64_t scalar = enum_value(value_type);
  return guarded(ctx, call, [&] {
    require_extent("nrows", nrows);
    require_extent("ncols", ncols);
    require(nnz >= 0, "nnz = " + std::to_string(nnz) + " is negative");
    require(offsets == MIMD_INT32 || offsets == MIMD_INT64,
            "offset_type = " + std::to_string(offsets) + " is not MIMD_INT32 or MIMD_INT64");
    require(values == nullptr || scalar == MIMD_FLOAT || scalar == MIMD_DOUBLE,
            "value_type = " + std::to_string(scalar) + " is not MIMD_FLOAT or MIMD_DOUBLE");
    require(row_map != nullptr, "row_map is NULL");
    require(nnz == 0 || col_idx != nullptr, "col_idx is NULL while nnz = " + std::to_string(nnz));
    const auto rows = static_cast<std::size_t>(nrows) + 1;
    const auto count = static_cast<std::size_t>(nnz);

    auto h = std::make_unique<mimd_csr_s>();
    h->context = ctx->context;
    h->host.nrows = static_cast<std::int32_t>(nrows);
    h->host.ncols = static_cast<std::int32_t>(ncols);
    if (offsets == MIMD_INT64) {
      h->host.row_map = mimd::HostPattern::row_map_type(
          const_cast<std::int64_t*>(static_cast<const std::int64_t*>(row_map)), rows);
    } else {
      h->host.row_map = mimd::HostPattern::row_map_type(
          Kokkos::ViewAllocateWithoutInitializing("c_api.csr.row_map"), rows);
      const auto* narrow = static_cast<const std::int32_t*>(row_map);
      std::copy(narrow, narrow + rows, h->host.row_map.data());
    }
    h->host.entries = mimd::HostPattern::entries_type(const_cast<std::int32_t*>(col_idx), count);
    mimd::validate_csr(nrows, ncols, h->host.row_map.data(), rows, col_idx, count,
                       values ? count : 0, mimd::CsrChecks{false, values != nullptr});
    h->has_values = values != nullptr;
    h->is_double = scalar == MIMD_DOUBLE;
    if (h->has_values && h->is_double)
      h->d = device_matrix<double>(h->host, values);
    else if (h->has_values)
      h->s = device_matrix<float>(h->host, values);
    constexpr bool host_space =
        Kokkos::SpaceAccessibility<Kokkos::HostSpace, mimd::DefaultMemorySpace>::accessible;
    h->zero_copy = host_space && offsets == MIMD_INT64;
    *csr = h.release();
  });
}

mimd_status_t mimd_csr_info(mimd_csr_t csr, int64_t* nrows, int64_t* ncols, int64_t* nnz,
                            int* zero_copy) {
  mimd_status_t status;
  if (null_handle("mimd_csr_info", "csr", csr, status)) return status;
  if (nrows) *nrows = csr->host.nrows;
  if (ncols) *ncols = csr->host.ncols;
  if (nnz) *nnz = csr->host.nnz();
  if (zero_copy) *zero_copy = csr->zero_copy ? 1 : 0;
  return MIMD_SUCCESS;
}

mimd_status_t mimd_csr_destroy(mimd_csr_t csr) {
  if (csr == nullptr) return MIMD_SUCCESS;
  return guarded(nullptr, "mimd_csr_destroy", [&] { delete csr; });
}

mimd_status_t mimd_spmm_plan_create(mimd_csr_t a, const char* algorithm, mimd_layout_t layout,
                                    int64_t k_hint, mimd_spmm_plan_t* plan) {
  const char* call = "mimd_spmm_plan_create";
  mimd_status_t status;
  if (null_handle(call, "plan", plan, status)) return status;
  *plan = nullptr;
  if (null_handle(call, "a", a, status)) return status;
  const std::int64_t lay = enum_value(layout);
  return guarded(nullptr, call, [&] {
    require_layout(lay);
    require(a->has_values, "a is a pattern (made with values = NULL): SpMM needs values");
    require(k_hint >= 1 && k_hint <= std::numeric_limits<int>::max(),
            "k_hint = " + std::to_string(k_hint) + " is outside [1, INT_MAX]");
    mimd::SpmmOptions options;
    if (algorithm != nullptr) options.algorithm = mimd::spmm_algorithm_from_string(algorithm);
    auto p = std::make_unique<mimd_spmm_plan_s>();
    p->is_double = a->is_double;
    const bool row_major = lay == MIMD_ROW_MAJOR;
    const int hint = static_cast<int>(k_hint);
    if (p->is_double)
      p->d.make(*a, a->d, row_major, hint, options);
    else
      p->s.make(*a, a->s, row_major, hint, options);
    p->description = p->is_double ? p->d.describe() : p->s.describe();
    *plan = p.release();
  });
}

mimd_status_t mimd_spmm_plan_apply_d(mimd_spmm_plan_t plan, int64_t k, double alpha,
                                     const double* b, int64_t ldb, double beta, double* c,
                                     int64_t ldc) {
  return plan_apply<double>("mimd_spmm_plan_apply_d", plan, k, alpha, b, ldb, beta, c, ldc);
}

mimd_status_t mimd_spmm_plan_apply_s(mimd_spmm_plan_t plan, int64_t k, float alpha, const float* b,
                                     int64_t ldb, float beta, float* c, int64_t ldc) {
  return plan_apply<float>("mimd_spmm_plan_apply_s", plan, k, alpha, b, ldb, beta, c, ldc);
}

mimd_status_t mimd_spmm_plan_describe(mimd_spmm_plan_t plan, const char** text) {
  const char* call = "mimd_spmm_plan_describe";
  mimd_status_t status;
  if (null_handle(call, "plan", plan, status) || null_handle(call, "text", text, status))
    return status;
  *text = plan->description.c_str();
  return MIMD_SUCCESS;
}

mimd_status_t mimd_spmm_plan_destroy(mimd_spmm_plan_t plan) {
  if (plan == nullptr) return MIMD_SUCCESS;
  return guarded(nullptr, "mimd_spmm_plan_destroy", [&] { delete plan; });
}

mimd_status_t mimd_bfs_runner_create(mimd_csr_t graph, const char* algorithm, int undirected,
                                     mimd_bfs_runner_t* runner) {
  const char* call = "mimd_bfs_runner_create";
  mimd_status_t status;
  if (null_handle(call, "runner", runner, status)) return status;
  *runner = nullptr;
  if (null_handle(call, "graph", graph, status)) return status;
  return guarded(nullptr, call, [&] {
    mimd::BfsOptions options;
    if (algorithm != nullptr) options.algorithm = mimd::bfs_algorithm_from_string(algorithm);
    const mimd::BfsGraph g = undirected ? mimd::BfsGraph::undirected(graph->host)
                                        : mimd::BfsGraph::directed(graph->host);
    *runner = new mimd_bfs_runner_s{g.num_vertices(), mimd::BfsRunner(graph->context, g, options)};
  });
}

mimd_status_t mimd_bfs_runner_run(mimd_bfs_runner_t runner, int32_t source, int32_t* parents,
                                  int32_t* depths, int64_t* reached) {
  const char* call = "mimd_bfs_runner_run";
  mimd_status_t status;
  if (null_handle(call, "runner", runner, status)) return status;
  return guarded(nullptr, call, [&] {
    require(source >= 0 && source < runner->n, "source = " + std::to_string(source) +
                                                   " is outside [0, " + std::to_string(runner->n) +
                                                   ")");
    const mimd::BfsResult& r = runner->runner.run(source);
    if (parents != nullptr) std::copy(r.parents.begin(), r.parents.end(), parents);
    if (depths != nullptr) std::copy(r.depths.begin(), r.depths.end(), depths);
    if (reached != nullptr) *reached = r.reached;
  });
}

mimd_status_t mimd_bfs_runner_destroy(mimd_bfs_runner_t runner) {
  if (runner == nullptr) return MIMD_SUCCESS;
  return guarded(nullptr, "mimd_bfs_runner_destroy", [&] { delete runner; });
}

}  // extern "C"
