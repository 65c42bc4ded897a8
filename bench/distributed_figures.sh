#!/usr/bin/env bash
# 2 ranks x 1 thread against 1 rank x 2 threads with mimd-bench --distributed, input by
# input (the two configurations alternate, so foreign load hits both alike), merged into
# one JSON (records of both, the volume model once).
#
#   bench/distributed_figures.sh OUT.json [BUILD_DIR] [INPUT...]
set -euo pipefail
out=$1
build=${2:-build}
shift $(($# < 2 ? $# : 2))
inputs=("$@")
[ ${#inputs[@]} -gt 0 ] || inputs=(stencil3d:100 powerlaw:1000000:16 kron:20 bcsstk33 coAuthorsDBLP dblp-2010)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpirun=(mpirun --oversubscribe --allow-run-as-root --bind-to none)
i=0
for input in "${inputs[@]}"; do
  "${mpirun[@]}" -np 1 "$build/bench/mimd-bench" --distributed --threads 2 --k 1,8,32 \
    --json "$tmp/$i-1x2.json" "$input"
  "${mpirun[@]}" -np 2 "$build/bench/mimd-bench" --distributed --threads 1 --k 1,8,32 \
    --json "$tmp/$i-2x1.json" "$input"
  i=$((i + 1))
done
python3 - "$out" "$tmp" <<'PY'
import glob, json, os, sys
out, tmp = sys.argv[1], sys.argv[2]
merged = {"contexts": [], "records": [], "volume_model": []}
for f in sorted(glob.glob(os.path.join(tmp, "*.json")), key=lambda p: (int(os.path.basename(p).split("-")[0]), p)):
    j = json.load(open(f))
    merged["contexts"].append(j["context"])
    merged["records"] += j["records"]
    if f.endswith("-2x1.json"):
        merged["volume_model"] += j["volume_model"]
json.dump(merged, open(out, "w"), indent=1)
PY
