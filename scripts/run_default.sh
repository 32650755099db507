#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds distsim, and simulates the built-in default job
# (GPT-2 345M on 4 nodes x 4 A40, strategy 2M2P4D, 1F1B, micro-batch 4, global batch 64).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
# build/ as CMakePresets.json's release; a build that scripts/test.sh configured keeps its
# components (Python module, MPI), so either command may run first.
cmake --preset release >/dev/null
cmake --build build --target distsim
./build/src/cli/distsim simulate "$@"
