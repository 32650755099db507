#!/usr/bin/env bash
# One measuring session on a GPU machine (docs/profiler.md, "Measured on an H100"): the machine's
# versions, the profile of every compute event of the work lists in WORK_DIR on one GPU, and real
# single-GPU iterations of the small GPT. Everything goes to OUT_DIR; the work lists are made
# beforehand with `distsim events ... --json`, and the operator table with `distsim list operators
# --json > WORK_DIR/operators.json`, so the GPU machine needs no distsim binary.
# Usage: tools/profiler/gpu_session.sh WORK_DIR OUT_DIR [HARDWARE]   (WORK_DIR holds folders of work lists)
# Environment: REPEATS (timed runs per event, 20), PROFILE_SECONDS (time limit of each folder's profiling, 360),
# RUNNER_JOBS ("MICRO_BATCH GLOBAL_BATCH" per line for the runner; default "4 16" and "2 16").
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
work=$1
out=$2
hardware=${3:-h100-sxm}
python=${DISTSIM_PYTHON:-python3}
export DISTSIM_OPERATORS=${DISTSIM_OPERATORS:-$work/operators.json}
mkdir -p "$out"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,power.limit --format=csv
  "$python" -c 'import torch, platform; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn",
torch.backends.cudnn.version(), "python", platform.python_version()); print("device", torch.cuda.get_device_name(0),
"capability", torch.cuda.get_device_capability(0))'
  echo "cpu cores: $(nproc), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
} >"$out/versions.txt" 2>&1
cat "$out/versions.txt"
# One profile file per folder of work lists, so that a time limit or a crash loses one folder only;
# `distsim db import` takes them one after the other, and `distsim db export` writes them as one.
for group in "$work"/*/; do
  name=$(basename "$group")
  timeout "${PROFILE_SECONDS:-360}" "$python" "$here/distsim_profile.py" "$group"*.json -o "$out/profile_$name.json" \
    --hardware "$hardware" --nproc 1 --only compute --repeats "${REPEATS:-20}" >"$out/profile_$name.log" 2>&1
  echo "profiler $name exit $?"; grep -v "^  skipped\|^  note" "$out/profile_$name.log" | tail -n 20
done
mapfile -t jobs <<<"${RUNNER_JOBS:-4 16
2 16}"
for job in "${jobs[@]}"; do
  read -r micro global <<<"$job"
  mkdir -p "$out/run_mb$micro"
  "$python" "$here/distsim_run.py" --model "$source_dir/tests/fixtures/profiler/small_gpt_gpu.yaml" \
    --strategy 1M1P1D --micro-batch-size "$micro" --global-batch-size "$global" --warmup-iterations 3 \
    --iterations 10 --output-dir "$out/run_mb$micro" >"$out/run_mb$micro.log" 2>&1
  echo "runner mb $micro exit $?"; tail -n 6 "$out/run_mb$micro.log"
done
