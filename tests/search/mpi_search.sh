#!/usr/bin/env bash
# A search shared out over MPI processes writes exactly what one process writes: the text table,
# the CSV of every candidate and the JSON, byte for byte, with 2 processes and with 3 (more than
# the candidates of some batches divide evenly). --top 5 keeps the bound pruning on, so the
# bounds and each batch's results are exchanged between the processes. The same for a sweep of 8
# points, each searched by every process.
# usage: mpi_search.sh DISTSIM MPIEXEC FIXTURES
set -euo pipefail
distsim=$1
mpiexec=$2
fixtures=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# Tests run as root in CI containers; OpenMPI refuses root unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
args=(search --model "$fixtures/models/tiny_gpt.yaml" --gpu a40 --nodes 1,2 --gpus-per-node 4
      --global-batch-size 8 --top 5 --threads 1)
(cd "$scratch" && "$distsim" "${args[@]}" --csv one.csv > one.txt && "$distsim" "${args[@]}" --json > one.json)
for processes in 2 3; do
  (cd "$scratch" && "$mpiexec" -n "$processes" --oversubscribe "$distsim" "${args[@]}" --csv "mpi$processes.csv" \
    > "mpi$processes.txt" && "$mpiexec" -n "$processes" --oversubscribe "$distsim" "${args[@]}" --json > "mpi$processes.json")
  for kind in txt csv json; do
    if ! cmp -s "$scratch/one.$kind" "$scratch/mpi$processes.$kind"; then
      echo "mpi_search: $processes processes wrote a different $kind:" >&2
      diff "$scratch/one.$kind" "$scratch/mpi$processes.$kind" | head -20 >&2
      exit 1
    fi
  done
done
grep -q "pruned by bound" "$scratch/one.txt"
# A sweep shares each point's candidates the same way and writes the same table, CSV and JSON.
sweep=(sweep "$fixtures/sweeps/tiny.yaml" --threads 1)
(cd "$scratch" && "$distsim" "${sweep[@]}" --csv sweep_one.csv > sweep_one.txt &&
  "$distsim" "${sweep[@]}" --json > sweep_one.json)
for processes in 2 3; do
  (cd "$scratch" && "$mpiexec" -n "$processes" --oversubscribe "$distsim" "${sweep[@]}" --csv "sweep_mpi$processes.csv" \
    > "sweep_mpi$processes.txt" && "$mpiexec" -n "$processes" --oversubscribe "$distsim" "${sweep[@]}" --json \
    > "sweep_mpi$processes.json")
  for kind in txt csv json; do
    if ! cmp -s "$scratch/sweep_one.$kind" "$scratch/sweep_mpi$processes.$kind"; then
      echo "mpi_search: a sweep on $processes processes wrote a different $kind:" >&2
      diff "$scratch/sweep_one.$kind" "$scratch/sweep_mpi$processes.$kind" | head -20 >&2
      exit 1
    fi
  done
done
echo "mpi_search: 1, 2 and 3 processes wrote the same table, CSV and JSON, for a search and for a sweep"
