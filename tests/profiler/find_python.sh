# Sourced by the profiler tests: sets $python to an interpreter that has torch with
# torch.distributed, or exits 77, which CTest reports as skipped (SKIP_RETURN_CODE). A caller that
# sets torch_optional=1 gets plain python3 instead, for tests that skip only their torch parts.
python=""
for candidate in "${DISTSIM_PYTHON:-}" python3 /usr/bin/python3; do
  if [ -n "$candidate" ] && command -v "$candidate" >/dev/null 2>&1 &&
     "$candidate" -c "import torch, torch.distributed" >/dev/null 2>&1; then
    python=$candidate
    break
  fi
done
if [ -z "$python" ] && [ "${torch_optional:-0}" = 1 ]; then
  python=${DISTSIM_PYTHON:-python3}
  echo "no python3 with PyTorch found: the tests that need it are skipped"
elif [ -z "$python" ]; then
  echo "SKIP: no python3 with PyTorch found (install python3-torch, or set DISTSIM_PYTHON)"
  exit 77
fi
