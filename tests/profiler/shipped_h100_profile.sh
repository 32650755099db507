#!/usr/bin/env bash
# The shipped H100 profile (data/profiles/h100-sxm.distsim-profile.json, measured on a real H100,
# docs/profiler.md) imports, and jobs with its shapes price every compute event from it: the
# Llama-3.1-8B jobs at TP 4 and 8 it was measured for (bf16 and fp8, sequence 8192, micro-batch 2)
# and the small GPT the runner trained on one GPU. Needs python3 (standard library) only.
# Usage: shipped_h100_profile.sh DISTSIM SOURCE_DIR
set -euo pipefail
distsim=$1
source_dir=$2
profile=$source_dir/data/profiles/h100-sxm.distsim-profile.json
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$distsim" db import "$profile" --profile-db "$scratch/h100.sqlite" >"$scratch/import.txt"
cat "$scratch/import.txt"
jobs=("--model llama-3.1-8b --tp 8 --dp 1" "--model llama-3.1-8b --tp 4 --dp 2"
      "--model llama-3.1-8b --tp 8 --dp 1 --fp8" "--model llama-3.1-8b --tp 4 --dp 2 --fp8")
index=0
for job in "${jobs[@]}"; do
  # shellcheck disable=SC2086  # the job's flags are words
  "$distsim" events $job --gpu h100-sxm --pp 1 --micro-batch-size 2 --global-batch-size 4 --seq-length 8192 \
    --profile-db "$scratch/h100.sqlite" --json >"$scratch/events_$index.json"
  index=$((index + 1))
done
"$distsim" events --model "$source_dir/tests/fixtures/profiler/small_gpt_gpu.yaml" --gpu h100-sxm --nodes 1 \
  --gpus-per-node 1 --strategy 1M1P1D --micro-batch-size 4 --global-batch-size 16 --profile-db "$scratch/h100.sqlite" \
  --json >"$scratch/events_small.json"
python3 - "$profile" "$scratch/import.txt" "$scratch"/events_*.json <<'PY'
import json, sys
profile_path, import_text, work_lists = sys.argv[1], sys.argv[2], sys.argv[3:]
profile = json.load(open(profile_path))
# The expected values come from the data file itself, not from distsim's output.
medians = {record["key"]: record["median_us"] for record in profile["events"]}
assert profile["hardware"] == "h100-sxm", profile["hardware"]
expected_import = "imported %d events for hardware 'h100-sxm'" % len(medians)
assert expected_import in open(import_text).read(), "import did not report: " + expected_import
checked = 0
for path in work_lists:
    compute = [e for e in json.load(open(path))["events"] if e["class"] != "collective"]
    assert compute, "%s: no compute events" % path
    for event in compute:
        assert event["source"] == "profiled", "%s: '%s' priced by %s, not the profile" % (
            path, event["key"], event["source"])
        # distsim keeps whole nanoseconds of the stored median (docs/profile_db.md).
        want_us = round(medians[event["key"]] * 1000) / 1000
        assert abs(event["duration_us"] - want_us) < 0.0015, "%s: '%s' %.3f us, the profile says %.3f" % (
            path, event["key"], event["duration_us"], want_us)
        checked += 1
print("ok: %d compute events of %d jobs priced from the shipped H100 profile" % (checked, len(work_lists)))
PY
