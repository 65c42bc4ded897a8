#!/usr/bin/env python3
"""Side-by-side table of two mimd-bench SpMM results made with different Kokkos builds
(e.g. Kokkos 3.4.1 + Kokkos Kernels 3.4.1 and Kokkos 4.6.01 + Kokkos Kernels 4.6.02):
per input and k, the GFLOP/s (median, min-max over the timed calls) of the Kokkos Kernels
baselines and of mimd's lssm in each result, and the ratio new / old. lssm is the same
code in both builds: its ratio shows how much of a difference is the machine.

    tools/kk_versions.py OLD.json NEW.json [--out TABLE.md]
"""
import argparse
import json
import math
import sys

IMPLS = ("kk_right", "kk_left", "lssm")


def load(path):
    with open(path) as f:
        d = json.load(f)
    ctx = d["context"]
    rows = {}
    for r in d["records"]:
        if (r.get("kernel") == "spmm" and r.get("impl") in IMPLS and r.get("scalar") == "double"
                and not r.get("skipped") and r.get("verified")):
            rows[(r["input"], r["k"], r["impl"])] = r
    return ctx, rows


def label(ctx):
    kk = ctx.get("kokkos_kernels") or "none"
    k = ctx["kokkos"]
    return f"Kokkos {k['version']} ({k['backend']}), Kokkos Kernels {kk}"


def spread(r):
    """'median (min-max)' GFLOP/s: the rate at the median, slowest and fastest call."""
    g = r["gflops"]
    lo = g * r["median_s"] / r["max_s"]
    hi = g * r["median_s"] / r["min_s"]
    return f"{g:.2f} ({lo:.2f}-{hi:.2f})"


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def table(old_path, new_path):
    octx, old = load(old_path)
    nctx, new = load(new_path)
    lines = [
        f"old: {old_path}: {label(octx)}, git {octx['git'][:7]}, {octx['date']}",
        f"new: {new_path}: {label(nctx)}, git {nctx['git'][:7]}, {nctx['date']}",
        "",
        "GFLOP/s, double, median (min-max) of the timed calls; ratio = new / old medians.",
        "",
    ]
    head = ["input", "k"]
    for impl in IMPLS:
        head += [f"{impl} old", f"{impl} new", "ratio"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "---|" * len(head))
    keys = sorted({(i, k) for (i, k, _) in old} & {(i, k) for (i, k, _) in new},
                  key=lambda t: (t[1], t[0]))
    ratios = {}
    for inp, k in keys:
        cells = [inp, str(k)]
        for impl in IMPLS:
            o, n = old.get((inp, k, impl)), new.get((inp, k, impl))
            if o and n:
                ratio = n["gflops"] / o["gflops"]
                ratios.setdefault((k, impl), []).append(ratio)
                cells += [spread(o), spread(n), f"{ratio:.2f}"]
            else:
                cells += [spread(o) if o else "-", spread(n) if n else "-", "-"]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("Geometric mean of the ratios (new / old):")
    lines.append("")
    lines.append("| k | " + " | ".join(IMPLS) + " |")
    lines.append("|---|" + "---|" * len(IMPLS))
    for k in sorted({k for (_, k) in keys}):
        vals = [ratios.get((k, impl), []) for impl in IMPLS]
        lines.append(f"| {k} | " + " | ".join(f"{geomean(v):.2f}" if v else "-" for v in vals) + " |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--out", help="write the table here (default: standard output)")
    a = ap.parse_args()
    try:
        text = table(a.old, a.new)
    except (OSError, KeyError, ValueError) as e:
        print(f"kk_versions.py: {e}", file=sys.stderr)
        return 1
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
