# Sourced by the profiler tests: sets $python to an interpreter that has torch with
# torch.distributed, or fails the test saying what to install (a missing PyTorch is never a skip).
python=""
for candidate in "${DISTSIM_PYTHON:-}" python3 /usr/bin/python3; do
  if [ -n "$candidate" ] && command -v "$candidate" >/dev/null 2>&1 &&
     "$candidate" -c "import torch, torch.distributed" >/dev/null 2>&1; then
    python=$candidate
    break
  fi
done
if [ -z "$python" ]; then
  echo "FAIL: no python3 with PyTorch found: install python3-torch (scripts/install_deps.sh --with-test-tools), or set DISTSIM_PYTHON to an interpreter that has it" >&2
  exit 1
fi
