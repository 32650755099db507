#!/usr/bin/env bash
# Profiles the events of three jobs of a tiny GPT and two of a tiny mixture-of-experts model with
# latent attention on 2 CPU processes, imports the profile and simulates the jobs again: every
# event must then come from the database (docs/profiler.md).
# Usage: profile_roundtrip.sh DISTSIM SOURCE_DIR
set -euo pipefail
distsim=$1
source_dir=$2
export DISTSIM_BIN=$distsim  # the profiler reads the operator table from it
. "$(dirname "$0")/find_python.sh"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fixtures=$source_dir/tests/fixtures/profiler
hardware=local-cpu  # the name in local-cpu.yaml, which the profile and the lookups share
common=(--cluster "$fixtures/local-cpu-x2.yaml" --micro-batch-size 2 --global-batch-size 4)
# Of the GPT: 2M1P1D brings tensor-parallel all-reduces, 1M2P1D point-to-point transfers and the
# tied embedding's all-reduce; both bring every compute operator of a GPT. 1M2C1P1D brings context
# parallelism's ring exchanges and its attention steps. Of the MoE: expert parallel 2 brings the
# router, permutations, grouped GEMMs and the dispatch and combine all-to-alls, and with the
# pipeline of two stages, latent attention on every stage.
jobs=("gpt --strategy 2M1P1D" "gpt --strategy 1M2P1D" "gpt --strategy 1M2C1P1D"
      "moe --ep 2 --dp 2" "moe --pp 2")
model_file() { [ "$1" = gpt ] && echo "$fixtures/tiny_gpt_cpu.yaml" || echo "$fixtures/tiny_moe_cpu.yaml"; }
job_arguments() {  # the distsim arguments of job number $1
  read -r -a words <<<"${jobs[$1]}"
  echo --model "$(model_file "${words[0]}")" "${common[@]}" "${words[@]:1}"
}
for index in "${!jobs[@]}"; do
  read -r -a arguments <<<"$(job_arguments "$index")"
  "$distsim" events "${arguments[@]}" --json >"$scratch/work_$index.json"
done
"$python" "$source_dir/tools/profiler/distsim_profile.py" "$scratch"/work_*.json --nproc 2 --repeats 3 --warmup 1 \
  --max-seconds-per-event 0.5 --output "$scratch/profile.json"
"$python" "$source_dir/tests/profiler/check_profile.py" "$scratch/profile.json" "$hardware" "$scratch"/work_*.json
if ! "$distsim" db --help >/dev/null 2>&1; then
  echo "distsim has no 'db' command yet: checked the profile's structure only"
  exit 0
fi
"$distsim" db import "$scratch/profile.json" --profile-db "$scratch/profiles.sqlite"
for index in "${!jobs[@]}"; do
  read -r -a arguments <<<"$(job_arguments "$index")"
  "$distsim" simulate "${arguments[@]}" --profile-db "$scratch/profiles.sqlite" --json >"$scratch/summary_$index.json"
  "$python" - "$scratch/summary_$index.json" "${jobs[$index]}" <<'PY'
import json, sys
counts = json.load(open(sys.argv[1]))["events"]
if counts["profiled"] != counts["unique"] or counts["analytical"] or counts["extrapolated"]:
    sys.exit("%s: not every event came from the profile database: %s" % (sys.argv[2], counts))
print("%s: all %d unique events profiled" % (sys.argv[2], counts["unique"]))
PY
done
