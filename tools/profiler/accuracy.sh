#!/usr/bin/env bash
# Predicted versus measured batch time on this machine, for the tiny GPT under TP 2, PP 2 (GPipe
# and 1F1B) and DP 2: profile the jobs' events, import them, simulate, run each job for real.
# Usage: tools/profiler/accuracy.sh DISTSIM [OUT_DIR] (docs/profiler.md shows a run's table).
set -euo pipefail
distsim=$(realpath "$1")
out=${2:-accuracy}
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
# The first of $DISTSIM_PYTHON, python3, /usr/bin/python3 that has torch.
. "$source_dir/tests/profiler/find_python.sh"
fixtures=$source_dir/tests/fixtures/profiler
iterations=${ITERATIONS:-10}
mkdir -p "$out"
cd "$out"
job=(--model "$fixtures/tiny_gpt_cpu.yaml" --cluster "$fixtures/local-cpu-x2.yaml" --micro-batch-size 2
     --global-batch-size 8)
runs=("2M1P1D 1f1b" "1M2P1D gpipe" "1M2P1D 1f1b" "1M1P2D 1f1b")
for run in "${runs[@]}"; do
  read -r strategy schedule <<<"$run"
  "$distsim" events "${job[@]}" --strategy "$strategy" --schedule "$schedule" --json >"work_${strategy}_$schedule.json"
done
echo "load before profiling: $(cut -d' ' -f1-3 /proc/loadavg)"
"$python" "$here/distsim_profile.py" work_*.json -o profile.json
rm -f profiles.sqlite
"$distsim" db import profile.json --profile-db profiles.sqlite
for run in "${runs[@]}"; do
  read -r strategy schedule <<<"$run"
  name=${strategy}_$schedule
  "$distsim" simulate "${job[@]}" --strategy "$strategy" --schedule "$schedule" --profile-db profiles.sqlite \
    --json --trace "predicted_$name.json" >"summary_$name.json"
  mkdir -p "measured_$name"
  echo "load before running $name: $(cut -d' ' -f1-3 /proc/loadavg)"
  "$python" "$here/distsim_run.py" --model "$fixtures/tiny_gpt_cpu.yaml" --strategy "$strategy" --schedule "$schedule" \
    --micro-batch-size 2 --global-batch-size 8 --iterations "$iterations" --output-dir "measured_$name"
done
"$python" - "${runs[@]}" <<'PY'
import json, statistics, sys
print("| job | predicted ms | measured median ms | spread (max-min)/median | error |")
print("|---|---|---|---|---|")
for run in sys.argv[1:]:
    name = run.replace(" ", "_")
    predicted = json.load(open("summary_%s.json" % name))["iteration_time_s"] * 1e3
    times = json.load(open("measured_%s/rank0.json" % name))["distsim_runner"]["iteration_times_us"]
    measured = statistics.median(times) / 1e3
    spread = (max(times) - min(times)) / statistics.median(times) * 100
    print("| %s | %.1f | %.1f | %.0f %% | %+.0f %% |" % (run, predicted, measured, spread,
                                                          (predicted - measured) / measured * 100))
PY
