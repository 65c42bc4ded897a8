// The registry of implementations (see registry.hpp).
#include "registry.hpp"

#include "mimd/bfs.hpp"
#include "mimd/spmm.hpp"

namespace mimd::bench {

template <>
const SpmmMaker<double>& ImplInfo::spmm_maker<double>() const {
  return spmm64;
}
template <>
const SpmmMaker<float>& ImplInfo::spmm_maker<float>() const {
  return spmm32;
}

namespace {

ImplInfo ours(const std::string& kernel, const std::string& name, bool headline, bool by_default) {
  ImplInfo i;
  i.name = name;
  i.kernel = kernel;
  i.ours = true;
  i.label = "mimd " + name;
  i.layout = kernel == "spmm" ? "row-major" : "";
  i.headline = headline;
  i.default_run = by_default;
  return i;
}

ImplInfo spmm_baseline(const std::string& name, const std::string& label, const std::string& layout,
                       const std::string& column, double target) {
  ImplInfo i;
  i.name = name;
  i.kernel = "spmm";
  i.label = label;
  i.layout = layout;
  i.column = column;
  i.target = target;
  i.available = false;
  return i;
}

std::vector<ImplInfo> build() {
  std::vector<ImplInfo> all;
  std::vector<SpmmAlgorithm> spmm = spmm_algorithms();
  spmm.push_back(SpmmAlgorithm::Auto);
  for (SpmmAlgorithm a : spmm)
    all.push_back(ours("spmm", to_string(a), a == SpmmAlgorithm::Lssm || a == SpmmAlgorithm::Auto,
                       a != SpmmAlgorithm::Reference));
  for (BfsAlgorithm a : bfs_algorithms())
    all.push_back(ours("bfs", to_string(a), a == BfsAlgorithm::DirectionOptimizing,
                       a != BfsAlgorithm::Reference));

  ImplInfo loop = spmm_baseline("omp_loop", "plain OpenMP loop", "row-major", "xloop", 1.2);
  loop.available = true;
  loop.spmm64 = make_plain_loop<double>;
  loop.spmm32 = make_plain_loop<float>;
  all.push_back(loop);

  ImplInfo kk_right =
      spmm_baseline("kk_right", "Kokkos Kernels spmv LayoutRight", "row-major", "xKK-R", 1.5);
  ImplInfo kk_left =
      spmm_baseline("kk_left", "Kokkos Kernels spmv LayoutLeft", "column-major", "xKK-L", 1.5);
#ifdef MIMD_HAVE_KOKKOSKERNELS
  for (ImplInfo* i : {&kk_right, &kk_left}) {
    const bool right = i == &kk_right;
    i->available = true;
    i->spmm64 = [right](const SpmmProblem<double>& p) { return make_kokkos_kernels(p, right); };
    i->spmm32 = [right](const SpmmProblem<float>& p) { return make_kokkos_kernels(p, right); };
  }
#endif
  all.push_back(kk_right);
  all.push_back(kk_left);

  ImplInfo cusparse = spmm_baseline("cusparse", "cuSPARSE SpMM", "row-major", "xcuSP", 1.0);
#ifdef MIMD_HAVE_CUSPARSE
  cusparse.available = true;
  cusparse.spmm64 = make_cusparse_spmm<double>;
  cusparse.spmm32 = make_cusparse_spmm<float>;
#endif
  all.push_back(cusparse);

  ImplInfo grb = spmm_baseline("graphblas", "GraphBLAS C += A*B", "row-major", "xGrB", 1.5);
  ImplInfo grb_bfs;
  grb_bfs.name = "graphblas_bfs";
  grb_bfs.kernel = "bfs";
  grb_bfs.label = "GraphBLAS push/pull BFS";
  grb_bfs.column = "xGrB";
  grb_bfs.target = 2.0;
  grb_bfs.available = false;
#ifdef MIMD_HAVE_GRAPHBLAS
  grb.available = grb_bfs.available = true;
  grb.spmm64 = make_graphblas_mxm<double>;
  grb.spmm32 = make_graphblas_mxm<float>;
  grb_bfs.bfs = make_graphblas_bfs;
#endif
  all.push_back(grb);
  all.push_back(grb_bfs);
  return all;
}

}  // namespace

const std::vector<ImplInfo>& registry() {
  static const std::vector<ImplInfo> all = build();
  return all;
}

const ImplInfo* find_impl(const std::string& name) {
  for (const auto& i : registry())
    if (i.name == name) return &i;
  return nullptr;
}

std::vector<std::string> default_selection(const std::string& kernel, bool ours) {
  std::vector<std::string> out;
  for (const auto& i : registry())
    if ((kernel.empty() || i.kernel == kernel) && i.ours == ours && i.available && i.default_run)
      out.push_back(i.name);
  return out;
}

nlohmann::json registry_json() {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& i : registry())
    out.push_back({{"name", i.name},
                   {"kernel", i.kernel},
                   {"kind", i.ours ? "ours" : "baseline"},
                   {"label", i.label},
                   {"layout", i.layout},
                   {"column", i.column},
                   {"target", i.target},
                   {"headline", i.headline},
                   {"available", i.available}});
  return out;
}

}  // namespace mimd::bench
