// Output of mimd-bench: the aligned table, JSON/CSV records, the SUMMARY block and the
// result files. Speedup columns, headline implementations and targets come from the
// registry (registry.hpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "driver.hpp"
#include "mimd/error.hpp"
#include "registry.hpp"

namespace mimd::bench {

namespace {

bool timed(const Record& r) {
  return r.verified && r.time.median > 0;
}

double rate(const Record& r) {
  return r.kernel == "bfs" ? r.gteps_gap : r.gflops;
}

std::string shorten(const std::string& s, std::size_t n) {
  return s.size() <= n ? s : s.substr(0, n - 1) + "~";
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// Time in ms with 4 significant digits.
std::string ms(double s) {
  return fmt("%.4g", s * 1e3);
}

// The table's speedup columns: the distinct column titles of the available baselines,
// in registry order.
std::vector<std::string> speedup_columns() {
  std::vector<std::string> out;
  for (const auto& i : registry())
    if (!i.ours && i.available && std::find(out.begin(), out.end(), i.column) == out.end())
      out.push_back(i.column);
  return out;
}

bool disturbed(const Record& r) {
  return r.kernel == "spmm" && timed(r) && !r.time.clean;
}

}  // namespace

double speedup(const Record& r, const Record& b) {
  if (!timed(r) || !timed(b) || rate(b) <= 0) return 0;
  return rate(r) / rate(b);
}

void print_table_header() {
  std::printf(
      "Rate: SpMM GFLOP/s; BFS GTEPS as GAP defines it (undirected edges of the whole graph / "
      "mean time per source; Graph500's in the JSON). Size: llc+ = A+B+C exceed the last-level "
      "cache, 100k+ = at least 100k nonzeros.\n");
  std::printf("%-20s %9s %10s %6s %6s %-5s %-20s %4s %-6s %-5s %10s %21s %9s %7s %6s", "input",
              "rows", "nnz", "mean", "max", "kern", "impl", "k", "prec", "size", "median_ms",
              "min-max_ms", "rate", "GB/s", "%triad");
  for (const auto& c : speedup_columns()) std::printf(" %6s", c.c_str());
  std::printf(" %s\n", "check");
  std::fflush(stdout);
}

void print_group(const std::vector<Record>& group) {
  const std::vector<std::string> columns = speedup_columns();
  for (const auto& r : group) {
    std::vector<std::string> cols(columns.size());
    if (!r.baseline && timed(r)) {
      for (const auto& b : group) {
        if (!b.baseline || b.k != r.k || b.scalar != r.scalar) continue;
        const std::string& title = find_impl(b.impl)->column;
        const auto c = std::find(columns.begin(), columns.end(), title) - columns.begin();
        const double s = speedup(r, b);
        if (s > 0) cols[c] = fmt("%.2f", s);
      }
    }
    const std::string range = timed(r) ? ms(r.time.min) + "-" + ms(r.time.max) : "";
    // "ok*": verified, but even the best round was disturbed (median > clean_ratio x min).
    const std::string check = !r.verified              ? "FAIL " + shorten(r.note, 120)
                              : !r.skip_reason.empty() ? "skip " + r.skip_reason
                              : disturbed(r)           ? "ok*"
                                                       : "ok";
    std::printf("%-20s %9lld %10lld %6.1f %6lld %-5s %-20s %4d %-6s %-5s %10s %21s %9s %7s %6s",
                shorten(r.input, 20).c_str(), static_cast<long long>(r.rows),
                static_cast<long long>(r.nnz), r.mean_row, static_cast<long long>(r.max_row),
                r.kernel.c_str(), shorten(r.impl, 20).c_str(), r.k, r.scalar.substr(0, 6).c_str(),
                r.kernel == "spmm" ? size_class(r).c_str() : "",
                timed(r) ? ms(r.time.median).c_str() : "-", range.c_str(),
                timed(r) ? fmt(r.kernel == "bfs" ? "%.4f" : "%.2f", rate(r)).c_str() : "-",
                timed(r) && r.kernel == "spmm" ? fmt("%.1f", r.gbps).c_str() : "",
                timed(r) && r.kernel == "spmm" ? fmt("%.0f", r.pct_triad).c_str() : "");
    for (const auto& c : cols) std::printf(" %6s", c.c_str());
    std::printf(" %s\n", check.c_str());
  }
  std::fflush(stdout);
}

nlohmann::json record_json(const Record& r) {
  nlohmann::json j;
  j["kernel"] = r.kernel;
  j["impl"] = r.impl;
  j["baseline"] = r.baseline;
  j["input"] = r.input;
  j["input_kind"] = r.input_kind;
  j["scalar"] = r.scalar;
  j["rows"] = r.rows;
  j["cols"] = r.cols;
  j["nnz"] = r.nnz;
  j["mean_row"] = r.mean_row;
  j["max_row"] = r.max_row;
  j["k"] = r.k;
  j["threads"] = r.threads;
  j["reps"] = r.time.reps;
  j["rounds"] = r.time.rounds;
  j["disturbed"] = disturbed(r);
  j["median_s"] = r.time.median;
  j["min_s"] = r.time.min;
  j["max_s"] = r.time.max;
  if (r.kernel == "bfs") {
    j["gteps_gap"] = r.gteps_gap;
    j["gteps_graph500"] = r.gteps_graph500;
  } else {
    j["gflops"] = r.gflops;
    j["gbps"] = r.gbps;
    j["pct_triad"] = r.pct_triad;
    j["footprint_bytes"] = r.footprint_bytes;
    j["above_llc"] = r.above_llc;
    j["size_class"] = size_class(r);
    if (r.inspect_s >= 0) j["inspect_s"] = r.inspect_s;
  }
  j["verified"] = r.verified;
  j["skipped"] = !r.skip_reason.empty();
  j["skip_reason"] = r.skip_reason;
  j["note"] = r.note;
  return j;
}

std::string csv_header() {
  return "kernel,impl,baseline,input,input_kind,scalar,rows,cols,nnz,mean_row,max_row,k,threads,"
         "reps,median_s,min_s,max_s,gflops,gteps_gap,gteps_graph500,gbps,pct_triad,"
         "footprint_bytes,size_class,verified,disturbed,skipped,skip_reason,note";
}

std::string csv_row(const Record& r) {
  auto quoted = [](std::string s) {
    for (auto& ch : s)
      if (ch == '"') ch = '\'';
    return '"' + s + '"';
  };
  std::ostringstream os;
  os.precision(9);
  os << r.kernel << ',' << r.impl << ',' << (r.baseline ? "true" : "false") << ','
     << quoted(r.input) << ',' << r.input_kind << ',' << r.scalar << ',' << r.rows << ',' << r.cols
     << ',' << r.nnz << ',' << r.mean_row << ',' << r.max_row << ',' << r.k << ',' << r.threads
     << ',' << r.time.reps << ',' << r.time.median << ',' << r.time.min << ',' << r.time.max << ','
     << r.gflops << ',' << r.gteps_gap << ',' << r.gteps_graph500 << ',' << r.gbps << ','
     << r.pct_triad << ',' << r.footprint_bytes << ',' << (r.kernel == "spmm" ? size_class(r) : "")
     << ',' << (r.verified ? "true" : "false") << ',' << (disturbed(r) ? "true" : "false") << ','
     << (r.skip_reason.empty() ? "false" : "true") << ',' << quoted(r.skip_reason) << ','
     << quoted(r.note);
  return os.str();
}

// ---- summary -------------------------------------------------------------------------------

namespace {

// The summary's size classes of SpMM matrices: every one, the large ones, and those
// whose A + B + C exceed the last-level cache (where per-call overhead cannot help).
struct SizeClass {
  const char* name;   ///< JSON
  const char* title;  ///< SUMMARY
  bool (*member)(const Record&);
};
const SizeClass kSizeClasses[] = {
    {"all", "all", [](const Record&) { return true; }},
    {"nnz_100k", "nnz>=100k", [](const Record& r) { return r.nnz >= kLargeNnz; }},
    {"above_llc", ">LLC", [](const Record& r) { return r.above_llc; }}};

}  // namespace

nlohmann::json print_summary(const std::vector<Record>& records, double triad_gbps,
                             double llc_bytes) {
  nlohmann::json out = nlohmann::json::array();
  auto verdict = [](double v, double target) { return v >= target ? "PASS" : "MISS"; };
  std::printf("\nSUMMARY (%d threads)\n", records.empty() ? 0 : records.front().threads);

  // Index: (kernel, input, scalar, k, impl) -> record.
  std::map<std::tuple<std::string, std::string, std::string, int, std::string>, const Record*> idx;
  std::set<int> ks;
  std::set<std::string> present;
  for (const auto& r : records) {
    idx[{r.kernel, r.input, r.scalar, r.k, r.impl}] = &r;
    present.insert(r.impl);
    if (r.kernel == "spmm") ks.insert(r.k);
  }
  auto find = [&](const Record& like, const std::string& impl) -> const Record* {
    auto it = idx.find({like.kernel, like.input, like.scalar, like.k, impl});
    return it == idx.end() ? nullptr : it->second;
  };
  auto headline = [&](const std::string& kernel, bool ours) {
    std::vector<const ImplInfo*> v;
    for (const auto& i : registry())
      if (i.kernel == kernel && i.ours == ours && (!ours || i.headline) && present.count(i.name))
        v.push_back(&i);
    return v;
  };

  // 1. SpMM: geometric-mean speedups, double, per size class; the target applies to
  // the class of all matrices at k = 32.
  bool any_spmm = false;
  for (const ImplInfo* mine : headline("spmm", true)) {
    for (int k : ks) {
      for (const ImplInfo* base : headline("spmm", false)) {
        std::string line, target;
        for (const auto& cls : kSizeClasses) {
          double log_sum = 0;
          int n = 0, dist = 0;
          for (const auto& r : records) {
            if (r.kernel != "spmm" || r.impl != mine->name || r.k != k || r.scalar != "double" ||
                !cls.member(r))
              continue;
            const Record* b = find(r, base->name);
            const double s = b ? speedup(r, *b) : 0;
            if (s <= 0) continue;
            log_sum += std::log(s);
            ++n;
            if (!r.time.clean || !b->time.clean) ++dist;
          }
          const double g = n > 0 ? std::exp(log_sum / n) : 0;
          line += n > 0 ? fmt("  %6.2fx", g) + fmt(" (%3.0f)", n) : std::string("       -      ");
          if (n == 0) continue;
          nlohmann::json j = {{"metric", "spmm_geomean_speedup"},
                              {"impl", mine->name},
                              {"baseline", base->name},
                              {"k", k},
                              {"class", cls.name},
                              {"value", g},
                              {"matrices", n},
                              {"disturbed", dist}};
          if (k == 32 && std::string(cls.name) == "all" && base->target > 0) {
            j["target"] = base->target;
            j["pass"] = g >= base->target;
            target = fmt("  target (all) >= %.1fx ", base->target) + verdict(g, base->target);
          }
          out.push_back(j);
        }
        if (!any_spmm) {
          std::printf(
              "SpMM, double, speedup geometric mean (matrices) by size class: all | nnz>=100k "
              "| A+B+C > LLC (%.1f MB):\n",
              llc_bytes * 1e-6);
          any_spmm = true;
        }
        std::printf("  spmm k=%-4d %-5s vs %-10s%s%s\n", k, mine->name.c_str(), base->name.c_str(),
                    line.c_str(), target.c_str());
      }
    }
  }

  // 1b. Auto against every fixed algorithm and the oracle (the fastest fixed one), per
  // matrix and k, double (issue 10's target: auto >= 0.9x the oracle).
  if (present.count("auto")) {
    const char* fixed[] = {"lssm", "merge_path", "row_parallel"};
    bool header = false;
    for (const auto& r : records) {
      if (r.kernel != "spmm" || r.impl != "auto" || r.scalar != "double" || !timed(r)) continue;
      std::string best;
      double best_s = 0;
      std::string line;
      nlohmann::json vs = nlohmann::json::object();
      for (const char* f : fixed) {
        const Record* b = find(r, f);
        if (!b || !timed(*b)) continue;
        const double s = speedup(r, *b);
        line += fmt(" %5.2fx", s) + " " + f;
        vs[f] = s;
        if (best.empty() || b->time.median < find(r, best)->time.median) {
          best = f;
          best_s = s;
        }
      }
      if (best.empty()) continue;
      if (!header) {
        std::printf("SpMM auto vs each fixed algorithm and vs the oracle (target >= 0.90x):\n");
        header = true;
      }
      std::printf("  spmm k=%-4d %-24s vs oracle (%s) %5.2fx %s |%s\n", r.k,
                  shorten(r.input, 24).c_str(), best.c_str(), best_s, verdict(best_s, 0.9),
                  line.c_str());
      out.push_back({{"metric", "spmm_auto_vs_oracle"},
                     {"input", r.input},
                     {"k", r.k},
                     {"oracle", best},
                     {"value", best_s},
                     {"vs_fixed", vs},
                     {"target", 0.9},
                     {"pass", best_s >= 0.9}});
    }
  }

  // 2. SpMM bandwidth on the memory-bound generated inputs (k = 1 and 8): those whose
  // modelled traffic is at least twice the last-level cache.
  bool any_bw = false;
  for (const auto& r : records) {
    const ImplInfo* info = find_impl(r.impl);
    if (r.kernel != "spmm" || r.input_kind != "generated" || r.scalar != "double" ||
        (r.k != 1 && r.k != 8) || !info || !info->headline || !timed(r) || triad_gbps <= 0 ||
        spmm_bytes(r.rows, r.cols, r.nnz, r.k, 8) < 2 * llc_bytes)
      continue;
    if (!any_bw) {
      std::printf("SpMM effective bandwidth on generated inputs (STREAM triad %.1f GB/s):\n",
                  triad_gbps);
      any_bw = true;
    }
    std::printf("  spmm k=%-4d %-5s %-24s %6.1f GB/s = %5.1f%% of triad  target >= 70%%  %s\n", r.k,
                r.impl.c_str(), shorten(r.input, 24).c_str(), r.gbps, r.pct_triad,
                verdict(r.pct_triad, 70.0));
    out.push_back({{"metric", "spmm_pct_triad"},
                   {"impl", r.impl},
                   {"input", r.input},
                   {"k", r.k},
                   {"value", r.pct_triad},
                   {"target", 70.0},
                   {"pass", r.pct_triad >= 70.0}});
  }

  // 3. BFS: the headline algorithm against each BFS baseline, per graph (GAP GTEPS).
  bool any_bfs = false;
  for (const ImplInfo* mine : headline("bfs", true)) {
    for (const ImplInfo* base : headline("bfs", false)) {
      for (const auto& r : records) {
        if (r.kernel != "bfs" || r.impl != mine->name || !timed(r)) continue;
        const Record* b = find(r, base->name);
        if (!b || !timed(*b)) continue;
        if (!any_bfs) {
          std::printf("BFS, GTEPS (GAP definition), headline algorithm vs baseline:\n");
          any_bfs = true;
        }
        const double s = speedup(r, *b);
        std::printf("  bfs %-26s %-20s %8.4f vs %-13s %8.4f  %6.2fx  target >= %.0fx  %s\n",
                    shorten(r.input, 26).c_str(), mine->name.c_str(), r.gteps_gap,
                    base->name.c_str(), b->gteps_gap, s, base->target, verdict(s, base->target));
        out.push_back({{"metric", "bfs_speedup"},
                       {"impl", r.impl},
                       {"baseline", b->impl},
                       {"input", r.input},
                       {"value", s},
                       {"target", base->target},
                       {"pass", s >= base->target}});
      }
    }
  }

  int failures = 0, skipped = 0;
  for (const auto& r : records) {
    if (!r.verified) ++failures;
    if (!r.skip_reason.empty()) ++skipped;
  }
  std::printf("Verification: %d measurement(s) failed; %d skipped (reasons in the table)\n",
              failures, skipped);
  std::fflush(stdout);
  return out;
}

int report(const Config& config, const nlohmann::json& context, const RunResult& run,
           const RunOptions& options) {
  if (!run.loads.empty()) {
    // Reader throughput: text parsed (cold) or binary cache read, per second.
    std::printf("\nLOADS (MB of uncompressed text parsed, or of binary cache read)\n");
    for (const auto& l : run.loads)
      std::printf("  %-24s %-5s %9.2f MB in %8.4f s = %8.1f MB/s\n",
                  l["input"].get<std::string>().c_str(),
                  l["from_cache"].get<bool>() ? "cache" : "parse", l["mbytes"].get<double>(),
                  l["seconds"].get<double>(), l["mb_per_s"].get<double>());
  }
  const nlohmann::json summary = print_summary(run.records, options.triad_gbps, options.llc_bytes);

  if (!config.json_path.empty()) {
    nlohmann::json doc;
    doc["context"] = context;
    doc["registry"] = registry_json();
    doc["records"] = nlohmann::json::array();
    for (const auto& r : run.records) doc["records"].push_back(record_json(r));
    doc["summary"] = summary;
    doc["loads"] = run.loads;
    std::ofstream f(config.json_path);
    if (!f) throw IoError(config.json_path, "cannot open for writing");
    f << doc.dump(1) << "\n";
    if (!f) throw IoError(config.json_path, "write failed");
  }
  if (!config.csv_path.empty()) {
    std::ofstream f(config.csv_path);
    if (!f) throw IoError(config.csv_path, "cannot open for writing");
    f << csv_header() << "\n";
    for (const auto& r : run.records) f << csv_row(r) << "\n";
    if (!f) throw IoError(config.csv_path, "write failed");
  }

  int failures = 0;
  for (const auto& r : run.records)
    if (!r.verified) ++failures;
  if (failures > 0) {
    std::fprintf(stderr,
                 "\nmimd-bench: *** %d MEASUREMENT(S) FAILED VERIFICATION (see above) ***\n",
                 failures);
    return 1;
  }
  return run.load_failures > 0 ? 1 : 0;
}

}  // namespace mimd::bench
