// Running the suite: load each input, run its SpMM and BFS measurements, print each
// group as it completes.
#include <cstdio>

#include "driver.hpp"
#include "mimd/generators.hpp"
#include "mimd/io.hpp"

namespace mimd::bench {

namespace {

// Loads one input; records the reader's throughput for files.
HostCsr<double> load(const Input& in, nlohmann::json& loads) {
  if (!in.spec.empty()) return generate(in.spec);
  ReadOptions ro;
  ro.progress = false;
  ro.use_cache = true;  // parse each file once (binary CSR cache, see io.hpp)
  LoadStats ls;
  HostCsr<double> a = read_matrix<double>(in.path, ro, &ls);
  const double mb = static_cast<double>(ls.from_cache ? ls.cache_bytes : ls.bytes) * 1e-6;
  loads.push_back({{"input", in.name},
                   {"path", in.path},
                   {"from_cache", ls.from_cache},
                   {"mbytes", mb},
                   {"seconds", ls.seconds},
                   {"mb_per_s", ls.seconds > 0 ? mb / ls.seconds : 0.0}});
  return a;
}

}  // namespace

RunResult run_suite(const ExecutionContext& ctx, const std::vector<Input>& suite,
                    const RunOptions& options, bool named_inputs) {
  RunResult out;
  int total = 0;
  for (const auto& in : suite)
    total += (in.spmm ? spmm_steps(in, options) : 0) + (in.bfs ? bfs_steps(options) : 0);
  Progress progress(total);
  print_table_header();
  for (const auto& in : suite) {
    if (!in.spmm && !in.bfs) continue;
    progress.note("loading " + in.name);
    HostCsr<double> a;
    try {
      a = load(in, out.loads);
    } catch (const std::exception& e) {
      progress.done();
      std::fprintf(stderr, "mimd-bench: warning: skipping %s: %s\n", in.name.c_str(), e.what());
      if (named_inputs) ++out.load_failures;
      continue;
    }
    for (const bool spmm : {true, false}) {
      std::vector<Record> group;
      if (spmm && in.spmm) group = bench_spmm(ctx, in, a, options, progress);
      if (!spmm && in.bfs) group = bench_bfs(ctx, in, a, options, progress);
      if (group.empty()) continue;
      progress.done();
      print_group(group);
      for (const auto& r : group)
        if (!r.verified)
          std::fprintf(stderr, "mimd-bench: VERIFICATION FAILED: %s %s on %s k=%d: %s\n",
                       r.kernel.c_str(), r.impl.c_str(), r.input.c_str(), r.k, r.note.c_str());
      out.records.insert(out.records.end(), group.begin(), group.end());
    }
  }
  progress.done();
  return out;
}

}  // namespace mimd::bench
