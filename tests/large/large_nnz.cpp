// More than 2^31 nonzeros: an SpMV and a BFS on one generated pattern of 2^24 rows
// whose upper half, rows [2^23, 2^24), holds a circulant graph of degree 257 (a
// self-loop and +-o for 128 offsets o, column indices wrapping inside the upper half):
// 2^23 * 257 = 2,155,872,256 stored entries, so every offset and index product beyond
// 2^31 must be 64-bit. Memory: the int32 column array (8.0 GiB) is shared by the SpMV
// and the BFS, and the SpMV's float values are that same array read as float: every
// column index lies in [2^23, 2^24), whose bits are normal floats in [2^-126, 2^-125),
// so A needs no second 8 GiB array. About 8.5 GiB in all.
// Checks: every y_i against a double-precision sum over the row; the BFS tree by
// Graph500's five rules (mimd::validate_bfs) and its reach (the whole upper half).
// Exit status: 0 passed, 1 failed, 77 skipped (device build, or less memory available
// than the run needs). Labelled `large`: run by `tools/mimd test -L large`.
#include <Kokkos_Core.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "mimd/bfs.hpp"
#include "mimd/context.hpp"
#include "mimd/error.hpp"
#include "mimd/memory.hpp"
#include "mimd/spmm.hpp"

namespace {

constexpr std::int64_t kRows = std::int64_t{1} << 24;
constexpr std::int64_t kHalf = kRows / 2;  // the graph lives in rows [kHalf, kRows)
constexpr int kOffsets = 128;
constexpr std::int64_t kDegree = 2 * kOffsets + 1;
constexpr std::int64_t kNnz = kHalf * kDegree;
static_assert(kNnz > (std::int64_t{1} << 31), "the point of the test");

using Host = Kokkos::DefaultHostExecutionSpace;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Offsets 1, then 127 spread over [2, kHalf / 2) by a multiplicative hash: a graph of
// small diameter (a few BFS levels), connected through offset 1.
std::vector<std::int64_t> circulant_offsets() {
  std::vector<std::int64_t> o{1};
  for (std::uint64_t j = 1; j < kOffsets; ++j)
    o.push_back(2 + static_cast<std::int64_t>((j * 0x9E3779B97F4A7C15ull) >> 44) % (kHalf / 2 - 2));
  return o;
}

int run() {
  if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                            mimd::DefaultMemorySpace>::accessible) {
    std::printf("SKIPPED: the values alias the host column array (host builds only)\n");
    return 77;
  } else {
    const std::uint64_t need = (std::uint64_t{17} << 29);  // 8.5 GiB
    const std::uint64_t avail = mimd::available_memory_bytes();
    if (avail < need) {
      std::printf("SKIPPED: %.1f GiB available, the run needs %.1f GiB\n", avail / 1073741824.0,
                  need / 1073741824.0);
      return 77;
    }
    const mimd::ExecutionContext ctx;
    const std::vector<std::int64_t> off = circulant_offsets();
    const Kokkos::View<const std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> offs(
        off.data(), off.size());
    auto t0 = std::chrono::steady_clock::now();

    mimd::HostPattern p;
    p.nrows = p.ncols = static_cast<std::int32_t>(kRows);
    p.row_map = mimd::HostPattern::row_map_type(
        Kokkos::ViewAllocateWithoutInitializing("large.row_map"), kRows + 1);
    p.entries = mimd::HostPattern::entries_type(
        Kokkos::ViewAllocateWithoutInitializing("large.entries"), kNnz);
    const auto rm = p.row_map;
    const auto en = p.entries;
    Kokkos::parallel_for(
        "large::generate", Kokkos::RangePolicy<Host>(0, kRows + 1), [=](std::int64_t r) {
          rm(r) = r <= kHalf ? 0 : (r - kHalf) * kDegree;
          if (r >= kRows || r < kHalf) return;
          const std::int64_t a = r - kHalf;
          std::int64_t j = (r - kHalf) * kDegree;
          en(j++) = static_cast<std::int32_t>(r);
          for (std::size_t t = 0; t < offs.extent(0); ++t) {
            en(j++) = static_cast<std::int32_t>(kHalf + (a + offs(t)) % kHalf);
            en(j++) = static_cast<std::int32_t>(kHalf + (a - offs(t) + kHalf) % kHalf);
          }
        });
    Kokkos::fence();
    std::printf("generated: %lld rows, %lld entries (2^31 = %lld) in %.1f s\n",
                static_cast<long long>(kRows), static_cast<long long>(kNnz),
                static_cast<long long>(std::int64_t{1} << 31), seconds_since(t0));

    // SpMV in float, values = the column array's bits.
    mimd::Csr<float> a;
    a.nrows = a.ncols = p.nrows;
    a.row_map = p.row_map;
    a.entries = p.entries;
    a.values = mimd::Csr<float>::values_type(reinterpret_cast<float*>(p.entries.data()), kNnz);
    std::vector<float> x(kRows), y(kRows, -1.0f);
    for (std::int64_t j = 0; j < kRows; ++j) x[j] = 1.0f + static_cast<float>(j % 7) / 8;
    t0 = std::chrono::steady_clock::now();
    const mimd::SpmmPlan<float, Kokkos::LayoutRight> plan(ctx, a, 1);
    const double inspect = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    plan.apply(1.0f, a, 1, x.data(), 1, 0.0f, y.data(), 1);
    Kokkos::fence();
    std::printf("spmv: %s, plan %.1f s (validation included), apply %.2f s\n",
                plan.describe().c_str(), inspect, seconds_since(t0));
    const float* xs = x.data();
    const float* ys = y.data();
    std::int64_t bad = 0;
    Kokkos::parallel_reduce(
        "large::check_spmv", Kokkos::RangePolicy<Host>(0, kRows),
        [=](std::int64_t i, std::int64_t& count) {
          double want = 0;
          for (std::int64_t j = rm(i); j < rm(i + 1); ++j) {
            float v;
            std::memcpy(&v, &en(j), sizeof v);
            want += static_cast<double>(v) * xs[en(j)];
          }
          const double got = ys[i];
          if (!(std::abs(got - want) <= 1e-5 * std::abs(want))) ++count;
        },
        bad);
    std::printf("spmv check: %lld rows differ from the double sum by more than 1e-5\n",
                static_cast<long long>(bad));

    // BFS on the same pattern (symmetric by construction).
    t0 = std::chrono::steady_clock::now();
    const mimd::BfsGraph g = mimd::BfsGraph::undirected(p);
    mimd::BfsRunner bfs(ctx, g);
    const double setup = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    const std::int32_t source = static_cast<std::int32_t>(kHalf + 12345);
    const mimd::BfsResult& r = bfs.run(source);
    std::printf("bfs: graph %.1f s, search %.2f s, %lld vertices reached, %lld edges examined\n",
                setup, seconds_since(t0), static_cast<long long>(r.reached),
                static_cast<long long>(r.edges_examined));
    t0 = std::chrono::steady_clock::now();
    const mimd::BfsValidation v = mimd::validate_bfs(g, source, r.parents, r.depths);
    std::printf("bfs check: %s (%.1f s)%s%s\n", v.ok ? "valid" : "INVALID", seconds_since(t0),
                v.ok ? "" : ": ", v.message.c_str());
    const bool ok = bad == 0 && v.ok && r.reached == kHalf;
    if (r.reached != kHalf)
      std::printf("FAIL: reached %lld, the upper half has %lld\n",
                  static_cast<long long>(r.reached), static_cast<long long>(kHalf));
    std::printf("%s\n", ok ? "PASS" : "FAILED");
    return ok ? 0 : 1;
  }
}

}  // namespace

int main() {
  try {
    return run();
  } catch (const std::exception& e) {
    std::printf("FAILED: %s\n", e.what());
    return 1;
  }
}
