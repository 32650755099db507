#!/usr/bin/env bash
# A build configured without the Python module and without MPI still lists their tests, and each
# fails saying what to install (tests/missing_component.cmake), instead of vanishing from the suite.
# usage: missing_components.sh SOURCE_DIR
set -euo pipefail
source_dir=$1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cmake -S "$source_dir" -B "$scratch" -G Ninja -DDISTSIM_PYTHON=OFF -DDISTSIM_MPI=OFF -DDISTSIM_BUILD_BENCH=OFF \
  >"$scratch/configure.log" 2>&1 || { cat "$scratch/configure.log"; exit 1; }
listed=$(cd "$scratch" && ctest -N -R '^(python_pytest|search_mpi)$' | sed -n 's/^ *Test *#[0-9]*: *//p' | sort | tr '\n' ' ')
if [ "$listed" != "python_pytest search_mpi " ]; then
  echo "FAIL: a build without Python and MPI lists '$listed', expected 'python_pytest search_mpi '" >&2
  exit 1
fi
if (cd "$scratch" && ctest -R '^(python_pytest|search_mpi)$' --output-on-failure >"$scratch/ctest.log" 2>&1); then
  echo "FAIL: the tests of the missing components passed" >&2
  cat "$scratch/ctest.log" >&2
  exit 1
fi
for remedy in "install python3-pybind11 and python3-dev" "install libopenmpi-dev and openmpi-bin"; do
  if ! grep -q "$remedy" "$scratch/ctest.log"; then
    echo "FAIL: the failing tests do not say '$remedy'" >&2
    cat "$scratch/ctest.log" >&2
    exit 1
  fi
done
echo "python_pytest and search_mpi fail in a build without them, each saying what to install"
