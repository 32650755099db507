#!/usr/bin/env bash
# The profiler's Python unit tests (tests/profiler/test_*.py). Usage: run_unit_tests.sh SOURCE_DIR DISTSIM
# DISTSIM is the binary whose operator table the profiler reads (tools/profiler/distsim_profiler/keys.py).
# They run with any python3: the tests that need PyTorch skip
# themselves when it is missing (tests/profiler/support.py), the others always run. The
# interpreter is the first of $DISTSIM_PYTHON, python3, /usr/bin/python3 that has torch, else python3.
set -euo pipefail
source_dir=$1
export DISTSIM_BIN=$2
python=""
for candidate in "${DISTSIM_PYTHON:-}" python3 /usr/bin/python3; do
  if [ -n "$candidate" ] && command -v "$candidate" >/dev/null 2>&1 &&
     "$candidate" -c "import torch, torch.distributed" >/dev/null 2>&1; then
    python=$candidate
    break
  fi
done
if [ -z "$python" ]; then
  python=${DISTSIM_PYTHON:-python3}
  echo "no python3 with PyTorch found: the tests that need it are skipped"
fi
cd "$source_dir/tests/profiler"
"$python" -m unittest discover -s . -p 'test_*.py' -v
