// Baseline: Kokkos Kernels KokkosSparse::spmv with rank-2 Views (a multivector SpMV),
// LayoutRight and LayoutLeft reported separately. Kokkos Kernels built from Debian's
// source package has no pre-compiled kernels: everything is instantiated here, with
// the project's flags (-O3 -march=native), which is what makes it run at its best.
#ifdef MIMD_HAVE_KOKKOSKERNELS

#include <KokkosKernels_config.h>
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>

#include "impls.hpp"

namespace mimd::bench {

namespace {

using Device = Kokkos::DefaultExecutionSpace::device_type;

template <class Scalar, class Layout>
class KokkosKernelsSpmv final : public SpmmImpl<Scalar> {
 public:
  using Matrix = KokkosSparse::CrsMatrix<Scalar, std::int32_t, Device, void, std::int64_t>;
  using MultiVector = Kokkos::View<Scalar**, Layout, Device>;

  explicit KokkosKernelsSpmv(const SpmmProblem<Scalar>& p) {
    const auto& a = *p.a;
    const auto dev = to_memory_space<DefaultMemorySpace>(a);
    a_ = Matrix("A", a.nrows, a.ncols, a.nnz(), dev.values, dev.row_map, dev.entries);
    b_ = MultiVector("B", a.ncols, p.k);
    c_ = MultiVector("C", a.nrows, p.k);
    auto hb = Kokkos::create_mirror_view(b_);
    const auto& b = *p.b;
    for (std::int64_t i = 0; i < a.ncols; ++i)
      for (int j = 0; j < p.k; ++j) hb(i, j) = b[static_cast<std::size_t>(i) * p.k + j];
    Kokkos::deep_copy(b_, hb);
  }

  void run() override {
    KokkosSparse::spmv("N", Scalar(1), a_, b_, Scalar(0), c_);
    Kokkos::fence();
  }

  void result(std::vector<Scalar>& c) const override {
    auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c_);
    c.resize(hc.extent(0) * hc.extent(1));
    for (std::size_t i = 0; i < hc.extent(0); ++i)
      for (std::size_t j = 0; j < hc.extent(1); ++j) c[i * hc.extent(1) + j] = hc(i, j);
  }

 private:
  Matrix a_;
  MultiVector b_, c_;
};

}  // namespace

template <class Scalar>
std::unique_ptr<SpmmImpl<Scalar>> make_kokkos_kernels(const SpmmProblem<Scalar>& p,
                                                      bool layout_right) {
  if (layout_right) return std::make_unique<KokkosKernelsSpmv<Scalar, Kokkos::LayoutRight>>(p);
  return std::make_unique<KokkosKernelsSpmv<Scalar, Kokkos::LayoutLeft>>(p);
}

template std::unique_ptr<SpmmImpl<float>> make_kokkos_kernels(const SpmmProblem<float>&, bool);
template std::unique_ptr<SpmmImpl<double>> make_kokkos_kernels(const SpmmProblem<double>&, bool);

std::string kokkos_kernels_version() {
#ifdef KOKKOSKERNELS_VERSION
  return std::to_string(KOKKOSKERNELS_VERSION / 10000) + "." +
         std::to_string(KOKKOSKERNELS_VERSION / 100 % 100) + "." +
         std::to_string(KOKKOSKERNELS_VERSION % 100);
#elif defined(MIMD_KOKKOSKERNELS_VERSION)
  return MIMD_KOKKOSKERNELS_VERSION;
#else
  return "unknown";
#endif
}

}  // namespace mimd::bench

#endif  // MIMD_HAVE_KOKKOSKERNELS
