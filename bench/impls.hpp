// mimd-bench: the interface every measured implementation (mimd's algorithms and the
// baselines) implements, and the constructors of the baselines. Kept apart from
// bench.hpp so that the heavy baseline translation units (Kokkos Kernels) do not
// recompile when the driver changes. Names, labels and availability of the
// implementations live in one place: registry.hpp.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mimd/bfs.hpp"
#include "mimd/csr.hpp"

namespace mimd::bench {

// ---- implementations --------------------------------------------------------------------

/// One SpMM implementation prepared for one problem. `run` computes C = A*B (or
/// C += A*B on a C that was zero before the first run: the first run's result is the
/// one verified) and fences. `result` copies C out row-major (m x k).
template <class Scalar>
class SpmmImpl {
 public:
  virtual ~SpmmImpl() = default;
  virtual void run() = 0;
  virtual void result(std::vector<Scalar>& c) const = 0;
};

/// The problem every SpMM implementation gets: a host CSR and B row-major (n x k).
template <class Scalar>
struct SpmmProblem {
  const HostCsr<Scalar>* a = nullptr;
  int k = 1;
  const std::vector<Scalar>* b = nullptr;
};

/// Prepares an SpMM implementation for one problem.
template <class Scalar>
using SpmmMaker = std::function<std::unique_ptr<SpmmImpl<Scalar>>(const SpmmProblem<Scalar>&)>;

/// A BFS implementation prepared for one graph: `run` searches from `source` (and
/// fences); `parents` returns the last search's parent array (-1 unreached).
class BfsImpl {
 public:
  virtual ~BfsImpl() = default;
  virtual void run(std::int32_t source) = 0;
  virtual std::vector<std::int32_t> parents() const = 0;
};

/// Prepares a BFS implementation for one graph.
using BfsMaker = std::function<std::unique_ptr<BfsImpl>(const BfsGraph&)>;

// ---- baselines -----------------------------------------------------------------------------

/// The plain OpenMP CSR loop (always available).
template <class Scalar>
std::unique_ptr<SpmmImpl<Scalar>> make_plain_loop(const SpmmProblem<Scalar>& p);

#ifdef MIMD_HAVE_KOKKOSKERNELS
/// KokkosSparse::spmv with rank-2 Views, LayoutRight or LayoutLeft.
template <class Scalar>
std::unique_ptr<SpmmImpl<Scalar>> make_kokkos_kernels(const SpmmProblem<Scalar>& p,
                                                      bool layout_right);
std::string kokkos_kernels_version();
#endif

#ifdef MIMD_HAVE_CUSPARSE
/// cusparseSpMM (CUDA builds): C = A*B, CSR A, row-major B and C, the faster of
/// CUSPARSE_SPMM_CSR_ALG2 and ALG3 for the problem.
template <class Scalar>
std::unique_ptr<SpmmImpl<Scalar>> make_cusparse_spmm(const SpmmProblem<Scalar>& p);
/// The cuSPARSE version compiled against (major.minor.patch).
std::string cusparse_version();
#endif

#ifdef MIMD_HAVE_GRAPHBLAS
/// Initialises GraphBLAS (once) with `threads` threads; returns its version string.
std::string graphblas_init(int threads);
void graphblas_finalize();
/// GrB_mxm C += A*B, plus-times, A packed CSR, B and C full by rows.
template <class Scalar>
std::unique_ptr<SpmmImpl<Scalar>> make_graphblas_mxm(const SpmmProblem<Scalar>& p);
/// LAGraph-style push/pull BFS (parents) on the graph's symmetric structure.
std::unique_ptr<BfsImpl> make_graphblas_bfs(const BfsGraph& g);
#endif

}  // namespace mimd::bench
