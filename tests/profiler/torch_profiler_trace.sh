#!/usr/bin/env bash
# A trace torch.profiler itself writes, without distsim's ranges, read by distsim compare: two
# gloo processes run a 1M2P1D GPipe pipeline of two micro-batches (profiled_pipeline.py) whose
# passes are named as PyTorch's pipelining schedules name them. Compared with the hand-made 1M2P1D
# prediction (tests/fixtures/traces/predicted_1m2p1d.json, GPipe, two micro-batches), every
# stage's forward and backward pass of each micro-batch must be found (8 stage rows, no
# predicted-only), each rank's 4 passes matched, and the gloo sends and receives read as
# communication (unlabelled, outside every range: a measured-only pass). The times are the machine's, so no error is checked.
# Usage: torch_profiler_trace.sh DISTSIM SOURCE_DIR
set -euo pipefail
distsim=$1
source_dir=$2
. "$(dirname "$0")/find_python.sh"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
port=$((29500 + RANDOM % 2000))
"$python" "$source_dir/tests/profiler/profiled_pipeline.py" "$scratch" "$port"
"$distsim" compare --predicted "$source_dir/tests/fixtures/traces/predicted_1m2p1d.json" \
  --measured "$scratch/rank0.json" "$scratch/rank1.json" --json >"$scratch/compare.json"
"$python" - "$scratch" <<'PY'
import json, os, sys
scratch = sys.argv[1]
result = json.load(open(os.path.join(scratch, "compare.json")))
stages = result["stages"]
if not stages["available"]:
    sys.exit("the per-stage table is unavailable: %s" % stages.get("unavailable_reason"))
rows = sorted((row["stage"], row["microbatch"], row["phase"]) for row in stages["rows"])
want = sorted((stage, mb, phase) for stage in (0, 1) for mb in (0, 1) for phase in ("fwd", "bwd"))
if rows != want or stages["predicted_only"] != 0:
    sys.exit("stage rows %s (predicted only %d); expected %s" % (rows, stages["predicted_only"], want))
for rank in result["activity"]["ranks"]:
    if rank["matched"] < 4:
        sys.exit("rank %d matched %d passes; expected its 4 compute passes" % (rank["measured_rank"], rank["matched"]))
    # The transfers run outside every range: unlabelled communication, so a measured-only pass.
    if rank["measured_only"] < 1:
        sys.exit("rank %d has no measured-only pass: its gloo sends and receives were not read" % rank["measured_rank"])
print("torch.profiler traces compared: %d stage rows, ranks matched %s" %
      (len(rows), [rank["matched"] for rank in result["activity"]["ranks"]]))
PY
