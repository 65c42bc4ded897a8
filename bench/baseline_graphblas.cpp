// Baselines from SuiteSparse:GraphBLAS 7, each set up the way it runs best
// (see ../shared/BASELINES.md):
//  - SpMM: the accumulating form C += A*B (plus-times, accumulator PLUS), which takes
//    GraphBLAS' in-place saxpy path for a full C; A packed as CSR, B and C packed full
//    by rows; GxB_NTHREADS set; the timed call includes GrB_wait.
//  - BFS: the push/pull parent BFS of LAGraph (LG_BreadthFirstSearch_SSGrB, Davis et
//    al.), written here from its published description: q<!struct(pi)> = q*A (push,
//    sparse q) or A'*q (pull, bitmap q) with the ANY_SECONDI semiring, degrees cached,
//    thresholds alpha = 8, beta1 = 8, beta2 = 512.
#ifdef MIMD_HAVE_GRAPHBLAS

extern "C" {
#include <GraphBLAS.h>
}

#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "impls.hpp"
#include "mimd/error.hpp"

namespace mimd::bench {

namespace {

void check(GrB_Info info, const char* what) {
  if (info != GrB_SUCCESS && info != GrB_NO_VALUE)
    throw RuntimeFailure(std::string("GraphBLAS: ") + what + " failed with GrB_Info " +
                         std::to_string(static_cast<int>(info)));
}
#define GRB_CHECK(call) check((call), #call)

// GraphBLAS takes ownership of packed arrays and frees them with its own free():
// the default (malloc/free) memory manager of GrB_init.
template <class T>
T* malloc_copy(const T* src, std::size_t n) {
  T* p = static_cast<T*>(std::malloc(std::max<std::size_t>(n, 1) * sizeof(T)));
  if (!p) throw RuntimeFailure("GraphBLAS baseline: out of memory");
  if (n) std::memcpy(p, src, n * sizeof(T));
  return p;
}

// A CSR pattern/matrix packed into a new GrB_Matrix (copies of the arrays).
GrB_Matrix pack_csr(GrB_Type type, std::int64_t nrows, std::int64_t ncols,
                    const std::int64_t* row_map, const std::int32_t* entries, const void* values,
                    std::size_t value_bytes, bool iso) {
  const std::int64_t nnz = row_map[nrows];
  GrB_Matrix a = nullptr;
  GRB_CHECK(GrB_Matrix_new(&a, type, nrows, ncols));
  auto* ap = static_cast<GrB_Index*>(std::malloc((nrows + 1) * sizeof(GrB_Index)));
  auto* aj =
      static_cast<GrB_Index*>(std::malloc(std::max<std::int64_t>(nnz, 1) * sizeof(GrB_Index)));
  if (!ap || !aj) throw RuntimeFailure("GraphBLAS baseline: out of memory");
  for (std::int64_t i = 0; i <= nrows; ++i) ap[i] = static_cast<GrB_Index>(row_map[i]);
  for (std::int64_t p = 0; p < nnz; ++p) aj[p] = static_cast<GrB_Index>(entries[p]);
  const std::size_t xbytes = iso ? value_bytes : value_bytes * static_cast<std::size_t>(nnz);
  void* ax = malloc_copy(static_cast<const char*>(values), xbytes);
  GRB_CHECK(GxB_Matrix_pack_CSR(a, &ap, &aj, &ax, (nrows + 1) * sizeof(GrB_Index),
                                std::max<std::int64_t>(nnz, 1) * sizeof(GrB_Index),
                                std::max<std::size_t>(xbytes, 1), iso, false, nullptr));
  return a;
}

template <class Scalar>
struct GrbTypes;
template <>
struct GrbTypes<double> {
  static GrB_Type type() { return GrB_FP64; }
  static GrB_BinaryOp plus() { return GrB_PLUS_FP64; }
  static GrB_Semiring plus_times() { return GrB_PLUS_TIMES_SEMIRING_FP64; }
  static GrB_Info tuples(GrB_Index* i, GrB_Index* j, double* x, GrB_Index* n, GrB_Matrix c) {
    return GrB_Matrix_extractTuples_FP64(i, j, x, n, c);
  }
};
template <>
struct GrbTypes<float> {
  static GrB_Type type() { return GrB_FP32; }
  static GrB_BinaryOp plus() { return GrB_PLUS_FP32; }
  static GrB_Semiring plus_times() { return GrB_PLUS_TIMES_SEMIRING_FP32; }
  static GrB_Info tuples(GrB_Index* i, GrB_Index* j, float* x, GrB_Index* n, GrB_Matrix c) {
    return GrB_Matrix_extractTuples_FP32(i, j, x, n, c);
  }
};

template <class Scalar>
class GraphBlasMxm final : public SpmmImpl<Scalar> {
  using T = GrbTypes<Scalar>;

 public:
  explicit GraphBlasMxm(const SpmmProblem<Scalar>& p) : m_(p.a->nrows), k_(p.k) {
    const auto& a = *p.a;
    a_ = pack_csr(T::type(), a.nrows, a.ncols, a.row_map.data(), a.entries.data(), a.values.data(),
                  sizeof(Scalar), false);
    const std::size_t bn = static_cast<std::size_t>(a.ncols) * k_;
    const std::size_t cn = static_cast<std::size_t>(a.nrows) * k_;
    GRB_CHECK(GrB_Matrix_new(&b_, T::type(), a.ncols, k_));
    void* bx = malloc_copy(p.b->data(), bn);
    GRB_CHECK(GxB_Matrix_pack_FullR(b_, &bx, std::max<std::size_t>(bn, 1) * sizeof(Scalar), false,
                                    nullptr));
    GRB_CHECK(GrB_Matrix_new(&c_, T::type(), a.nrows, k_));
    void* cx = std::calloc(std::max<std::size_t>(cn, 1), sizeof(Scalar));
    if (!cx) throw RuntimeFailure("GraphBLAS baseline: out of memory");
    GRB_CHECK(GxB_Matrix_pack_FullR(c_, &cx, std::max<std::size_t>(cn, 1) * sizeof(Scalar), false,
                                    nullptr));
  }
  ~GraphBlasMxm() override {
    GrB_Matrix_free(&a_);
    GrB_Matrix_free(&b_);
    GrB_Matrix_free(&c_);
  }
  GraphBlasMxm(const GraphBlasMxm&) = delete;
  GraphBlasMxm& operator=(const GraphBlasMxm&) = delete;

  void run() override {
    GRB_CHECK(GrB_mxm(c_, nullptr, T::plus(), T::plus_times(), a_, b_, nullptr));
    GRB_CHECK(GrB_Matrix_wait(c_, GrB_MATERIALIZE));
  }

  void result(std::vector<Scalar>& c) const override {
    GrB_Index n = 0;
    GRB_CHECK(GrB_Matrix_nvals(&n, c_));
    std::vector<GrB_Index> i(n), j(n);
    std::vector<Scalar> x(n);
    GRB_CHECK(T::tuples(i.data(), j.data(), x.data(), &n, c_));
    c.assign(static_cast<std::size_t>(m_) * k_, Scalar(0));
    for (GrB_Index p = 0; p < n; ++p) c[i[p] * k_ + j[p]] = x[p];
  }

 private:
  std::int64_t m_;
  int k_;
  GrB_Matrix a_ = nullptr, b_ = nullptr, c_ = nullptr;
};

class GraphBlasBfs final : public BfsImpl {
 public:
  explicit GraphBlasBfs(const BfsGraph& g) : n_(g.num_vertices()) {
    // Symmetric structure (BfsGraph::undirected): A' = A, so pull uses A itself.
    const HostPattern& p = g.host_out();
    const bool one = true;
    a_ = pack_csr(GrB_BOOL, p.nrows, p.ncols, p.row_map.data(), p.entries.data(), &one,
                  sizeof(bool), true);
    GRB_CHECK(GrB_Matrix_nvals(&nvals_, a_));
    // Cached out-degrees (only non-zero ones are entries, as LAGraph stores them).
    GRB_CHECK(GrB_Vector_new(&degree_, GrB_INT64, n_));
    std::vector<GrB_Index> idx;
    std::vector<std::int64_t> deg;
    for (std::int64_t i = 0; i < p.nrows; ++i) {
      const std::int64_t d = p.row_map(i + 1) - p.row_map(i);
      if (d > 0) {
        idx.push_back(static_cast<GrB_Index>(i));
        deg.push_back(d);
      }
    }
    GRB_CHECK(GrB_Vector_build_INT64(degree_, idx.data(), deg.data(), idx.size(), GrB_PLUS_INT64));
    GRB_CHECK(GrB_Vector_wait(degree_, GrB_MATERIALIZE));
  }
  ~GraphBlasBfs() override {
    GrB_Vector_free(&pi_);
    GrB_Vector_free(&degree_);
    GrB_Matrix_free(&a_);
  }
  GraphBlasBfs(const GraphBlasBfs&) = delete;
  GraphBlasBfs& operator=(const GraphBlasBfs&) = delete;

  void run(std::int32_t source) override {
    const GrB_Index n = static_cast<GrB_Index>(n_);
    const std::int64_t n_over_beta1 = static_cast<std::int64_t>(static_cast<double>(n) / 8.0);
    const std::int64_t n_over_beta2 = static_cast<std::int64_t>(static_cast<double>(n) / 512.0);
    const double alpha = 8.0;
    GrB_Vector_free(&pi_);
    GrB_Vector q = nullptr, w = nullptr;
    GRB_CHECK(GrB_Vector_new(&q, GrB_INT32, n));
    GRB_CHECK(GrB_Vector_new(&w, GrB_INT64, n));
    GRB_CHECK(GrB_Vector_new(&pi_, GrB_INT32, n));
    GRB_CHECK(GxB_Vector_Option_set(pi_, GxB_SPARSITY_CONTROL, GxB_BITMAP));
    GRB_CHECK(GrB_Vector_setElement_INT32(q, source, source));
    GRB_CHECK(GrB_Vector_setElement_INT32(pi_, source, source));

    bool do_push = true, any_pull = false, push_pull = true;
    GrB_Index nq = 1, last_nq = 0;
    std::int64_t edges_unexplored = static_cast<std::int64_t>(nvals_);
    for (std::int64_t level = 1; level <= n_; ++level) {
      if (push_pull) {
        if (do_push) {
          const bool growing = nq > last_nq;
          bool switch_to_pull = false;
          if (edges_unexplored < n_) {
            push_pull = false;  // little of the graph is left: stay in push
          } else if (any_pull) {
            switch_to_pull = growing && static_cast<std::int64_t>(nq) > n_over_beta1;
          } else {
            // w<q> = degree; edges in the frontier = sum(w)
            GRB_CHECK(GrB_Vector_assign(w, q, nullptr, degree_, GrB_ALL, n, GrB_DESC_RS));
            std::int64_t edges_in_frontier = 0;
            GRB_CHECK(GrB_Vector_reduce_INT64(&edges_in_frontier, nullptr, GrB_PLUS_MONOID_INT64, w,
                                              nullptr));
            edges_unexplored -= edges_in_frontier;
            switch_to_pull = growing && edges_in_frontier > edges_unexplored / alpha;
          }
          if (switch_to_pull) do_push = false;
        } else {
          const bool shrinking = nq < last_nq;
          if (shrinking && static_cast<std::int64_t>(nq) <= n_over_beta2) do_push = true;
        }
        any_pull = any_pull || !do_push;
      }
      GRB_CHECK(GxB_Vector_Option_set(q, GxB_SPARSITY_CONTROL, do_push ? GxB_SPARSE : GxB_BITMAP));
      if (do_push)
        GRB_CHECK(GrB_vxm(q, pi_, nullptr, GxB_ANY_SECONDI_INT32, q, a_, GrB_DESC_RSC));
      else
        GRB_CHECK(GrB_mxv(q, pi_, nullptr, GxB_ANY_SECONDI_INT32, a_, q, GrB_DESC_RSC));
      last_nq = nq;
      GRB_CHECK(GrB_Vector_nvals(&nq, q));
      if (nq == 0) break;
      GRB_CHECK(GrB_Vector_assign(pi_, q, nullptr, q, GrB_ALL, n, GrB_DESC_S));
    }
    GRB_CHECK(GrB_Vector_wait(pi_, GrB_MATERIALIZE));
    GrB_Vector_free(&q);
    GrB_Vector_free(&w);
  }

  std::vector<std::int32_t> parents() const override {
    GrB_Index nv = 0;
    GRB_CHECK(GrB_Vector_nvals(&nv, pi_));
    std::vector<GrB_Index> idx(nv);
    std::vector<std::int32_t> val(nv);
    GRB_CHECK(GrB_Vector_extractTuples_INT32(idx.data(), val.data(), &nv, pi_));
    std::vector<std::int32_t> parent(static_cast<std::size_t>(n_), -1);
    for (GrB_Index p = 0; p < nv; ++p) parent[idx[p]] = val[p];
    return parent;
  }

 private:
  std::int64_t n_;
  GrB_Index nvals_ = 0;
  GrB_Matrix a_ = nullptr;
  GrB_Vector degree_ = nullptr, pi_ = nullptr;
};

}  // namespace

std::string graphblas_init(int threads) {
  static bool initialised = false;
  if (!initialised) {
    GRB_CHECK(GrB_init(GrB_NONBLOCKING));
    initialised = true;
  }
  GRB_CHECK(GxB_Global_Option_set(static_cast<GxB_Option_Field>(GxB_NTHREADS), threads));
  int v[3] = {0, 0, 0};
  GRB_CHECK(GxB_Global_Option_get(GxB_LIBRARY_VERSION, v));
  return std::to_string(v[0]) + "." + std::to_string(v[1]) + "." + std::to_string(v[2]);
}

void graphblas_finalize() {
  GrB_finalize();
}

template <class Scalar>
std::unique_ptr<SpmmImpl<Scalar>> make_graphblas_mxm(const SpmmProblem<Scalar>& p) {
  return std::make_unique<GraphBlasMxm<Scalar>>(p);
}
template std::unique_ptr<SpmmImpl<float>> make_graphblas_mxm(const SpmmProblem<float>&);
template std::unique_ptr<SpmmImpl<double>> make_graphblas_mxm(const SpmmProblem<double>&);

std::unique_ptr<BfsImpl> make_graphblas_bfs(const BfsGraph& g) {
  return std::make_unique<GraphBlasBfs>(g);
}

}  // namespace mimd::bench

#endif  // MIMD_HAVE_GRAPHBLAS
