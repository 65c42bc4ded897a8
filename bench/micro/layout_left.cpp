// mimd-micro's left_cost family: what each of LayoutLeft's two transposes costs on one
// core, apart from the other, against the row-major kernel (the ratio the README and
// tools/left_cost.py report). A serial call of LeftStrategy::Pack runs C = A B on
// column-major B and C a panel of columns at a time (spmm_detail::panel_width of the
// profile's spmm_left_panel_bytes), each panel
//   pack:  B's columns copied row-major (spmm_detail::pack_rows), then
//   left:  the row-major micro-kernel on that copy, writing C column-major 8 rows at a
//          time through register transposes (whole_rows on spmm_detail::packed_panel),
// where LayoutRight runs `right` (whole_rows on row-major B and C) alone. `copy` is a
// plain copy of B, the least any pass over it costs. So right / left is what LayoutLeft
// would reach if B came packed for free, and pack / right what packing adds. All four are
// the library's own serial code at the profile's SIMD width, tile, panels and pack chunk.
//
//   mimd-micro --benchmark_filter=left_cost --mimd_matrices=a.mtx,b.mtx
#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/bits.hpp"
#include "micro.hpp"
#include "mimd/generators.hpp"
#include "mimd/io.hpp"
#include "spmm/common.hpp"

namespace mimd_micro {
namespace {

using mimd::spmm_detail::DenseArg;
using mimd::spmm_detail::Operands;
using Host = Kokkos::HostSpace;

/// One input at one k: A, B column-major and its row-major copy (panel after panel, each
/// row-major of its own width), C in both layouts.
struct LeftCase {
  std::string name;
  mimd::HostCsr<double> a;
  std::int64_t k = 0;
  Kokkos::View<double*, Host> b_left, b_packed, c;
  int simd = 8, k_tile = 32;
  std::int64_t panel_bytes = 0, width = 0;
  bool prepared = false;

  /// Allocates and fills B (its packed copy too) and C on the first call: a process that
  /// runs other benchmarks allocates nothing for these.
  void prepare() {
    if (prepared) return;
    prepared = true;
    b_left = Kokkos::View<double*, Host>("B", a.ncols * k);
    b_packed = Kokkos::View<double*, Host>("B packed", a.ncols * k);
    c = Kokkos::View<double*, Host>("C", a.nrows * k);
    for (std::int64_t i = 0; i < a.ncols * k; ++i) b_left(i) = 1.0 + (i % 7) * 0.25;
    pack();
  }

  /// B packed as a serial call packs it, each panel into its own part of b_packed.
  void pack() const {
    const DenseArg<const double, Kokkos::LayoutLeft> b{b_left.data(), a.ncols};
    for (std::int64_t t0 = 0; t0 < k; t0 += width) {
      const std::int64_t w = std::min(width, k - t0);
      mimd::spmm_detail::pack_rows(DenseArg<const double, Kokkos::LayoutLeft>{b.at(0, t0), b.ld},
                                   b_packed.data() + a.ncols * t0, 0, a.ncols, w, simd,
                                   mimd::spmm_detail::pack_chunk(panel_bytes, w, sizeof(double)));
    }
  }

  /// The column-major multiply of the packed panels.
  void left() const {
    Operands<double, Kokkos::LayoutLeft> op;
    fill(op);
    op.b = {b_left.data(), a.ncols};
    op.c = {c.data(), a.nrows};
    for (std::int64_t t0 = 0; t0 < k; t0 += width) {
      const std::int64_t w = std::min(width, k - t0);
      mimd::spmm_detail::whole_rows(
          mimd::spmm_detail::packed_panel(op, b_packed.data() + a.ncols * t0, t0, w, k_tile), 0,
          a.nrows, a.values.data(), a.entries.data(), 0);
    }
  }

  /// The row-major kernel on B and C as LayoutRight holds them (b_packed's bytes read as
  /// one row-major n x k operand: the values do not matter to the time).
  void right() const {
    Operands<double, Kokkos::LayoutRight> op;
    fill(op);
    op.b = {b_packed.data(), k};
    op.c = {c.data(), k};
    mimd::spmm_detail::whole_rows(op, 0, a.nrows, a.values.data(), a.entries.data(), 0);
  }

 private:
  template <class Op>
  void fill(Op& op) const {
    op.a = {a.nrows, a.ncols, a.nnz(), a.row_map.data(), a.entries.data(), a.values.data()};
    op.k = k;
    op.alpha = 1;
    op.beta = 0;
    op.k_tile = k_tile;
    op.simd = simd;
  }
};

enum class Part { Right, Left, Pack, Copy };

void bm_left_cost(benchmark::State& state, std::shared_ptr<LeftCase> lc, Part part) {
  lc->prepare();
  for (auto _ : state) {
    switch (part) {
      case Part::Right:
        lc->right();
        break;
      case Part::Left:
        lc->left();
        break;
      case Part::Pack:
        lc->pack();
        break;
      case Part::Copy:
        std::memcpy(lc->b_packed.data(), lc->b_left.data(), sizeof(double) * lc->a.ncols * lc->k);
        break;
    }
    benchmark::ClobberMemory();
  }
  // The panels the multiplies read must hold B row-major again after a plain copy.
  if (part == Part::Copy) lc->pack();
  state.SetLabel(lc->name + " k=" + std::to_string(lc->k) + " panel=" + std::to_string(lc->width));
}

}  // namespace

void register_layout_left(const mimd::TuningProfile& profile,
                          const std::vector<std::string>& matrices) {
  std::vector<std::pair<std::string, mimd::HostCsr<double>>> inputs;
  for (const char* spec : {"stencil3d:24", "powerlaw:20000:16"})
    inputs.emplace_back(spec, mimd::generate(spec));
  for (const auto& path : matrices)
    inputs.emplace_back(path.substr(path.find_last_of('/') + 1), mimd::read_matrix<double>(path));
  const int simd = mimd::effective_simd_width(profile.simd_bytes);
  const int k_tile = mimd::core_detail::pow2_floor(static_cast<std::uint64_t>(profile.spmm_k_tile));
  for (auto& [name, a] : inputs) {
    for (std::int64_t k : {8, 32, 128}) {
      auto lc = std::make_shared<LeftCase>();
      lc->name = name;
      lc->a = a;
      lc->k = k;
      lc->simd = simd;
      lc->k_tile = k_tile;
      lc->panel_bytes = profile.spmm_left_panel_bytes;
      lc->width = mimd::spmm_detail::panel_width(
          lc->panel_bytes, std::max<std::int64_t>(1, a.ncols), k, sizeof(double));
      const std::string tail = "/" + name + "/k:" + std::to_string(k);
      for (auto [part, label] : {std::pair{Part::Right, "right"}, std::pair{Part::Left, "left"},
                                 std::pair{Part::Pack, "pack"}, std::pair{Part::Copy, "copy"}})
        benchmark::RegisterBenchmark((std::string("left_cost/") + label + tail).c_str(),
                                     bm_left_cost, lc, part)
            ->UseRealTime()
            ->Unit(benchmark::kMicrosecond);
    }
  }
}

}  // namespace mimd_micro
