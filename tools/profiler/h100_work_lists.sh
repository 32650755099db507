#!/usr/bin/env bash
# The work lists of the shipped H100 profile (data/profiles/h100-sxm.distsim-profile.json, docs/profiler.md):
# Llama-3.1-8B and 70B at TP 1, 2, 4, 8 and GPT-3 175B at TP 8, sequence 4096 and 8192, micro-batch 1
# and 2, bf16 and fp8 GEMMs, each on one 8-GPU node (data parallel over the rest), plus the
# single-GPU small GPT the runner trains. One folder per profiler run, as tools/profiler/gpu_session.sh takes them.
# The durations in them are the analytical model's when the profile database is empty, which is
# what tools/profiler/measured_vs_analytical.py compares the measurements with.
# Usage: tools/profiler/h100_work_lists.sh DISTSIM OUT_DIR
set -euo pipefail
distsim=$1
out=$2
fixtures=$(cd "$(dirname "$0")/../../tests/fixtures/profiler" && pwd)
mkdir -p "$out/a_small_8b" "$out/b_70b" "$out/c_175b"
job() {  # folder model tp seq micro-batch [fp8]
  local dp=$((8 / $3))
  "$distsim" events --model "$2" --gpu h100-sxm --tp "$3" --pp 1 --dp "$dp" --micro-batch-size "$5" \
    --global-batch-size $(($5 * dp)) --seq-length "$4" ${6:+--fp8} --json >"$out/$1/$2_tp$3_s$4_mb$5${6:+_fp8}.json"
}
for seq in 4096 8192; do
  for micro in 1 2; do
    for tp in 1 2 4 8; do
      job a_small_8b llama-3.1-8b "$tp" "$seq" "$micro"
      job a_small_8b llama-3.1-8b "$tp" "$seq" "$micro" fp8
      job b_70b llama-3.1-70b "$tp" "$seq" "$micro"
      job b_70b llama-3.1-70b "$tp" "$seq" "$micro" fp8
    done
    job c_175b gpt3-175b 8 "$seq" "$micro"
    job c_175b gpt3-175b 8 "$seq" "$micro" fp8
  done
done
for micro in 4 2; do
  "$distsim" events --model "$fixtures/small_gpt_gpu.yaml" --gpu h100-sxm --nodes 1 --gpus-per-node 1 \
    --strategy 1M1P1D --micro-batch-size "$micro" --global-batch-size 16 --json >"$out/a_small_8b/small-gpt_mb$micro.json"
done
# The operator table the profiler reads on a GPU machine without a distsim binary (DISTSIM_OPERATORS).
"$distsim" list operators --json >"$out/operators.json"
