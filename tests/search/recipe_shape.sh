#!/usr/bin/env bash
# The search on Llama 3.1 70B, 256 H100 (32 DGX H100 nodes), sequence 8192, global batch 512,
# every searched setting free, must find a strategy at least as fast as the shape NVIDIA's
# recipes use (TP 4, CP 2, PP 4, DP 8, interleaved with 5 virtual stages, sequence parallelism,
# distributed optimizer, micro-batch 1; NeMo's llama3_70b pretraining recipe) as `distsim
# simulate` times it. Slow (about a minute on 2 cores): registered only with DISTSIM_SLOW_TESTS.
set -euo pipefail
distsim="$1"
job=(--model llama-3.1-70b --gpu h100-sxm --cluster dgx-h100 --nodes 32 --seq-length 8192 --global-batch-size 512)
recipe=$("$distsim" simulate "${job[@]}" --tp 4 --cp 2 --pp 4 --dp 8 --schedule interleaved --virtual-stages 5 \
  --sequence-parallel --distributed-optimizer --micro-batch-size 1 --json |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["iteration_time_s"])')
best=$("$distsim" search "${job[@]}" --top 1 --json |
  python3 -c 'import json, sys; top = json.load(sys.stdin)["top"][0]; print(top["iteration_time_s"], top["label"])')
echo "recipe shape: ${recipe} s; search's best: ${best}"
python3 -c "import sys; sys.exit(0 if float('${best%% *}') <= float('${recipe}') else 1)"
