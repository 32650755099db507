#!/usr/bin/env bash
# Two runs of the same job must give byte-identical JSON summaries, event lists, traces and Chakra
# exports.
set -euo pipefail
distsim=$1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
job=(--model t5-large --gpu a100-80gb --nodes 2 --strategy 2M4P2D --micro-batch-size 2 --global-batch-size 32)
for run in 1 2; do
  "$distsim" simulate "${job[@]}" --json --trace "$scratch/trace$run.json" --trace-ranks all >"$scratch/summary$run.json"
  "$distsim" events "${job[@]}" --json >"$scratch/events$run.json"
  "$distsim" simulate "${job[@]}" --all-ranks --json >"$scratch/all_ranks$run.json"
  mkdir "$scratch/chakra$run"
  "$distsim" simulate "${job[@]}" --chakra "$scratch/chakra$run/job" --trace-ranks all >/dev/null
done
diff -r "$scratch/chakra1" "$scratch/chakra2"
cmp "$scratch/summary1.json" "$scratch/summary2.json"
cmp "$scratch/trace1.json" "$scratch/trace2.json"
cmp "$scratch/events1.json" "$scratch/events2.json"
cmp "$scratch/all_ranks1.json" "$scratch/all_ranks2.json"
python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$scratch/trace1.json"
echo "byte-identical across runs"
