// Baseline (CUDA builds only): cuSPARSE's generic SpMM, cusparseSpMM, computing C = A*B
// with A in CSR and B, C dense row-major: the vendor's own peer on the GPU. Set up as
// ../shared/BASELINES.md asks: CUSPARSE_SPMM_CSR_ALG2 and ALG3 are both tried when the
// problem is prepared and the faster is kept; the handle, the descriptors, the work
// buffer and ALG3's preprocessing are made before the timed loop, so `run` is one
// cusparseSpMM call on the Kokkos stream and a fence.
#ifdef MIMD_HAVE_CUSPARSE

#include <cusparse.h>

#include <Kokkos_Core.hpp>
#include <chrono>
#include <cstddef>
#include <limits>
#include <string>
#include <type_traits>

#include "impls.hpp"
#include "mimd/error.hpp"

namespace mimd::bench {

namespace {

void check(cusparseStatus_t status, const char* what) {
  if (status != CUSPARSE_STATUS_SUCCESS)
    throw RuntimeFailure(std::string("cuSPARSE: ") + what +
                         " failed: " + cusparseGetErrorString(status));
}
#define CUSPARSE_CHECK(call) check((call), #call)

using Exec = Kokkos::Cuda;
using Space = Exec::memory_space;

// A host index array copied to the device as I (cuSPARSE wants one index type for the
// row offsets and the column indices).
template <class I, class HostView>
Kokkos::View<I*, Space> device_indices(const char* label, const HostView& host) {
  Kokkos::View<I*, Kokkos::HostSpace> h(Kokkos::ViewAllocateWithoutInitializing(label),
                                        host.extent(0));
  for (std::size_t i = 0; i < host.extent(0); ++i) h(i) = static_cast<I>(host(i));
  return Kokkos::create_mirror_view_and_copy(Space(), h);
}

template <class Scalar>
class CusparseSpmm final : public SpmmImpl<Scalar> {
  static constexpr cudaDataType kValueType =
      std::is_same_v<Scalar, double> ? CUDA_R_64F : CUDA_R_32F;

 public:
  explicit CusparseSpmm(const SpmmProblem<Scalar>& p) : k_(p.k) {
    const auto& a = *p.a;
    const std::int64_t nnz = a.nnz();
    b_ = Kokkos::View<Scalar*, Space>("mimd::bench::cusparse::B", p.b->size());
    c_ = Kokkos::View<Scalar*, Space>("mimd::bench::cusparse::C",
                                      static_cast<std::size_t>(a.nrows) * p.k);
    Kokkos::deep_copy(b_, Kokkos::View<const Scalar*, Kokkos::HostSpace>(p.b->data(), p.b->size()));
    // cuSPARSE rejects empty operands; C = 0 is then the whole product.
    empty_ = nnz == 0 || a.nrows == 0 || a.ncols == 0 || p.k == 0;
    if (empty_) return;

    const bool wide = nnz > std::numeric_limits<std::int32_t>::max();
    const cusparseIndexType_t index = wide ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
    void* offsets = nullptr;
    void* columns = nullptr;
    if (wide) {
      offsets64_ = device_indices<std::int64_t>("cusparse row offsets", a.row_map);
      columns64_ = device_indices<std::int64_t>("cusparse columns", a.entries);
      offsets = offsets64_.data();
      columns = columns64_.data();
    } else {
      offsets32_ = device_indices<std::int32_t>("cusparse row offsets", a.row_map);
      columns32_ = device_indices<std::int32_t>("cusparse columns", a.entries);
      offsets = offsets32_.data();
      columns = columns32_.data();
    }
    values_ = Kokkos::create_mirror_view_and_copy(Space(), a.values);

    CUSPARSE_CHECK(cusparseCreate(&handle_));
    CUSPARSE_CHECK(cusparseSetStream(handle_, Exec().cuda_stream()));
    CUSPARSE_CHECK(cusparseCreateCsr(&a_, a.nrows, a.ncols, nnz, offsets, columns, values_.data(),
                                     index, index, CUSPARSE_INDEX_BASE_ZERO, kValueType));
    CUSPARSE_CHECK(
        cusparseCreateDnMat(&b_desc_, a.ncols, k_, k_, b_.data(), kValueType, CUSPARSE_ORDER_ROW));
    CUSPARSE_CHECK(
        cusparseCreateDnMat(&c_desc_, a.nrows, k_, k_, c_.data(), kValueType, CUSPARSE_ORDER_ROW));
    Kokkos::fence();

    // The faster of ALG2 and ALG3 on this problem (ALG3 may refuse a shape: then ALG2).
    double best = std::numeric_limits<double>::infinity();
    cusparseSpMMAlg_t chosen = CUSPARSE_SPMM_CSR_ALG2;
    for (cusparseSpMMAlg_t alg : {CUSPARSE_SPMM_CSR_ALG2, CUSPARSE_SPMM_CSR_ALG3}) {
      if (!prepare(alg)) continue;
      run();
      const auto t0 = std::chrono::steady_clock::now();
      for (int rep = 0; rep < 3; ++rep) run();
      const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (t < best) {
        best = t;
        chosen = alg;
      }
    }
    if (alg_ != chosen && !prepare(chosen))
      throw RuntimeFailure("cuSPARSE: cusparseSpMM refused the algorithm it ran before");
  }

  ~CusparseSpmm() override {
    // Destroying cannot fail in a way this baseline could act on.
    if (c_desc_) cusparseDestroyDnMat(c_desc_);
    if (b_desc_) cusparseDestroyDnMat(b_desc_);
    if (a_) cusparseDestroySpMat(a_);
    if (handle_) cusparseDestroy(handle_);
  }
  CusparseSpmm(const CusparseSpmm&) = delete;
  CusparseSpmm& operator=(const CusparseSpmm&) = delete;

  void run() override {
    if (empty_) {
      Kokkos::deep_copy(Exec(), c_, Scalar(0));
    } else {
      const Scalar alpha = 1, beta = 0;
      CUSPARSE_CHECK(cusparseSpMM(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                  CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a_, b_desc_, &beta,
                                  c_desc_, kValueType, alg_, buffer_.data()));
    }
    Exec().fence();
  }

  void result(std::vector<Scalar>& c) const override {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c_);
    c.assign(h.data(), h.data() + h.extent(0));
  }

 private:
  // Sizes and allocates the work buffer for `alg` and preprocesses (ALG3); false when
  // cuSPARSE does not support `alg` for this problem.
  bool prepare(cusparseSpMMAlg_t alg) {
    const Scalar alpha = 1, beta = 0;
    const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    std::size_t bytes = 0;
    cusparseStatus_t s = cusparseSpMM_bufferSize(handle_, op, op, &alpha, a_, b_desc_, &beta,
                                                 c_desc_, kValueType, alg, &bytes);
    if (s == CUSPARSE_STATUS_NOT_SUPPORTED) return false;
    check(s, "cusparseSpMM_bufferSize");
    Kokkos::View<char*, Space> buffer(Kokkos::ViewAllocateWithoutInitializing("cusparse buffer"),
                                      bytes > 0 ? bytes : 1);
    if (alg == CUSPARSE_SPMM_CSR_ALG3) {
      s = cusparseSpMM_preprocess(handle_, op, op, &alpha, a_, b_desc_, &beta, c_desc_, kValueType,
                                  alg, buffer.data());
      if (s == CUSPARSE_STATUS_NOT_SUPPORTED) return false;
      check(s, "cusparseSpMM_preprocess");
    }
    buffer_ = buffer;
    alg_ = alg;
    return true;
  }

  int k_;
  bool empty_ = false;
  Kokkos::View<std::int32_t*, Space> offsets32_, columns32_;
  Kokkos::View<std::int64_t*, Space> offsets64_, columns64_;
  Kokkos::View<Scalar*, Space> values_, b_, c_;
  Kokkos::View<char*, Space> buffer_;
  cusparseHandle_t handle_ = nullptr;
  cusparseSpMatDescr_t a_ = nullptr;
  cusparseDnMatDescr_t b_desc_ = nullptr, c_desc_ = nullptr;
  cusparseSpMMAlg_t alg_ = CUSPARSE_SPMM_CSR_ALG2;
};

}  // namespace

template <class Scalar>
std::unique_ptr<SpmmImpl<Scalar>> make_cusparse_spmm(const SpmmProblem<Scalar>& p) {
  return std::make_unique<CusparseSpmm<Scalar>>(p);
}

template std::unique_ptr<SpmmImpl<float>> make_cusparse_spmm(const SpmmProblem<float>&);
template std::unique_ptr<SpmmImpl<double>> make_cusparse_spmm(const SpmmProblem<double>&);

std::string cusparse_version() {
  return std::to_string(CUSPARSE_VER_MAJOR) + "." + std::to_string(CUSPARSE_VER_MINOR) + "." +
         std::to_string(CUSPARSE_VER_PATCH);
}

}  // namespace mimd::bench

#endif  // MIMD_HAVE_CUSPARSE
