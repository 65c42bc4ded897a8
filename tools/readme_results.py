#!/usr/bin/env python3
"""Regenerates the README's results block from a committed mimd-bench JSON result.

    tools/readme_results.py [RESULT.json] [--readme README.md] [--write | --check]

The block sits in README.md between the marker comments

    <!-- results:begin bench/results/NAME.json -->
    <!-- results:end -->

and the begin marker names the result it was made from. Without RESULT.json the
script uses the file the marker names (paths relative to the repository root).

  (no flag)  print the block
  --write    replace the README's block with it, and redraw the pictures it shows
             (bench/results/spmm_speedup.png, bfs_gteps.png) with tools/plot_bench.py
  --check    exit 1, showing a diff, when the README's block differs from the block
             the result gives (the `docs` ctest)

Every figure in the block is read from the result's "summary" (the geometric means
mimd-bench printed in its SUMMARY) or "records", and printed with the digits shown.
Names and labels come from the result's "registry". Only the standard library is used.
"""
import argparse
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN = re.compile(r"<!-- results:begin (\S+) -->")
END = "<!-- results:end -->"
CLASSES = [("all", "all"), ("nnz_100k", "nnz >= 100k"), ("above_llc", "A+B+C > LLC")]


def speedups(doc):
    """(impl, baseline, k, class) -> (geometric mean, matrices) from the summary."""
    return {(m["impl"], m["baseline"], m["k"], m["class"]): (m["value"], m["matrices"])
            for m in doc["summary"] if m["metric"] == "spmm_geomean_speedup"}


def cell(geo, key):
    if key not in geo:
        return "-"
    return "%.2fx (%d)" % geo[key]


def block(doc, result_path):
    ctx = doc["context"]
    reg = doc["registry"]
    label = {e["name"]: e["label"] for e in reg}
    geo = speedups(doc)
    mine = next(e["name"] for e in reg
                if e["kernel"] == "spmm" and e["kind"] == "ours" and e["headline"])
    bases = [e["name"] for e in reg if e["kernel"] == "spmm" and e["kind"] == "baseline"
             and any(key[0] == mine and key[1] == e["name"] for key in geo)]
    ks = sorted({key[2] for key in geo if key[0] == mine})
    kk = 32 if 32 in ks else ks[-1]
    argv = ctx["command"].split()
    command = " ".join([os.path.basename(argv[0])] + argv[1:])
    intro = (
        "One run of `%s` (git %s, %s, %s, %d threads, STREAM triad %.1f GB/s; the result is "
        "`%s`, how it was made: `bench/results/README.md`). Geometric-mean SpMM speedup of "
        "`%s` (double) over each baseline: every matrix of the run at each k, and at k = %d "
        "the matrices with at least 100k nonzeros and those whose A + B + C exceed the "
        "%.1f MB last-level cache (in brackets: how many matrices)."
        % (command, ctx["git"][:7], ctx["date"][:10], ctx["topology"].get("cpu_model", "?"),
           ctx["threads"], ctx["stream"]["triad_gbps"], result_path, mine, kk,
           ctx["llc_bytes"] * 1e-6))
    out = ["<!-- results:begin %s -->" % result_path, textwrap.fill(intro, 88), "",
           "| baseline | " + " | ".join("k = %d" % k for k in ks) + " | "
           + " | ".join("k = %d, %s" % (kk, title) for _, title in CLASSES[1:]) + " |",
           "|---" * (1 + len(ks) + len(CLASSES) - 1) + "|"]
    for b in bases:
        out.append("| %s | " % label[b]
                   + " | ".join(cell(geo, (mine, b, k, "all")) for k in ks) + " | "
                   + " | ".join(cell(geo, (mine, b, kk, c)) for c, _ in CLASSES[1:]) + " |")
    bfs_mine = [e["name"] for e in reg if e["kernel"] == "bfs" and e["kind"] == "ours"
                and e["headline"]]
    bfs = [r for r in doc["records"] if r["kernel"] == "bfs" and r["impl"] in bfs_mine
           and r["verified"] and not r["skipped"]]
    if bfs:
        r = max(bfs, key=lambda r: r["nnz"])
        out += ["", textwrap.fill(
            "BFS `%s` on %s (%d vertices, %d stored edges, %d sources): %.3f GTEPS as GAP "
            "counts (undirected edges of the graph / mean time), %.3f GTEPS as Graph500 counts "
            "(edges of the reached component / time, harmonic mean over the sources)."
            % (r["impl"], r["input"], r["rows"], r["nnz"], r["reps"], r["gteps_gap"],
               r["gteps_graph500"]), 88)]
    out += ["",
            "![SpMM speedup over the baselines](bench/results/spmm_speedup.png)",
            END]
    return "\n".join(out) + "\n"


def split_readme(text, readme):
    m = BEGIN.search(text)
    end = text.find(END, m.end()) if m else -1
    if not m or end < 0:
        sys.exit("readme_results.py: %s has no '<!-- results:begin FILE -->' ... '%s' block"
                 % (readme, END))
    end += len(END) + 1
    return text[:m.start()], text[m.start():end], text[end:], m.group(1)


def draw_pictures(result):
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, os.path.join(ROOT, "tools", "plot_bench.py"), result,
                        "--out", tmp], check=True, stdout=subprocess.DEVNULL)
        for made, kept in (("speedup.png", "spmm_speedup.png"), ("bfs_gteps.png", "bfs_gteps.png")):
            if os.path.exists(os.path.join(tmp, made)):
                shutil.copy(os.path.join(tmp, made), os.path.join(ROOT, "bench", "results", kept))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("result", nargs="?", help="mimd-bench --json file (default: the marker's)")
    ap.add_argument("--readme", default=os.path.join(ROOT, "README.md"))
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--check", action="store_true")
    args = ap.parse_args()
    with open(args.readme) as f:
        text = f.read()
    before, current, after, named = split_readme(text, args.readme)
    result = args.result or os.path.join(ROOT, named)
    rel = os.path.relpath(os.path.abspath(result), ROOT)
    with open(result) as f:
        wanted = block(json.load(f), rel)
    if args.check:
        if current != wanted:
            sys.stdout.writelines(difflib.unified_diff(
                current.splitlines(True), wanted.splitlines(True), "README.md", rel + " (expected)"))
            sys.exit("readme_results.py: README.md's results block differs from %s; "
                     "run tools/readme_results.py --write" % rel)
    elif args.write:
        with open(args.readme, "w") as f:
            f.write(before + wanted + after)
        draw_pictures(result)
    else:
        sys.stdout.write(wanted)


if __name__ == "__main__":
    main()
