#!/usr/bin/env bash
# The profiler's Python unit tests (tests/profiler/test_*.py). Usage: run_unit_tests.sh SOURCE_DIR DISTSIM
# DISTSIM is the binary whose operator table the profiler reads (tools/profiler/distsim_profiler/keys.py).
# The interpreter is the first of $DISTSIM_PYTHON, python3, /usr/bin/python3 that has torch; the
# test fails when none has it.
set -euo pipefail
source_dir=$1
export DISTSIM_BIN=$2
. "$(dirname "$0")/find_python.sh"
cd "$source_dir/tests/profiler"
"$python" -m unittest discover -s . -p 'test_*.py' -v
