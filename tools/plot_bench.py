#!/usr/bin/env python3
"""Turns a mimd-bench JSON result into PNG plots with gnuplot (gnuplot-nox).

    tools/plot_bench.py result.json [--out DIR] [--k 32] [--scalar double] [--peak GFLOPS]

Writes into DIR (default: next to the JSON file):
  spmm_gflops_k<K>.png  GFLOP/s per matrix per implementation at one k
  roofline.png          every SpMM measurement on the memory roofline (STREAM triad)
  bfs_gteps.png         BFS GTEPS per graph per implementation
  speedup.png           geometric-mean speedup of the headline implementations over each
                        baseline, per k, over every matrix of the run (the summary's
                        size class "all")
Implementation names and labels come from the result's "registry" (mimd-bench writes
it: one entry per implementation with its kernel, kind ours/baseline and label).
Only the Python standard library and gnuplot are needed.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict



def registry_names(doc, kernel, ours, headline=False):
    """Names of the registry entries of `kernel`, ours or baselines, in registry order."""
    return [e["name"] for e in doc["registry"]
            if e["kernel"] == kernel and (e["kind"] == "ours") == ours
            and (not headline or e["headline"])]


def labels(doc):
    return {e["name"]: e["label"] for e in doc["registry"]}


def gnuplot(script, workdir):
    subprocess.run(["gnuplot"], input=script, text=True, check=True, cwd=workdir)


def timed(r):
    return r.get("verified") and r.get("median_s", 0) > 0


def clustered(records, rate, groups, impls, ylabel, title, png, workdir, label, log=True):
    """One cluster of bars per group (input), one bar per implementation."""
    table = defaultdict(dict)
    for r in records:
        table[r["input"]][r["impl"]] = r[rate]
    rows = [g for g in groups if g in table]
    if not rows:
        return False
    dat = os.path.join(workdir, os.path.basename(png) + ".dat")
    with open(dat, "w") as f:
        f.write("input " + " ".join(impls) + "\n")
        for g in rows:
            vals = [table[g].get(i) for i in impls]
            f.write('"%s" ' % g + " ".join("%.6g" % v if v else "NaN" for v in vals) + "\n")
    width = max(900, 40 * len(rows) * max(1, len(impls)) // 3)
    plots = ", ".join(
        "'%s' using %d:xtic(1) title '%s'" % (dat, c + 2, label[impls[c]])
        for c in range(len(impls)))
    gnuplot("""
set terminal pngcairo noenhanced size %d,560 font ',9'
set output '%s'
set title '%s'
set ylabel '%s'
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set key outside right top
set xtics rotate by -45 scale 0
set grid ytics
%s
plot %s
""" % (width, png, title, ylabel, "set logscale y" if log else "set yrange [0:*]", plots), workdir)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json")
    ap.add_argument("--out", default=None)
    ap.add_argument("--k", type=int, default=32)
    ap.add_argument("--scalar", default="double")
    ap.add_argument("--peak", type=float, default=0, help="FMA peak GFLOP/s for the roofline")
    args = ap.parse_args()
    if not shutil.which("gnuplot"):
        sys.exit("plot_bench.py: gnuplot not found (Debian: gnuplot-nox)")
    with open(args.json) as f:
        doc = json.load(f)
    ctx, recs = doc.get("context", {}), doc.get("records", [])
    out = os.path.abspath(args.out or os.path.dirname(os.path.abspath(args.json)))
    os.makedirs(out, exist_ok=True)
    label = labels(doc)
    threads = ctx.get("threads", "?")
    cpu = ctx.get("topology", {}).get("cpu_model", "")
    triad = ctx.get("stream", {}).get("triad_gbps", 0)
    made = []
    with tempfile.TemporaryDirectory() as tmp:
        spmm = [r for r in recs if r["kernel"] == "spmm" and timed(r) and r["scalar"] == args.scalar]
        impls = []
        for r in spmm:
            if r["impl"] not in impls:
                impls.append(r["impl"])
        # 1. GFLOP/s per matrix at one k
        atk = [r for r in spmm if r["k"] == args.k]
        inputs = []
        for r in atk:
            if r["input"] not in inputs:
                inputs.append(r["input"])
        png = os.path.join(out, "spmm_gflops_k%d.png" % args.k)
        if clustered(atk, "gflops", inputs, impls, "GFLOP/s",
                     "SpMM %s, k = %d, %s threads, %s" % (args.scalar, args.k, threads, cpu), png, tmp,
                     label):
            made.append(png)
        # 2. roofline
        if spmm:
            lines = []
            for i, impl in enumerate(impls):
                dat = os.path.join(tmp, "roof_%d.dat" % i)
                with open(dat, "w") as f:
                    for r in spmm:
                        if r["impl"] == impl and r.get("gbps", 0) > 0:
                            f.write("%.6g %.6g\n" % (r["gflops"] / r["gbps"], r["gflops"]))
                lines.append("'%s' using 1:2 with points pt 7 ps 0.7 title '%s'" % (dat, label[impl]))
            roof = "x*%g" % triad if triad else "1/0"
            if args.peak:
                roof = "(x*%g < %g ? x*%g : %g)" % (triad, args.peak, triad, args.peak)
            png = os.path.join(out, "roofline.png")
            gnuplot("""
set terminal pngcairo noenhanced size 900,620 font ',9'
set output '%s'
set title 'SpMM on the memory roofline (STREAM triad %.1f GB/s, %s threads)'
set xlabel 'arithmetic intensity, FLOP per byte of the traffic model'
set ylabel 'GFLOP/s'
set logscale xy
set grid
set key outside right top
plot %s lw 2 lc rgb 'black' title 'triad x intensity', %s
""" % (png, triad, threads, roof, ", ".join(lines)), tmp)
            made.append(png)
        # 3. BFS GTEPS per graph
        bfs = [r for r in recs if r["kernel"] == "bfs" and timed(r)]
        bimpls, graphs = [], []
        for r in bfs:
            if r["impl"] not in bimpls:
                bimpls.append(r["impl"])
            if r["input"] not in graphs:
                graphs.append(r["input"])
        png = os.path.join(out, "bfs_gteps.png")
        if clustered(bfs, "gteps_gap", graphs, bimpls, "GTEPS (GAP: graph edges / mean time)",
                     "BFS, %s threads, %s sources per graph" % (
                         threads, ctx.get("timing", {}).get("bfs_sources", "?")), png, tmp, label):
            made.append(png)
        # 4. speedup bars: the summary's geometric means over every matrix, per k
        mine = registry_names(doc, "spmm", True, headline=True)
        bases = registry_names(doc, "spmm", False)
        geo = {(m["impl"], m["baseline"], m["k"]): m["value"] for m in doc.get("summary", [])
               if m["metric"] == "spmm_geomean_speedup" and m["class"] == "all"}
        ks = sorted({key[2] for key in geo})
        cols = [(m, b) for m in mine for b in bases if any((m, b, k) in geo for k in ks)]
        dat = os.path.join(tmp, "speedup.dat")
        with open(dat, "w") as f:
            f.write("k " + " ".join("%s/%s" % c for c in cols) + "\n")
            for k in ks:
                f.write("k=%d " % k + " ".join(
                    "%.4g" % geo[(m, b, k)] if (m, b, k) in geo else "NaN" for m, b in cols) + "\n")
        if ks:
            png = os.path.join(out, "speedup.png")
            plots = ", ".join("'%s' using %d:xtic(1) title '%s vs %s'"
                              % (dat, c + 2, cols[c][0], label[cols[c][1]])
                              for c in range(len(cols)))
            gnuplot("""
set terminal pngcairo noenhanced size 1000,560 font ',9'
set output '%s'
set title 'mimd SpMM speedup, geometric mean over every matrix of the run (double, %s threads)'
set ylabel 'speedup (x)'
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set key outside right top
set grid ytics
set yrange [0:*]
plot %s, 1 with lines lc rgb 'black' notitle
""" % (png, threads, plots), tmp)
            made.append(png)
    for m in made:
        print(m)


if __name__ == "__main__":
    main()
