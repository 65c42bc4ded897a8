// Helpers of the SpMM tests: deterministic test matrices, operands on the device, and
// the comparison against the reference with a tolerance derived from the operation.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "mimd/spmm.hpp"
#include "support/test_context.hpp"

namespace mimd::testing {

/// A CSR matrix on the host as plain vectors (columns may be unsorted).
struct TestMatrix {
  std::string name;
  std::int32_t m = 0, n = 0;
  std::vector<std::int64_t> row_map{0};
  std::vector<std::int32_t> col;
  std::vector<double> val;
};

/// Rows of the given lengths, random distinct-or-not columns in [0, n), values in [-1, 1].
/// `shuffle` leaves the columns of every row unsorted.
inline TestMatrix matrix_from_lengths(const std::string& name, std::int32_t n,
                                      const std::vector<std::int64_t>& lengths, std::uint32_t seed,
                                      bool shuffle = false) {
  TestMatrix a;
  a.name = name;
  a.m = static_cast<std::int32_t>(lengths.size());
  a.n = n;
  std::mt19937 gen(seed);
  std::uniform_int_distribution<std::int32_t> pick(0, std::max(0, n - 1));
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  for (auto len : lengths) {
    std::vector<std::int32_t> cols(static_cast<std::size_t>(len));
    for (auto& c : cols) c = pick(gen);
    std::sort(cols.begin(), cols.end());
    if (shuffle) std::shuffle(cols.begin(), cols.end(), gen);
    for (auto c : cols) {
      a.col.push_back(c);
      a.val.push_back(value(gen));
    }
    a.row_map.push_back(static_cast<std::int64_t>(a.col.size()));
  }
  return a;
}

/// The adversarial structures every algorithm is tested on. `block` is a block size
/// the LSSM configurations use, so that rows sit exactly at it and one past it.
inline std::vector<TestMatrix> adversarial_matrices(std::int64_t block) {
  std::vector<TestMatrix> out;
  out.push_back(matrix_from_lengths("empty 0x5", 5, {}, 1));
  out.push_back(matrix_from_lengths("no nonzeros 7x5", 5, std::vector<std::int64_t>(7, 0), 2));
  {
    std::vector<std::int64_t> len(60);
    std::mt19937 gen(3);
    for (auto& l : len) l = gen() % 3 == 0 ? 0 : gen() % 12;
    out.push_back(matrix_from_lengths("empty rows 60x50", 50, len, 4));
  }
  {
    std::vector<std::int64_t> len(40, 0);
    len[17] = 300;
    out.push_back(matrix_from_lengths("one row holds all 40x64", 64, len, 5));
  }
  {
    const std::int64_t b = block;
    out.push_back(matrix_from_lengths(
        "rows at and past block", 90,
        {1, b, b + 1, 2, 0, b - 1, 2 * b, 2 * b + 1, 3, b, 1, b + 1, 5 * b + 3, 0, 2}, 6));
  }
  {
    std::vector<std::int64_t> len(12);
    std::mt19937 gen(7);
    for (auto& l : len) l = 100 + gen() % 150;
    out.push_back(matrix_from_lengths("only long rows 12x300", 300, len, 8));
  }
  {
    std::vector<std::int64_t> len(3);
    for (auto& l : len) l = 40;
    out.push_back(matrix_from_lengths("wide 3x500", 500, len, 9));
  }
  {
    std::vector<std::int64_t> len(400);
    std::mt19937 gen(10);
    for (auto& l : len) l = gen() % 4;
    out.push_back(matrix_from_lengths("tall 400x4", 4, len, 11));
  }
  {
    std::vector<std::int64_t> len(80);
    std::mt19937 gen(12);
    for (auto& l : len) l = gen() % 20;
    out.push_back(matrix_from_lengths("unsorted columns 80x70", 70, len, 13, true));
  }
  return out;
}

template <class S>
Csr<S> to_device(const TestMatrix& t) {
  Csr<S> a;
  a.nrows = t.m;
  a.ncols = t.n;
  a.row_map = typename Csr<S>::row_map_type("A.row_map", t.row_map.size());
  a.entries = typename Csr<S>::entries_type("A.entries", t.col.size());
  a.values = typename Csr<S>::values_type("A.values", t.val.size());
  auto rm = Kokkos::create_mirror_view(a.row_map);
  auto en = Kokkos::create_mirror_view(a.entries);
  auto va = Kokkos::create_mirror_view(a.values);
  for (std::size_t i = 0; i < t.row_map.size(); ++i) rm(i) = t.row_map[i];
  for (std::size_t i = 0; i < t.col.size(); ++i) {
    en(i) = t.col[i];
    va(i) = static_cast<S>(t.val[i]);
  }
  Kokkos::deep_copy(a.row_map, rm);
  Kokkos::deep_copy(a.entries, en);
  Kokkos::deep_copy(a.values, va);
  return a;
}

/// A dense m x k operand filled with values in [-1, 1] (or `fill` everywhere when given).
template <class S, class L>
Dense<S, L> dense(std::int64_t rows, std::int64_t k, std::uint32_t seed,
                  double fill = std::numeric_limits<double>::quiet_NaN(), bool use_fill = false) {
  Dense<S, L> d("dense", rows, k);
  auto h = Kokkos::create_mirror_view(d);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t t = 0; t < k; ++t) h(i, t) = static_cast<S>(use_fill ? fill : value(gen));
  Kokkos::deep_copy(d, h);
  return d;
}

/// Bound on |got - expected| for C(i, t): two sums of len + 1 terms, each within
/// (len + 2) * eps of the magnitudes |alpha| sum_j |A(i,j) B(j,t)| + |beta C0(i,t)|.
template <class S>
double tolerance(std::int64_t len, double magnitude) {
  return 10.0 * std::numeric_limits<S>::epsilon() * static_cast<double>(len + 2) * magnitude +
         std::numeric_limits<S>::min();
}

/// Compares `got` with `expected` element by element; reports the first mismatches
/// with their row, column, expected and got values.
template <class S, class L>
::testing::AssertionResult matches(const TestMatrix& t, const Dense<S, L>& b0,
                                   const Dense<S, L>& c0, S alpha, S beta,
                                   const Dense<S, L>& expected, const Dense<S, L>& got) {
  auto bh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b0);
  auto ch = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c0);
  auto eh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), expected);
  auto gh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), got);
  const std::int64_t k = static_cast<std::int64_t>(got.extent(1));
  int bad = 0;
  std::ostringstream msg;
  for (std::int64_t i = 0; i < t.m; ++i) {
    for (std::int64_t x = 0; x < k; ++x) {
      double mag = 0;
      for (auto j = t.row_map[i]; j < t.row_map[i + 1]; ++j)
        mag += std::abs(static_cast<double>(static_cast<S>(t.val[j])) *
                        static_cast<double>(bh(t.col[j], x)));
      mag = std::abs(double(alpha)) * mag +
            (beta == S(0) ? 0.0 : std::abs(double(beta) * double(ch(i, x))));
      const double e = eh(i, x), g = gh(i, x);
      const double tol = tolerance<S>(t.row_map[i + 1] - t.row_map[i], mag);
      if (!(std::isfinite(e) && std::isfinite(g) && std::abs(e - g) <= tol)) {
        if (bad++ < 5)
          msg << "\n  C(" << i << ", " << x << "): expected " << e << ", got " << g
              << " (tolerance " << tol << ")";
      }
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << bad << " mismatches in " << t.name << " (" << t.m << "x" << t.n << ", k = " << k
         << ", alpha = " << alpha << ", beta = " << beta << ")" << msg.str();
}

/// An algorithm configuration under test.
struct Config {
  std::string name;
  SpmmOptions options;
};

/// Every algorithm, LSSM and team LSSM also with small blocks (4, 8), both combine modes
/// and scratch on and off, so that splitting and merging happen on small matrices.
inline std::vector<Config> all_configs() {
  std::vector<Config> out;
  for (auto a : spmm_algorithms()) {
    SpmmOptions o;
    o.algorithm = a;
    out.push_back({to_string(a), o});
  }
  struct Variant {
    int block;
    SplitCombine combine;
    bool scratch;
  };
  // Each combine with scratch on and off, each block (4, 8) with both combines.
  const Variant variants[] = {{8, SplitCombine::TwoPass, false},
                              {4, SplitCombine::Atomic, true},
                              {8, SplitCombine::Atomic, false},
                              {4, SplitCombine::TwoPass, true}};
  for (auto a : {SpmmAlgorithm::Lssm, SpmmAlgorithm::LssmTeam})
    for (const Variant& v : variants) {
      SpmmOptions o;
      o.algorithm = a;
      o.block_nnz = v.block;
      o.combine = v.combine;
      o.use_scratch = v.scratch;
      out.push_back({std::string(to_string(a)) + " block " + std::to_string(v.block) + " " +
                         to_string(v.combine) + (v.scratch ? " scratch" : ""),
                     o});
    }
  SpmmOptions au;
  au.algorithm = SpmmAlgorithm::Auto;
  out.push_back({"auto", au});
  return out;
}

/// Runs one configuration and the reference on the same inputs and compares.
/// With beta = 0, C starts as NaN (every other element Inf) to check it is overwritten.
template <class S, class L>
::testing::AssertionResult check_against_reference(const Config& cfg, const TestMatrix& t,
                                                   std::int64_t k, S alpha, S beta,
                                                   std::uint32_t seed) {
  const auto a = to_device<S>(t);
  const auto b = dense<S, L>(t.n, k, seed);
  auto c0 = dense<S, L>(t.m, k, seed + 1);
  if (beta == S(0)) {
    auto h = Kokkos::create_mirror_view(c0);
    for (std::int64_t i = 0; i < t.m; ++i)
      for (std::int64_t x = 0; x < k; ++x)
        h(i, x) =
            (i + x) % 2 ? std::numeric_limits<S>::infinity() : std::numeric_limits<S>::quiet_NaN();
    Kokkos::deep_copy(c0, h);
  }
  Dense<S, L> expected("expected", t.m, k), got("got", t.m, k);
  Kokkos::deep_copy(expected, c0);
  Kokkos::deep_copy(got, c0);
  SpmmOptions ref;
  ref.algorithm = SpmmAlgorithm::Reference;
  auto& ctx = context();
  spmm<S, L>(ctx, alpha, a, b, beta, expected, ref);
  SpmmPlan<S, L> plan(ctx, a, static_cast<int>(k), cfg.options);
  plan.apply(alpha, a, b, beta, got);
  auto r = matches(t, b, c0, alpha, beta, expected, got);
  if (!r) r << "\n  configuration: " << cfg.name << " (" << plan.describe() << ")";
  return r;
}

}  // namespace mimd::testing
