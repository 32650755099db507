#!/usr/bin/env bash
# Runs the same micro GPT in fp32 without dropout under 1M1P1D, 2M1P1D, 1M2P1D (GPipe and
# 1F1B) and 1M1P2D. Every strategy starts from the same weights and sees the same global batch,
# so the loss of each iteration must agree to rounding: a wrong tensor-parallel split, pipeline
# transfer or gradient reduction would change the second and third iterations' losses.
# Usage: runner_consistency.sh SOURCE_DIR
set -euo pipefail
source_dir=$1
. "$(dirname "$0")/find_python.sh"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
runs=("1M1P1D 1f1b 1" "2M1P1D 1f1b 2" "1M2P1D gpipe 2" "1M2P1D 1f1b 2" "1M1P2D 1f1b 2")  # strategy schedule world
for run in "${runs[@]}"; do
  read -r strategy schedule world <<<"$run"
  out=$scratch/${strategy}_$schedule
  mkdir -p "$out"
  # Global batch 8 in micro-batches of 2: 4 micro-batches per pipeline, 2 per replica at dp 2.
  "$python" "$source_dir/tools/profiler/distsim_run.py" --model "$source_dir/tests/fixtures/profiler/micro_gpt.yaml" \
    --strategy "$strategy" --schedule "$schedule" --micro-batch-size 2 --global-batch-size 8 --dtype fp32 \
    --dropout 0 --warmup-iterations 0 --iterations 3 --threads 1 --output-dir "$out" >"$out/stdout.txt"
  "$python" "$source_dir/tests/profiler/check_traces.py" "$out" "$world"
done
"$python" - "$scratch" <<'PY'
import glob, json, os, sys
losses = {}
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*", "rank0.json"))):
    losses[os.path.basename(os.path.dirname(path))] = json.load(open(path))["distsim_runner"]["losses"]
reference = losses.pop("1M1P1D_1f1b")
for name, values in losses.items():
    for iteration, (got, want) in enumerate(zip(values, reference)):
        # fp32 sums in another order differ by a few ulps of the ~5.5 loss; 1e-4 is far above that
        # and far below the change one Adam step makes (about 0.03 per iteration here).
        if abs(got - want) > 1e-4:
            sys.exit("%s: loss of iteration %d is %.6f, 1M1P1D gives %.6f" % (name, iteration, got, want))
print("losses agree across strategies: %s" % " ".join("%.6f" % v for v in reference))
PY
