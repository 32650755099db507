#!/usr/bin/env bash
# A sweep's answer per point equals what `distsim search` answers for that point run alone: for
# every point of tests/fixtures/sweeps/tiny.yaml, the search with the same job and the same flags
# (the sweep file's search mapping, written as flags) gives the same best candidates (every field
# of its JSON "top"), the same counts (valid, invalid, out of memory, pruned by bound) and the same
# memory limit. The CSV has one line per best candidate after its header.
# usage: sweep_matches_search.sh DISTSIM FIXTURES
set -euo pipefail
distsim=$1
fixtures=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$distsim" sweep "$fixtures/sweeps/tiny.yaml" --threads 2 --json --csv "$scratch/sweep.csv" > "$scratch/sweep.json"
python3 - "$distsim" "$fixtures" "$scratch" <<'PY'
import json, subprocess, sys
distsim, fixtures, scratch = sys.argv[1:4]
sweep = json.load(open(f"{scratch}/sweep.json"))
# tiny.yaml's search mapping, as distsim search's flags.
flags = ["--gpus-per-node", "4", "--tp", "1,2", "--recompute", "none", "--memory-headroom", "10%",
         "--objectives", "time,memory", "--top", "2", "--tokens", "1e9", "--gpu-hour-price", "2.5",
         "--threads", "2", "--json"]
points = sweep["points"]
assert len(points) == 8, f"expected 1 x 2 x 2 x 2 = 8 points, got {len(points)}"
rows = 0
for point in points:
    p = point["point"]
    job = ["--model", p["model"], "--gpu", p["gpu"], "--nodes", str(p["nodes"]),
           "--global-batch-size", str(p["global_batch_size"])]
    alone = json.loads(subprocess.run([distsim, "search", *job, *flags], check=True,
                                      capture_output=True, text=True).stdout)
    for key in ["top", "valid", "invalid", "out_of_memory", "pruned_by_bound", "memory_limit_bytes", "job",
                "search"]:
        if point[key] != alone[key]:
            sys.exit(f"sweep_matches_search: point {p}: {key} differs:\n sweep  {point[key]}\n search {alone[key]}")
    if len(point["top"]) != 2:
        sys.exit(f"sweep_matches_search: point {p}: expected the best 2, got {len(point['top'])}")
    rows += len(point["top"])
lines = open(f"{scratch}/sweep.csv").read().splitlines()
if len(lines) != 1 + rows:
    sys.exit(f"sweep_matches_search: the CSV has {len(lines)} lines, expected a header and {rows} rows")
print(f"sweep_matches_search: {len(points)} points, each the same as distsim search alone")
PY
