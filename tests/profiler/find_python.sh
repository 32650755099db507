# Sourced by the profiler tests: sets $python to an interpreter that has torch with
# torch.distributed, or exits 77, which CTest reports as skipped (SKIP_RETURN_CODE).
python=""
for candidate in "${DISTSIM_PYTHON:-}" python3 /usr/bin/python3; do
  if [ -n "$candidate" ] && command -v "$candidate" >/dev/null 2>&1 &&
     "$candidate" -c "import torch, torch.distributed" >/dev/null 2>&1; then
    python=$candidate
    break
  fi
done
if [ -z "$python" ]; then
  echo "SKIP: no python3 with PyTorch found (install python3-torch, or set DISTSIM_PYTHON)"
  exit 77
fi
