#!/usr/bin/env bash
# Predicted versus measured on this machine, for the tiny GPT under TP 2, PP 2 (GPipe and 1F1B)
# and DP 2, with the DistSim paper's three metrics (docs/compare.md): profile the jobs' events
# once, import them, simulate each job with a trace of every rank, run each job for real RUNS
# times, and compare the prediction with the first run's traces.
# Usage: tools/profiler/accuracy.sh [DISTSIM] [OUT_DIR]   (docs/profiler.md shows a run's table)
# DISTSIM defaults to build/src/cli/distsim, OUT_DIR to build/accuracy. Environment: REPEATS (timed
# runs per profiled event, 20), ITERATIONS (timed iterations per run, 10), RUNS (runs per job, 3),
# CONFIGS ("STRATEGY SCHEDULE" per line; default the four jobs above), PHASES (which of
# "events measure predict table" to run, all by default: the measuring can run on another machine
# that has no distsim binary, with the work lists copied there and the results copied back).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
distsim=$(realpath -m "${1:-$source_dir/build/src/cli/distsim}")
export DISTSIM_BIN=$distsim  # the profiler reads the operator table from it
out=${2:-$source_dir/build/accuracy}
fixtures=$source_dir/tests/fixtures/profiler
repeats=${REPEATS:-20}
iterations=${ITERATIONS:-10}
runs_per_job=${RUNS:-3}
phases=" ${PHASES:-events measure predict table} "
mapfile -t configs <<<"${CONFIGS:-2M1P1D 1f1b
1M2P1D gpipe
1M2P1D 1f1b
1M1P2D 1f1b}"
world_size() {  # processes of a <tp>M<pp>P<dp>D strategy
  [[ $1 =~ ^([0-9]+)M([0-9]+)P([0-9]+)D$ ]] || { echo "accuracy.sh: bad strategy '$1'" >&2; exit 2; }
  echo $((BASH_REMATCH[1] * BASH_REMATCH[2] * BASH_REMATCH[3]))
}
sizes=()
for config in "${configs[@]}"; do
  read -r strategy schedule <<<"$config"
  size=$(world_size "$strategy")
  [[ " ${sizes[*]} " == *" $size "* ]] || sizes+=("$size")
done
# Each job on one node of as many CPU processes as it has.
job=(--model "$fixtures/tiny_gpt_cpu.yaml" --cluster "$fixtures/local-cpu-x2.yaml" --micro-batch-size 2
     --global-batch-size 8)
mkdir -p "$out"
cd "$out"
if [[ $phases == *" events "* ]]; then
  for config in "${configs[@]}"; do
    read -r strategy schedule <<<"$config"
    size=$(world_size "$strategy")
    "$distsim" events "${job[@]}" --gpus-per-node "$size" --strategy "$strategy" --schedule "$schedule" --json \
      >"work_${size}_${strategy}_$schedule.json"
  done
fi
if [[ $phases == *" measure "* ]]; then
  # The first of $DISTSIM_PYTHON, python3, /usr/bin/python3 that has torch.
  . "$source_dir/tests/profiler/find_python.sh"
  # Each job's events are measured with as many processes as the job has, so that they run with
  # the runner's threads per process (cores / processes).
  for size in "${sizes[@]}"; do
    echo "load before profiling for $size processes: $(cut -d' ' -f1-3 /proc/loadavg)"
    "$python" "$here/distsim_profile.py" "work_${size}_"*.json -o "profile_$size.json" --repeats "$repeats" \
      --nproc "$size" --cpu
  done
  for config in "${configs[@]}"; do
    read -r strategy schedule <<<"$config"
    name=${strategy}_$schedule
    for run in $(seq 1 "$runs_per_job"); do
      rm -rf "measured_${name}_$run"
      mkdir -p "measured_${name}_$run"
      echo "load before running $name (run $run): $(cut -d' ' -f1-3 /proc/loadavg)"
      "$python" "$here/distsim_run.py" --model "$fixtures/tiny_gpt_cpu.yaml" --strategy "$strategy" \
        --schedule "$schedule" --micro-batch-size 2 --global-batch-size 8 --iterations "$iterations" \
        --output-dir "measured_${name}_$run" --cpu
    done
  done
  echo "load after running: $(cut -d' ' -f1-3 /proc/loadavg)"
fi
if [[ $phases == *" predict "* ]]; then
  for size in "${sizes[@]}"; do
    rm -f "profiles_$size.sqlite"
    "$distsim" db import "profile_$size.json" --profile-db "profiles_$size.sqlite"
  done
  for config in "${configs[@]}"; do
    read -r strategy schedule <<<"$config"
    name=${strategy}_$schedule
    size=$(world_size "$strategy")
    "$distsim" simulate "${job[@]}" --gpus-per-node "$size" --strategy "$strategy" --schedule "$schedule" \
      --profile-db "profiles_$size.sqlite" --json --trace "predicted_$name.json" \
      --trace-ranks all >"summary_$name.json"
    "$distsim" compare --predicted "predicted_$name.json" --measured "measured_${name}_1"/rank*.json \
      >"compare_$name.txt"
    "$distsim" compare --predicted "predicted_$name.json" --measured "measured_${name}_1"/rank*.json \
      --json >"compare_$name.json"
  done
fi
[[ $phases == *" table "* ]] || exit 0
python3 - "$runs_per_job" "${configs[@]}" <<'PY'
import json, statistics, sys
runs = int(sys.argv[1])
print("| config | predicted ms | measured ms | batch-time error | mean activity error "
      "| mean abs stage start / end error | spread of the iterations | medians of the %d runs ms |" % runs)
print("|---|---|---|---|---|---|---|---|")
for config in sys.argv[2:]:
    name = config.replace(" ", "_")
    result = json.load(open("compare_%s.json" % name))
    times = []
    medians = []
    for run in range(1, runs + 1):
        run_times = json.load(open("measured_%s_%d/rank0.json" % (name, run)))["distsim_runner"]["iteration_times_us"]
        times += run_times
        medians.append(statistics.median(run_times) / 1e3)
    spread = (max(times) - min(times)) / statistics.median(times) * 100
    stages = result["stages"]
    print("| %s | %.1f | %.1f | %+.1f %% | %.1f %% | %.1f %% / %.1f %% | %.0f %% | %s |" % (
        config, result["batch_time"]["predicted_ns"] / 1e6, result["batch_time"]["measured_ns"] / 1e6,
        result["batch_time"]["error"] * 100, result["activity"]["mean_error"] * 100,
        stages["mean_abs_start_error"] * 100, stages["mean_abs_end_error"] * 100, spread,
        ", ".join("%.1f" % m for m in medians)))
PY
