#!/usr/bin/env python3
"""Summarises a run of mimd-micro's left_cost family: where LayoutLeft's time goes.

    tools/left_cost.py RESULT.json [--files-only]

RESULT.json is Google Benchmark's JSON output of, for example,

    OMP_NUM_THREADS=1 build/bench/mimd-micro --benchmark_filter=left_cost \\
        --mimd_matrices=A.mtx,B.mtx,... --benchmark_repetitions=3 \\
        --benchmark_enable_random_interleaving=true --benchmark_min_time=0.1 \\
        --benchmark_format=json --benchmark_out=RESULT.json

(bench/micro/layout_left.cpp says what `right`, `left`, `pack` and `copy` time). For every
input and k, and for each repetition, it forms

  left/right   right / left: LayoutLeft's speed relative to LayoutRight if B came packed
               row-major for free (the only extra work is writing C column-major);
  pack/right   the pack of B over right; copy/right a plain copy of B over right;
  with pack    right / (left + pack): the two together, the packed path of a serial call;

and prints the median [min-max] over the repetitions, then the geometric mean over the
inputs for each k and for all k, median [min-max] over the repetitions. --files-only
leaves out the generated inputs (names without a ".mtx"), so that the means are over
the files of --mimd_matrices alone. Exit status 1 when RESULT.json holds no complete
left_cost record. Only the standard library is used.
"""
import argparse
import collections
import json
import math
import statistics
import sys

PARTS = ("right", "left", "pack", "copy")


def load(path):
    """{(input, k): {part: {repetition: seconds}}} from a Google Benchmark JSON file."""
    with open(path) as f:
        doc = json.load(f)
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    times = collections.defaultdict(lambda: collections.defaultdict(dict))
    for b in doc.get("benchmarks", []):
        if b.get("run_type", "iteration") != "iteration" or "error_occurred" in b:
            continue
        parts = b["name"].split("/")
        if len(parts) < 4 or parts[0] != "left_cost" or parts[1] not in PARTS:
            continue
        k = int(parts[3].split(":")[1])
        rep = b.get("repetition_index", 0)
        times[(parts[2], k)][parts[1]][rep] = b["real_time"] * scale[b["time_unit"]]
    return doc.get("context", {}), times


def ratios(parts):
    """Per repetition: left/right, pack/right, copy/right, with pack (see the docstring)."""
    out = []
    for rep in sorted(set.intersection(*(set(parts[p]) for p in PARTS))):
        r, lft, pk, cp = (parts[p][rep] for p in PARTS)
        out.append((r / lft, pk / r, cp / r, r / (lft + pk)))
    return out


def span(values):
    return f"{statistics.median(values):.3f} [{min(values):.3f}-{max(values):.3f}]"


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("result", help="Google Benchmark JSON of the left_cost family")
    parser.add_argument("--files-only", action="store_true",
                        help="leave out the generated inputs (names without .mtx)")
    args = parser.parse_args()
    context, times = load(args.result)
    cases = {key: ratios(parts) for key, parts in sorted(times.items())
             if ratios(parts) and (not args.files_only or key[0].endswith(".mtx"))}
    if not cases:
        sys.exit(f"left_cost.py: no complete left_cost records in {args.result}")
    print(f"# {context.get('mimd.cpu', '?')}, {context.get('mimd.compiler', '?')}, "
          f"{context.get('mimd.kokkos', '?')}, profile {context.get('mimd.tuning', '?')}; "
          f"one core; median [min-max] over {min(len(v) for v in cases.values())} repetitions")
    names = ("left/right", "pack/right", "copy/right", "with pack")
    print(f"{'input':<22} {'k':>4}  " + "  ".join(f"{n:<22}" for n in names))
    for (name, k), reps in cases.items():
        print(f"{name:<22} {k:>4}  " +
              "  ".join(f"{span([r[i] for r in reps]):<22}" for i in range(4)))
    print("\ngeometric mean over the inputs, median [min-max] over the repetitions")
    ks = sorted({k for _, k in cases})
    for label, chosen in [(f"k = {k}", [c for c in cases if c[1] == k]) for k in ks] + \
            [("all k", list(cases))]:
        nrep = min(len(cases[c]) for c in chosen)
        per_rep = [[geomean([cases[c][j][i] for c in chosen]) for j in range(nrep)]
                   for i in range(4)]
        print(f"{label:<27}  " + "  ".join(f"{span(v):<22}" for v in per_rep))


if __name__ == "__main__":
    main()
