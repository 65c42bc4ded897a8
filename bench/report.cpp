// Output of mimd-bench: the aligned table, JSON/CSV records and the SUMMARY block.
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "bench.hpp"

namespace mimd::bench {

namespace {

// The baselines a mimd row is compared against, in table-column order.
struct Column {
  const char* impl;
  const char* title;
};
const Column kSpeedupColumns[] = {{"omp_loop", "xloop"},
                                  {"kk_right", "xKK-R"},
                                  {"kk_left", "xKK-L"},
                                  {"graphblas", "xGrB"},
                                  {"graphblas_bfs", "xGrB"}};

bool timed(const Record& r) {
  return r.verified && r.time.median > 0;
}

double rate(const Record& r) {
  return r.kernel == "bfs" ? r.gteps : r.gflops;
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

}  // namespace

double speedup(const Record& r, const Record& b) {
  if (!timed(r) || !timed(b) || rate(b) <= 0) return 0;
  return rate(r) / rate(b);
}

void print_table_header() {
  std::printf(
      "%-20s %9s %10s %6s %6s %-5s %-20s %4s %-6s %10s %21s %9s %7s %6s %6s %6s %6s %6s %s\n",
      "input", "rows", "nnz", "mean", "max", "kern", "impl", "k", "prec", "median_ms", "min-max_ms",
      "GFLOP/s", "GB/s", "%triad", "xloop", "xKK-R", "xKK-L", "xGrB", "check");
  std::fflush(stdout);
}

void print_group(const std::vector<Record>& group) {
  for (const auto& r : group) {
    std::string cols[4];
    if (!r.baseline && timed(r)) {
      for (const auto& b : group) {
        if (!b.baseline || b.k != r.k || b.scalar != r.scalar) continue;
        for (int c = 0; c < 5; ++c) {
          if (b.impl != kSpeedupColumns[c].impl) continue;
          const double s = speedup(r, b);
          if (s > 0) cols[c == 4 ? 3 : c] = fmt("%.2f", s);
        }
      }
    }
    const std::string range = timed(r) ? ms(r.time.min) + "-" + ms(r.time.max) : "";
    // "ok*": verified, but even the best round was disturbed (median > clean_ratio x min).
    const std::string check = !r.verified                           ? "FAIL"
                              : !timed(r)                           ? "skip"
                              : r.kernel == "spmm" && !r.time.clean ? "ok*"
                                                                    : "ok";
    std::printf(
        "%-20s %9lld %10lld %6.1f %6lld %-5s %-20s %4d %-6s %10s %21s %9s %7s %6s %6s %6s %6s %6s "
        "%s\n",
        shorten(r.input, 20).c_str(), static_cast<long long>(r.rows), static_cast<long long>(r.nnz),
        r.mean_row, static_cast<long long>(r.max_row), r.kernel.c_str(),
        shorten(r.impl, 20).c_str(), r.k, r.scalar.substr(0, 6).c_str(),
        timed(r) ? ms(r.time.median).c_str() : "-", range.c_str(),
        timed(r) ? fmt(r.kernel == "bfs" ? "%.4f" : "%.2f", rate(r)).c_str() : "-",
        timed(r) && r.kernel == "spmm" ? fmt("%.1f", r.gbps).c_str() : "",
        timed(r) && r.kernel == "spmm" ? fmt("%.0f", r.pct_triad).c_str() : "", cols[0].c_str(),
        cols[1].c_str(), cols[2].c_str(), cols[3].c_str(),
        (check + (r.verified && timed(r) ? "" : " " + shorten(r.note, 120))).c_str());
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
  j["disturbed"] = r.kernel == "spmm" && timed(r) && !r.time.clean;
  j["median_s"] = r.time.median;
  j["min_s"] = r.time.min;
  j["max_s"] = r.time.max;
  if (r.kernel == "bfs") {
    j["gteps"] = r.gteps;
  } else {
    j["gflops"] = r.gflops;
    j["gbps"] = r.gbps;
    j["pct_triad"] = r.pct_triad;
    if (r.inspect_s >= 0) j["inspect_s"] = r.inspect_s;
  }
  j["verified"] = r.verified;
  j["note"] = r.note;
  return j;
}

std::string csv_header() {
  return "kernel,impl,baseline,input,input_kind,scalar,rows,cols,nnz,mean_row,max_row,k,threads,"
         "reps,median_s,min_s,max_s,gflops,gteps,gbps,pct_triad,verified,disturbed,note";
}

std::string csv_row(const Record& r) {
  std::string note = r.note;
  for (auto& ch : note)
    if (ch == '"') ch = '\'';
  std::ostringstream os;
  os.precision(9);
  os << r.kernel << ',' << r.impl << ',' << (r.baseline ? "true" : "false") << ",\"" << r.input
     << "\"," << r.input_kind << ',' << r.scalar << ',' << r.rows << ',' << r.cols << ',' << r.nnz
     << ',' << r.mean_row << ',' << r.max_row << ',' << r.k << ',' << r.threads << ','
     << r.time.reps << ',' << r.time.median << ',' << r.time.min << ',' << r.time.max << ','
     << r.gflops << ',' << r.gteps << ',' << r.gbps << ',' << r.pct_triad << ','
     << (r.verified ? "true" : "false") << ','
     << (r.kernel == "spmm" && timed(r) && !r.time.clean ? "true" : "false") << ",\"" << note
     << '"';
  return os.str();
}

// ---- summary -------------------------------------------------------------------------------

nlohmann::json print_summary(const std::vector<Record>& records, double triad_gbps,
                             double llc_bytes) {
  nlohmann::json out = nlohmann::json::array();
  auto verdict = [](double v, double target) { return v >= target ? "PASS" : "MISS"; };
  std::printf("\nSUMMARY (%d threads)\n", records.empty() ? 0 : records.front().threads);

  // Index: (kernel, input, scalar, k, impl) -> record.
  std::map<std::tuple<std::string, std::string, std::string, int, std::string>, const Record*> idx;
  std::set<int> ks;
  for (const auto& r : records) {
    idx[{r.kernel, r.input, r.scalar, r.k, r.impl}] = &r;
    if (r.kernel == "spmm") ks.insert(r.k);
  }
  auto find = [&](const Record& like, const std::string& impl) -> const Record* {
    auto it = idx.find({like.kernel, like.input, like.scalar, like.k, impl});
    return it == idx.end() ? nullptr : it->second;
  };

  // 1. SpMM: geometric mean speedups over the real datasets, double precision.
  const std::vector<std::pair<std::string, double>> targets = {
      {"kk_right", 1.5}, {"kk_left", 1.5}, {"graphblas", 1.5}, {"omp_loop", 1.2}};
  bool any_spmm = false;
  for (const std::string mine : {"lssm", "auto"}) {
    for (int k : ks) {
      for (const auto& [base, target] : targets) {
        double log_sum = 0;
        int n = 0, disturbed = 0;
        for (const auto& r : records) {
          if (r.kernel != "spmm" || r.impl != mine || r.k != k || r.scalar != "double" ||
              r.input_kind != "real")
            continue;
          const Record* b = find(r, base);
          if (!b) continue;
          const double s = speedup(r, *b);
          if (s > 0) {
            log_sum += std::log(s);
            ++n;
            if (!r.time.clean || !b->time.clean) ++disturbed;
          }
        }
        if (n == 0) continue;
        if (!any_spmm) {
          std::printf("SpMM, double, speedup geometric mean over the real datasets:\n");
          any_spmm = true;
        }
        const double g = std::exp(log_sum / n);
        const bool has_target = k == 32;
        std::printf("  spmm k=%-4d %-5s vs %-10s %6.2fx  (%3d matrices, %3d disturbed)  %s\n", k,
                    mine.c_str(), base.c_str(), g, n, disturbed,
                    has_target ? (std::string("target >= ") + fmt("%.1f", target) + "x  " +
                                  verdict(g, target))
                                     .c_str()
                               : "");
        nlohmann::json j = {{"metric", "spmm_geomean_speedup"},
                            {"impl", mine},
                            {"baseline", base},
                            {"k", k},
                            {"value", g},
                            {"matrices", n}};
        if (has_target) {
          j["target"] = target;
          j["pass"] = g >= target;
        }
        out.push_back(j);
      }
    }
  }

  // 2. SpMM bandwidth on the memory-bound generated inputs (k = 1 and 8): those whose
  // modelled traffic is at least twice the last-level cache.
  bool any_bw = false;
  for (const auto& r : records) {
    if (r.kernel != "spmm" || r.input_kind != "generated" || r.scalar != "double" ||
        (r.k != 1 && r.k != 8) || (r.impl != "lssm" && r.impl != "auto") || !timed(r) ||
        triad_gbps <= 0 || spmm_bytes(r.rows, r.cols, r.nnz, r.k, 8) < 2 * llc_bytes)
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

  // 3. BFS: direction-optimizing against the GraphBLAS BFS, per graph.
  bool any_bfs = false;
  for (const auto& r : records) {
    if (r.kernel != "bfs" || r.impl != "direction_optimizing" || !timed(r)) continue;
    const Record* b = find(r, "graphblas_bfs");
    if (!b || !timed(*b)) continue;
    if (!any_bfs) {
      std::printf("BFS direction_optimizing vs GraphBLAS push/pull BFS:\n");
      any_bfs = true;
    }
    const double s = speedup(r, *b);
    std::printf("  bfs %-26s %8.4f GTEPS vs %8.4f  %6.2fx  target >= 2x  %s\n",
                shorten(r.input, 26).c_str(), r.gteps, b->gteps, s, verdict(s, 2.0));
    out.push_back({{"metric", "bfs_speedup"},
                   {"impl", r.impl},
                   {"baseline", b->impl},
                   {"input", r.input},
                   {"value", s},
                   {"target", 2.0},
                   {"pass", s >= 2.0}});
  }

  int failures = 0;
  for (const auto& r : records)
    if (!r.verified) ++failures;
  std::printf("Verification: %d measurement(s) failed\n", failures);
  std::fflush(stdout);
  return out;
}

}  // namespace mimd::bench
