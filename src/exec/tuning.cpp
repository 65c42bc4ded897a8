// Tuning profiles: the table of knobs and their ranges, the derived defaults per
// device, JSON files, the device fingerprint, and the SIMD widths of the micro-kernel.
#include "mimd/tuning.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/bits.hpp"
#include "core/simd.hpp"
#include "mimd/error.hpp"

namespace mimd {

const char* to_string(SplitCombine c) noexcept {
  return c == SplitCombine::Atomic ? "atomic" : "two_pass";
}

const char* to_string(LeftStrategy s) noexcept {
  return s == LeftStrategy::Tile ? "tile" : "pack";
}

const std::vector<IntKnob>& int_knobs() {
  constexpr int big = std::numeric_limits<int>::max();
  static const std::vector<IntKnob> knobs = {
      {"spmm_block_nnz", &TuningProfile::spmm_block_nnz, 1, 1 << 24},
      {"spmm_units_per_thread", &TuningProfile::spmm_units_per_thread, 1, 1024},
      {"spmm_block_floor", &TuningProfile::spmm_block_floor, 1, 1 << 24},
      {"spmm_block_floor_work", &TuningProfile::spmm_block_floor_work, 1, big},
      {"simd_bytes", &TuningProfile::simd_bytes, 8, 128},
      // 64: the widest tile the micro-kernel is specialised for (common.hpp).
      {"spmm_k_tile", &TuningProfile::spmm_k_tile, 1, 64},
      {"spmm_left_k_tile", &TuningProfile::spmm_left_k_tile, 1, 64},
      {"spmm_left_pack_min_k", &TuningProfile::spmm_left_pack_min_k, 2, big},
      {"spmm_left_panel_bytes", &TuningProfile::spmm_left_panel_bytes, 1, big},
      {"spmm_left_split_min_k", &TuningProfile::spmm_left_split_min_k, 2, big},
      {"spmm_left_blocks_pct", &TuningProfile::spmm_left_blocks_pct, 0, 100},
      {"spmm_serial_work_k1", &TuningProfile::spmm_serial_work_k1, 0, big},
      {"spmm_serial_work_k8", &TuningProfile::spmm_serial_work_k8, 0, big},
      {"spmm_serial_work_k32", &TuningProfile::spmm_serial_work_k32, 0, big},
      {"spmm_serial_work_k128", &TuningProfile::spmm_serial_work_k128, 0, big},
      {"spmm_static_work", &TuningProfile::spmm_static_work, 0, big},
      {"bfs_alpha", &TuningProfile::bfs_alpha, 1, big},
      {"bfs_beta", &TuningProfile::bfs_beta, 1, big},
      {"bfs_hub_degree", &TuningProfile::bfs_hub_degree, 1, big},
      {"bfs_serial_edges", &TuningProfile::bfs_serial_edges, 0, big},
      {"bfs_serial_graph", &TuningProfile::bfs_serial_graph, 0, big},
      {"bfs_td_blocks_per_thread", &TuningProfile::bfs_td_blocks_per_thread, 1, 1 << 16},
      {"bfs_td_min_block_edges", &TuningProfile::bfs_td_min_block_edges, 1, big},
      {"bfs_td_prefetch_vertices", &TuningProfile::bfs_td_prefetch_vertices, 0, 1024},
      {"bfs_td_prefetch_edges", &TuningProfile::bfs_td_prefetch_edges, 0, 1024},
      {"bfs_bu_chunk_words", &TuningProfile::bfs_bu_chunk_words, 1, 1 << 20},
      {"bfs_append_words", &TuningProfile::bfs_append_words, 1, 1 << 20},
      {"team_size", &TuningProfile::team_size, 0, 1024},
      {"team_vector", &TuningProfile::team_vector, 1, 1024},
      {"team_scratch_bytes", &TuningProfile::team_scratch_bytes, 0, 1 << 24},
  };
  return knobs;
}

namespace {

bool is_gpu_backend(const std::string& backend) {
  return backend == "Cuda" || backend == "HIP" || backend == "SYCL" ||
         backend == "Experimental::HIP" || backend == "Experimental::SYCL";
}

bool known_algorithm(const std::string& a) {
  return a == "lssm" || a == "merge_path" || a == "row_parallel";
}

}  // namespace

void validate_profile(const TuningProfile& p, const std::string& where) {
  for (const auto& k : int_knobs()) {
    const int v = p.*k.field;
    if (v < k.min || v > k.max)
      throw InvalidArgument(where + ": " + k.name + " = " + std::to_string(v) + " outside [" +
                            std::to_string(k.min) + ", " + std::to_string(k.max) + "]");
  }
  for (const auto& r : p.auto_rule.rows)
    if (r.k_max < 1 || !(r.cv_max >= 0) || !(r.imbalance_max >= 0) || !(r.nnz_max >= 0) ||
        !(r.max_row_max >= 0) || !known_algorithm(r.algorithm))
      throw InvalidArgument(where + ": auto_rule row {k_max " + std::to_string(r.k_max) +
                            ", cv_max " + std::to_string(r.cv_max) + ", imbalance_max " +
                            std::to_string(r.imbalance_max) + ", nnz_max " +
                            std::to_string(r.nnz_max) + ", max_row_max " +
                            std::to_string(r.max_row_max) + ", algorithm '" + r.algorithm +
                            "'} needs k_max >= 1, the other limits >= 0 and "
                            "lssm/merge_path/row_parallel");
}

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
    p.spmm_left_panel_bytes = std::numeric_limits<int>::max();  // one panel: no reuse to keep
    set_spmm_serial_work(p, 0);  // the calling thread cannot reach device memory
    p.spmm_static_work = 0;      // a unit is a team; the hardware schedules them (no hand-out)
    p.spmm_left_split_min_k = std::numeric_limits<int>::max();  // a launch is not a core
    p.spmm_left_blocks_pct = 0;  // nor is a team's copy of B its own cache
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
    // Column-major operands, on a 2-core Xeon (AVX-512), the 24 evaluation matrices:
    // packing B (C written in place through register transposes) against B read in place
    // in tiles of 8 columns, geomean of LayoutLeft / LayoutRight: 0.33 vs 0.28 over k = 8,
    // 32, 128; in place ahead at k = 8 on all but the densest rows (bcsstk13/33, ex6), packing
    // ahead at k >= 32 on all but the smallest matrices. mimd-tune fits the threshold.
    p.spmm_left_strategy = LeftStrategy::Pack;
    p.spmm_left_pack_min_k = 16;
    // Panels of B: the copy of a whole B beside B and C overflowed the last-level cache
    // where B and C alone fit (2-core Zen 3, L2 512 KiB, L3 32 MiB: Pd and fe_4elt2 at
    // k = 128, 8-11 MiB each, LayoutLeft 0.13-0.19x of LayoutRight). Copies of 1 MiB there
    // (the cores' L2 together) gave 0.29x and 0.41x, and luxembourg_osm 0.27x -> 0.63x;
    // 2.7 MiB within noise of it, panels of 8 columns 3-5x slower on the smallest matrices
    // (a launch per panel). mimd-tune measures the choice.
    const std::uint64_t llc = topo.cache_bytes(3) ? topo.cache_bytes(3) : 4 * l2;
    p.spmm_left_panel_bytes = static_cast<int>(
        std::min<std::uint64_t>({l2 * static_cast<std::uint64_t>(std::max(1, topo.cores)), llc / 4,
                                 static_cast<std::uint64_t>(std::numeric_limits<int>::max())}));
    // Columns split between the workers from k = 16 on: 2-core Xeon (model 167), 12 of the
    // evaluation matrices at k = 32 and 128, LayoutLeft / LayoutRight 1.2-3.5x higher than
    // rows split over one shared copy on all but bcsstk21, fe_4elt2 and luxembourg_osm at
    // k = 128 (the largest B, before the split columns were packed in panels).
    // mimd-tune measures the choice.
    p.spmm_left_split_min_k = 16;
    // Below it, the rows split by the blocks of B they read, every worker copying its own
    // blocks, whatever their overlap: 2-core Zen 5 VM, the 24 evaluation matrices at k = 8,
    // LayoutLeft / LayoutRight geomean 0.60-0.62 (lowest 0.36-0.46) in three reports, against
    // 0.45 (lowest 0.15: crack, ca-GrQc, commanche_dual) over one shared copy before (git
    // 7760565, whose pack also walked all k columns at once). A worker's own copy costs
    // its fraction of B's blocks against 1 / workers of B for its part of a shared copy:
    // on a 16-core Xeon (model 207), k = 8 and 32, the matrices whose shares read at most
    // 19% of B each (3 times an even share: bcsstk21, bcsstk33, ex6, jagmesh7, watt_2)
    // ran at 0.80-0.94x and 0.37-0.52x of LayoutRight, those whose shares read 78-91%
    // (crack, bcspwr10, ca-GrQc, rajat01: 12-15 times) at 0.33-0.49x and 0.07-0.10x. So
    // at most 4 times an even share: 100% up to 4 cores (the 2-core measurements above),
    // 25% on 16. mimd-tune measures the choice.
    p.spmm_left_blocks_pct = std::clamp(400 / std::max(1, topo.cores), 1, 100);
    // Calls that run in the calling thread: a parallel launch of 2 threads cost about
    // 1 us on a 2-core Xeon (model 167), and the row loop alone beat it up to 16-32 Ki of
    // nnz * k (rounded up to 8 lanes) at k = 1 and at k = 32 alike (uniform matrices of 4
    // nonzeros per row), 20-40 Ki of (nnz + m) * k. Counted in nnz * k alone, matrices of
    // 1-2 nonzeros a row went serial too early (2-core Zen 5 VM, threshold 131072: Pd and
    // bcsstm25 at k = 8 0.63-0.80x). mimd-tune measures the crossover at each k.
    set_spmm_serial_work(p, 20480);
    // LSSM's units always handed out dynamically. On a 2-core Zen 5 VM, in one hour the
    // static hand-out ran 3-12% faster on the smallest parallel calls (Erdos971, jazz,
    // lp_e226, rajat19 at k = 32: 84-173 Ki of work, 6-10 us), in the next 5-50% slower on
    // every training input, the evenly loaded stencil included (the two cores were not
    // equally fast, which only the dynamic hand-out absorbs). mimd-tune measures it.
    p.spmm_static_work = 0;
    // Widest tile of k: 8 vector registers of accumulators up to 32 columns. At 512 bits
    // 32 and 64 measured within noise at k = 128. At 256 bits 32 beat 16 (the earlier
    // 4 registers): mimd-tune chose it on a 2-core Zen 3, and the 256-bit kernel on a
    // 2-core Xeon (model 167) ran 1.28x faster at k = 32 (1.00-1.53x over the evaluation
    // matrices) and 1.10x at k = 128 (0.97-1.29x).
    p.spmm_k_tile = std::min(32, std::max(8, 8 * p.simd_bytes / static_cast<int>(sizeof(double))));
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
  j["fingerprint"] = fingerprint;
  for (const auto& k : int_knobs()) j[k.name] = this->*k.field;
  j["spmm_use_scratch"] = spmm_use_scratch;
  j["spmm_combine"] = to_string(spmm_combine);
  j["spmm_left_strategy"] = to_string(spmm_left_strategy);
  j["auto_rule"] = nlohmann::ordered_json::array();
  for (const auto& r : auto_rule.rows)
    j["auto_rule"].push_back({{"k_max", r.k_max},
                              {"cv_max", r.cv_max},
                              {"imbalance_max", r.imbalance_max},
                              {"nnz_max", r.nnz_max},
                              {"max_row_max", r.max_row_max},
                              {"algorithm", r.algorithm}});
  j["probes"] = nlohmann::ordered_json::object();
  for (const auto& [key, value] : probes) j["probes"][key] = value;
  return j.dump(2);
}

TuningProfile load_profile(const std::string& path, TuningProfile p) {
  std::ifstream in(path);
  if (!in) throw IoError(path, "cannot open tuning profile");
  nlohmann::ordered_json j;  // keeps the probes in the file's order
  try {
    in >> j;
  } catch (const nlohmann::json::parse_error& e) {
    throw ParseError(path, 0, ParseErrorKind::NotANumber, std::string("invalid JSON: ") + e.what());
  }
  if (!j.is_object())
    throw ParseError(path, 0, ParseErrorKind::UnsupportedField, "a profile is a JSON object",
                     j.dump());
  auto bad = [&](const std::string& key, const std::string& what) {
    return ParseError(path, 0, ParseErrorKind::NotANumber, "field '" + key + "' " + what,
                      j[key].dump());
  };
  auto text = [&](const std::string& key) {
    if (!j[key].is_string()) throw bad(key, "must be a string");
    return j[key].get<std::string>();
  };
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    // Written before the serial threshold was kept per class of k: it stands for every class.
    const bool one_serial_work = key == "spmm_serial_work";
    const std::string knob_name = one_serial_work ? "spmm_serial_work_k1" : key;
    const auto knob = std::find_if(int_knobs().begin(), int_knobs().end(),
                                   [&](const IntKnob& k) { return knob_name == k.name; });
    if (knob != int_knobs().end()) {
      if (!it->is_number_integer()) throw bad(key, "must be an integer");
      const auto v = it->get<long long>();
      if (v < knob->min || v > knob->max)
        throw ParseError(path, 0, ParseErrorKind::IndexOutOfRange,
                         "field '" + key + "' must lie in [" + std::to_string(knob->min) + ", " +
                             std::to_string(knob->max) + "]",
                         it->dump());
      p.*knob->field = static_cast<int>(v);
      if (one_serial_work) set_spmm_serial_work(p, static_cast<int>(v));
    } else if (key == "name") {
      p.name = text(key);
    } else if (key == "fingerprint") {
      p.fingerprint = text(key);
    } else if (key == "spmm_use_scratch") {
      if (!it->is_boolean()) throw bad(key, "must be true or false");
      p.spmm_use_scratch = it->get<bool>();
    } else if (key == "spmm_combine") {
      const auto v = it->is_string() ? it->get<std::string>() : "";
      if (v != "atomic" && v != "two_pass") throw bad(key, "must be \"atomic\" or \"two_pass\"");
      p.spmm_combine = v == "atomic" ? SplitCombine::Atomic : SplitCombine::TwoPass;
    } else if (key == "spmm_left_strategy") {
      const auto v = it->is_string() ? it->get<std::string>() : "";
      if (v != "tile" && v != "pack") throw bad(key, "must be \"tile\" or \"pack\"");
      p.spmm_left_strategy = v == "tile" ? LeftStrategy::Tile : LeftStrategy::Pack;
    } else if (key == "auto_rule") {
      if (!it->is_array())
        throw bad(key,
                  "must be an array of {k_max, cv_max, [imbalance_max, nnz_max, max_row_max,] "
                  "algorithm}");
      p.auto_rule.rows.clear();
      for (const auto& r : *it) {
        // The limits added after k_max and cv_max are optional (older files lack them).
        const char* const optional[] = {"imbalance_max", "nnz_max", "max_row_max"};
        std::size_t present = 0;
        bool numbers = r.is_object();
        for (const char* o : optional)
          if (numbers && r.contains(o)) {
            ++present;
            numbers = r[o].is_number();
          }
        if (!numbers || !r.contains("k_max") || !r["k_max"].is_number_integer() ||
            !r.contains("cv_max") || !r["cv_max"].is_number() || !r.contains("algorithm") ||
            !r["algorithm"].is_string() || r.size() != 3u + present)
          throw bad(key,
                    "rows must be {\"k_max\": int, \"cv_max\": number, \"imbalance_max\", "
                    "\"nnz_max\", \"max_row_max\": numbers (optional), \"algorithm\": name}");
        AutoRule::Row row;
        row.k_max = r["k_max"].get<int>();
        row.cv_max = r["cv_max"].get<double>();
        row.algorithm = r["algorithm"].get<std::string>();
        if (r.contains("imbalance_max")) row.imbalance_max = r["imbalance_max"].get<double>();
        if (r.contains("nnz_max")) row.nnz_max = r["nnz_max"].get<double>();
        if (r.contains("max_row_max")) row.max_row_max = r["max_row_max"].get<double>();
        p.auto_rule.rows.push_back(row);
      }
    } else if (key == "probes") {
      if (!it->is_object()) throw bad(key, "must be an object of numbers");
      p.probes.clear();
      for (auto q = it->begin(); q != it->end(); ++q) {
        if (!q->is_number()) throw bad(key, "must be an object of numbers");
        p.probes.emplace_back(q.key(), q->get<double>());
      }
    } else {
      throw ParseError(path, 0, ParseErrorKind::UnsupportedField, "unknown field '" + key + "'");
    }
  }
  try {
    validate_profile(p, path);
  } catch (const InvalidArgument& e) {
    throw ParseError(path, 0, ParseErrorKind::IndexOutOfRange, e.what());
  }
  return p;
}

void save_profile(const TuningProfile& p, const std::string& path) {
  const auto parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  std::ofstream out(path);
  out << p.to_json() << "\n";
  if (!out) throw IoError(path, "cannot write tuning profile");
}

std::string device_fingerprint(const Topology& topo, const std::string& backend,
                               const std::string& kokkos_version) {
  nlohmann::ordered_json j;
  j["cpu_model"] = topo.cpu_model;
  j["cpu_signature"] = topo.cpu_signature;
  j["packages"] = topo.packages;
  j["cores"] = topo.cores;
  j["pus"] = topo.pus;
  j["numa_nodes"] = topo.numa_nodes;
  for (int level = 1; level <= 3; ++level)
    j["l" + std::to_string(level) + "_bytes"] = topo.cache_bytes(level);
  j["line_bytes"] = topo.line_bytes();
  j["simd_build_bits"] = topo.simd.build_bytes * 8;
  j["simd_cpu_bits"] = topo.simd.cpu_bytes * 8;
#if defined(__clang__)
  j["compiler"] = std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  j["compiler"] = std::string("gcc ") + __VERSION__;
#else
  j["compiler"] = "unknown";
#endif
  j["kokkos"] = kokkos_version + " " + backend;
  j["library"] = MIMD_VERSION;
  return j.dump();
}

std::string fingerprint_hash(const std::string& fingerprint) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : fingerprint) h = (h ^ c) * 1099511628211ull;
  std::ostringstream os;
  os << std::hex;
  os.width(16);
  os.fill('0');
  os << h;
  return os.str();
}

std::string profile_cache_path(const std::string& fingerprint) {
  std::string base;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    base = x;
  else if (const char* h = std::getenv("HOME"); h && *h)
    base = std::string(h) + "/.cache";
  else
    return {};
  return base + "/mimd-kernels/profiles/" + fingerprint_hash(fingerprint) + ".json";
}

ProfileLoad load_device_profile(const TuningProfile& base, const std::string& fingerprint,
                                const std::string& path) {
  ProfileLoad out{base, "derived defaults", {}};
  std::string file = path;
  if (file.empty())
    if (const char* e = std::getenv("MIMD_PROFILE"); e && *e) file = e;
  const bool explicit_file = !file.empty();
  if (!explicit_file) file = profile_cache_path(fingerprint);
  if (file.empty()) return out;
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) {
    if (explicit_file)
      out.warning = "tuning profile " + file + " not found: using derived defaults";
    return out;
  }
  try {
    TuningProfile p = load_profile(file, base);
    if (!p.fingerprint.empty() && p.fingerprint != fingerprint) {
      out.warning = "tuning profile " + file + " was made for another device or build (" +
                    p.fingerprint + "; this one: " + fingerprint + "): using derived defaults";
      return out;
    }
    out.profile = std::move(p);
    out.source = file;
  } catch (const Error& e) {
    out.warning = std::string("tuning profile unusable: ") + e.what() + ": using derived defaults";
  }
  return out;
}

std::vector<int> built_simd_widths() {
#if defined(MIMD_SIMD_X86_TARGETS)
  return {8, 16, 32, 64};
#else
  return {8, 16};
#endif
}

int effective_simd_width(int requested) {
  int best = 8;
  for (int w : built_simd_widths()) {
    if (w > requested) break;
#if defined(MIMD_SIMD_X86_TARGETS)
    __builtin_cpu_init();
    if (w == 32 && !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) break;
    if (w == 64 && !(__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma"))) break;
#endif
    best = w;
  }
  return best;
}

}  // namespace mimd
