// Default tuning profiles per device, and JSON overrides.
#include "mimd/tuning.hpp"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/bits.hpp"
#include "mimd/error.hpp"

namespace mimd {

const char* to_string(SplitCombine c) noexcept {
  return c == SplitCombine::Atomic ? "atomic" : "two_pass";
}

namespace {
bool is_gpu_backend(const std::string& backend) {
  return backend == "Cuda" || backend == "HIP" || backend == "SYCL" ||
         backend == "Experimental::HIP" || backend == "Experimental::SYCL";
}
}  // namespace

TuningProfile default_profile(const Topology& topo, const std::string& backend) {
  TuningProfile p;
  const bool gpu = is_gpu_backend(backend);
  const std::uint64_t l1 = topo.cache_bytes(1) ? topo.cache_bytes(1) : 32 * 1024;
  const std::uint64_t l2 = topo.cache_bytes(2) ? topo.cache_bytes(2) : 512 * 1024;
  p.simd_bytes = std::max(8, std::min(topo.simd.build_bytes, topo.simd.cpu_bytes));
  if (gpu) {
    // A unit is one team's work: a warp-multiple of nonzeros; shared memory stages
    // the slice of A, and split rows are combined with (cheap) global atomics.
    p.spmm_block_nnz = 1024;
    p.bfs_serial_graph = 0;
    p.spmm_use_scratch = true;
    p.spmm_combine = SplitCombine::Atomic;
    p.spmm_units_per_thread = 1;
    p.spmm_k_tile = 32;
    p.simd_bytes = 128;                // 32 lanes of 4 bytes
    p.team_vector = 32;                // a warp
    p.team_scratch_bytes = 48 * 1024;  // the static shared memory of a block
  } else {
    // LSSM units: the slice of A of one unit (value + column index per nonzero) is
    // streamed once, so it need not fit L1; what costs is the hand-out of a unit and
    // the broken prefetch stream at unit boundaries. Measured on a 2-core Zen 4 (L2
    // 1 MiB), k = 32: blocks of 4096 beat 1024 by 3-7% on matrices of 0.1-0.6 M
    // nonzeros with a shared counter, and tie with per-worker counters; small matrices
    // shrink the block anyway (spmm_units_per_thread). So: 1/16 of L2, in [1024, 4096].
    const std::uint64_t per_nnz = sizeof(double) + sizeof(std::int32_t);
    p.spmm_block_nnz = std::clamp(core_detail::pow2_floor(l2 / 16 / per_nnz), 1024, 4096);
    // Scratch on a CPU is one more copy of A's slice into memory that is L1 anyway:
    // measured 3-8% slower (bcsstk33, ex6, rajat01, k = 32).
    p.spmm_use_scratch = false;
    // Atomic adds on C are CAS loops on x86; the buffered combine (run by the last chunk
    // of each split row) was 4-10% faster on rajat01, hangGlider_2, adder_dcop_05 and a
    // power-law matrix with blocks of 256 (where their long rows split).
    p.spmm_combine = SplitCombine::TwoPass;
    p.spmm_units_per_thread = 4;  // measured: 2, 4 and 8 within noise; 4 keeps some slack
    // Widest tile of k: 4 vector registers of accumulators per chain (two chains), so
    // 8 of the 16/32 registers; 32 and 64 measured within noise at k = 128 (AVX-512).
    p.spmm_k_tile = std::max(8, 4 * p.simd_bytes / static_cast<int>(sizeof(double)));
  }
  std::ostringstream name;
  name << (gpu ? "gpu-" : "cpu-") << backend << "-" << topo.simd.build_isa << "-l1_" << l1 / 1024
       << "k-l2_" << l2 / 1024 << "k";
  p.name = name.str();
  return p;
}

std::string TuningProfile::to_json() const {
  nlohmann::ordered_json j;
  j["name"] = name;
  j["spmm_block_nnz"] = spmm_block_nnz;
  j["spmm_units_per_thread"] = spmm_units_per_thread;
  j["spmm_use_scratch"] = spmm_use_scratch;
  j["spmm_combine"] = to_string(spmm_combine);
  j["simd_bytes"] = simd_bytes;
  j["spmm_k_tile"] = spmm_k_tile;
  j["bfs_alpha"] = bfs_alpha;
  j["bfs_beta"] = bfs_beta;
  j["bfs_hub_degree"] = bfs_hub_degree;
  j["bfs_serial_edges"] = bfs_serial_edges;
  j["bfs_serial_graph"] = bfs_serial_graph;
  j["team_size"] = team_size;
  j["team_vector"] = team_vector;
  j["team_scratch_bytes"] = team_scratch_bytes;
  return j.dump(2);
}

TuningProfile load_profile(const std::string& path, TuningProfile p) {
  std::ifstream in(path);
  if (!in) throw IoError(path, "cannot open tuning profile");
  nlohmann::json j;
  try {
    in >> j;
  } catch (const nlohmann::json::parse_error& e) {
    throw ParseError(path, 0, ParseErrorKind::NotANumber, std::string("invalid JSON: ") + e.what());
  }
  auto get_int = [&](const char* key, int& dst) {
    if (!j.contains(key)) return;
    if (!j[key].is_number_integer())
      throw ParseError(path, 0, ParseErrorKind::NotANumber,
                       std::string("field '") + key + "' must be an integer", j[key].dump());
    dst = j[key].get<int>();
  };
  if (j.contains("name")) p.name = j["name"].get<std::string>();
  get_int("spmm_block_nnz", p.spmm_block_nnz);
  get_int("spmm_units_per_thread", p.spmm_units_per_thread);
  get_int("simd_bytes", p.simd_bytes);
  get_int("spmm_k_tile", p.spmm_k_tile);
  get_int("bfs_alpha", p.bfs_alpha);
  get_int("bfs_beta", p.bfs_beta);
  get_int("bfs_hub_degree", p.bfs_hub_degree);
  get_int("bfs_serial_edges", p.bfs_serial_edges);
  get_int("bfs_serial_graph", p.bfs_serial_graph);
  get_int("team_size", p.team_size);
  get_int("team_vector", p.team_vector);
  get_int("team_scratch_bytes", p.team_scratch_bytes);
  if (j.contains("spmm_use_scratch")) {
    if (!j["spmm_use_scratch"].is_boolean())
      throw ParseError(path, 0, ParseErrorKind::NotANumber,
                       "field 'spmm_use_scratch' must be true or false",
                       j["spmm_use_scratch"].dump());
    p.spmm_use_scratch = j["spmm_use_scratch"].get<bool>();
  }
  if (j.contains("spmm_combine")) {
    const auto v = j["spmm_combine"].is_string() ? j["spmm_combine"].get<std::string>() : "";
    if (v == "atomic")
      p.spmm_combine = SplitCombine::Atomic;
    else if (v == "two_pass")
      p.spmm_combine = SplitCombine::TwoPass;
    else
      throw ParseError(path, 0, ParseErrorKind::UnsupportedField,
                       "field 'spmm_combine' must be \"atomic\" or \"two_pass\"",
                       j["spmm_combine"].dump());
  }
  if (p.spmm_block_nnz < 1 || p.bfs_alpha < 1 || p.bfs_beta < 1 || p.spmm_k_tile < 1)
    throw InvalidArgument(path +
                          ": spmm_block_nnz, spmm_k_tile, bfs_alpha and bfs_beta must be >= 1");
  if (p.team_size < 0 || p.team_vector < 1 || p.team_scratch_bytes < 0)
    throw InvalidArgument(path + ": team_size = " + std::to_string(p.team_size) +
                          ", team_vector = " + std::to_string(p.team_vector) +
                          ", team_scratch_bytes = " + std::to_string(p.team_scratch_bytes) +
                          ": need team_size >= 0, team_vector >= 1, team_scratch_bytes >= 0");
  return p;
}

}  // namespace mimd
