#!/usr/bin/env python3
"""Runs mimd-solve's solver benchmark (examples/solve.cpp --bench) on a set of matrices
and writes the figures as JSON (bench/results/solvers.json by default): per matrix, CG
time per iteration and SpMM share (median, min, max over the repeats), and block CG at
k = 8 and 32 against k separate CG solves (iterations, time, speedup).

Usage: tools/solver_figures.py [--build build] [--repeats 3] [--out FILE] [MATRIX...]
  MATRIX: a mimd-solve matrix (generator spec or dataset name), with ":jacobi" appended
  for Jacobi preconditioning; default: stencil3d:32:7 1138_bus:jacobi (bcsstk13:jacobi
  and bcsstk21:jacobi take minutes each: 32 separate CG solves of 1000-1500 iterations).
  A dataset that is absent is left out (mimd-solve exits 77).
"""
import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# As ctest runs the examples: threads bound one per core, one BLAS thread (the OpenMP
# workers already use the cores).
ENV = dict(os.environ, OMP_PROC_BIND=os.environ.get("OMP_PROC_BIND", "spread"),
           OMP_PLACES=os.environ.get("OMP_PLACES", "cores"), OPENBLAS_NUM_THREADS="1")
DEFAULT = ["stencil3d:32:7", "1138_bus:jacobi"]
NUM = r"([-+0-9.e]+)"
HEADER = re.compile(r"# (\S+): n = (\d+), nnz = (\d+), (\S+), (\d+) threads, Jacobi (on|off)")
CG = re.compile(rf"cg\s+k=1\s+iters=(\d+)\s+residual={NUM}\s+{NUM} ms/iter \(min {NUM} max {NUM}\)"
                rf"\s+SpMM {NUM}% \(min {NUM} max {NUM}\)")
BLOCK = re.compile(rf"block-cg\s+k=(\d+)\s+iters=(\d+)\s+residual={NUM}\s+{NUM} ms/iter\s+SpMM "
                   rf"{NUM}%\s+total {NUM} s \(min {NUM} max {NUM}\) \| \d+ x cg: (\d+) iters, "
                   rf"{NUM} s \| speedup {NUM}")


def spread(median, lo, hi):
    return {"median": float(median), "min": float(lo), "max": float(hi)}


def parse(text):
    header, cg, blocks = HEADER.search(text), CG.search(text), BLOCK.findall(text)
    if not header or not cg or not blocks:
        raise ValueError("unexpected mimd-solve output:\n" + text)
    row = {"matrix": header.group(1), "n": int(header.group(2)), "nnz": int(header.group(3)),
           "backend": header.group(4), "threads": int(header.group(5)),
           "jacobi": header.group(6) == "on",
           "cg": {"iterations": int(cg.group(1)), "residual": float(cg.group(2)),
                  "ms_per_iteration": spread(*cg.group(3, 4, 5)),
                  "spmm_share_percent": spread(*cg.group(6, 7, 8))},
           "block_cg": []}
    for b in blocks:
        row["block_cg"].append({
            "k": int(b[0]), "iterations": int(b[1]), "residual": float(b[2]),
            "ms_per_iteration": float(b[3]), "spmm_share_percent": float(b[4]),
            "seconds": spread(b[5], b[6], b[7]), "separate_cg_iterations": int(b[8]),
            "separate_cg_seconds": float(b[9]), "speedup": float(b[10])})
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(HERE, "build"))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(HERE, "bench", "results", "solvers.json"))
    ap.add_argument("matrices", nargs="*", default=DEFAULT)
    args = ap.parse_args()
    exe = os.path.join(args.build, "examples", "mimd-solve")
    rev = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"], capture_output=True,
                         text=True).stdout.strip()
    result = {"context": {"revision": rev,
                          "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                          "machine": os.uname().nodename, "cpus": os.cpu_count(),
                          "load_average_start": os.getloadavg(), "repeats": args.repeats,
                          "environment": "OMP_PROC_BIND=%s OMP_PLACES=%s OPENBLAS_NUM_THREADS=1"
                                         % (ENV["OMP_PROC_BIND"], ENV["OMP_PLACES"]),
                          "command": "mimd-solve MATRIX --bench --repeats %d [--jacobi]"
                                     % args.repeats,
                          "right_hand_sides": "uniform(-1, 1), column j from seed 1000 + j",
                          "tolerance": 1e-8},
              "matrices": []}
    t0 = time.time()
    for spec in args.matrices:
        jacobi = spec.endswith(":jacobi")
        cmd = [exe, spec[:-len(":jacobi")] if jacobi else spec, "--bench", "--repeats",
               str(args.repeats)] + (["--jacobi"] if jacobi else [])
        run = subprocess.run(cmd, capture_output=True, text=True, env=ENV)
        sys.stdout.write(run.stdout)
        if run.returncode == 77:
            continue
        if run.returncode != 0:
            sys.exit("%s failed (exit %d): %s" % (" ".join(cmd), run.returncode, run.stderr))
        result["matrices"].append(parse(run.stdout))
    result["context"]["load_average_end"] = os.getloadavg()
    result["context"]["seconds"] = round(time.time() - t0, 1)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    print("wrote", args.out)


if __name__ == "__main__":
    main()
