// The C interface (include/mimd/mimd.h): thin wrappers that translate arguments, run
// the C++ call, and turn every exception into a status plus a stored message.
#include "mimd/mimd.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>

#include "mimd/bfs.hpp"
#include "mimd/context.hpp"
#include "mimd/error.hpp"
#include "mimd/io.hpp"
#include "mimd/spmm.hpp"

struct mimd_context_s {
  mimd::ExecutionContext context;
  std::string last_error;
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
    error_slot(ctx) = std::string(call) + ": " + what;
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

// Runs `body`, mapping each mimd::Error subtype to its status. Order matters:
// DimensionMismatch derives from InvalidArgument.
template <class Body>
mimd_status_t guarded(mimd_context_t ctx, const char* call, Body&& body) noexcept {
  try {
    body();
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

// The value a caller passed as a mimd_layout_t, read as its underlying integer: a C
// caller may pass any int, and loading an out-of-range value as the enum is undefined.
std::int64_t layout_value(const mimd_layout_t& layout) {
  std::underlying_type_t<mimd_layout_t> raw;
  static_assert(sizeof raw == sizeof layout, "enum read as its underlying integer");
  std::memcpy(&raw, &layout, sizeof raw);
  return static_cast<std::int64_t>(raw);
}

template <class Scalar>
mimd_status_t spmm_c(const char* call, mimd_context_t ctx, const char* algorithm,
                     std::int64_t layout, std::int64_t m, std::int64_t n, std::int64_t k,
                     Scalar alpha, const std::int64_t* row_map, const std::int32_t* col_idx,
                     const Scalar* values, const Scalar* b, std::int64_t ldb, Scalar beta,
                     Scalar* c, std::int64_t ldc) {
  if (ctx == nullptr) return fail(ctx, call, MIMD_INVALID_ARGUMENT, "ctx is NULL");
  return guarded(ctx, call, [&] {
    require(layout == MIMD_ROW_MAJOR || layout == MIMD_COL_MAJOR,
            "layout = " + std::to_string(layout) + " is not MIMD_ROW_MAJOR (" +
                std::to_string(MIMD_ROW_MAJOR) + ") or MIMD_COL_MAJOR (" +
                std::to_string(MIMD_COL_MAJOR) + ")");
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
  });
}

mimd_status_t mimd_context_destroy(mimd_context_t ctx) {
  delete ctx;
  return MIMD_SUCCESS;
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
  return spmm_c<double>("mimd_spmm_d", ctx, algorithm, layout_value(layout), m, n, k, alpha,
                        row_map, col_idx, values, b, ldb, beta, c, ldc);
}

mimd_status_t mimd_spmm_s(mimd_context_t ctx, const char* algorithm, mimd_layout_t layout,
                          int64_t m, int64_t n, int64_t k, float alpha, const int64_t* row_map,
                          const int32_t* col_idx, const float* values, const float* b, int64_t ldb,
                          float beta, float* c, int64_t ldc) {
  return spmm_c<float>("mimd_spmm_s", ctx, algorithm, layout_value(layout), m, n, k, alpha, row_map,
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

}  // extern "C"
