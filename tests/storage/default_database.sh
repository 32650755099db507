#!/usr/bin/env bash
# `simulate` without --profile-db uses the default database only when it exists and can be read:
# a HOME that cannot be examined, or one this user may not enter, must not stop a simulation. A
# readable default database is still used. Expected: the summary of the same job with no HOME at
# all (no default database), and the tiny_gpt_a40 profile's 22 events priced from it when it can
# be read (see tests/cases/profile/simulate_from_profile.case for how those numbers arise).
# Usage: default_database.sh DISTSIM SCRATCH_DIR FIXTURES_DIR
set -u
distsim=$(realpath "$1")
scratch=$2
fixtures=$3
rm -rf "$scratch" && mkdir -p "$scratch" || exit 1
scratch=$(realpath "$scratch")
job=(simulate --model "$fixtures/models/tiny_gpt.yaml" --gpu a40 --nodes 1 --gpus-per-node 1 --strategy 1M1P1D
     --micro-batch-size 1 --global-batch-size 1)
run() {  # HOME_VALUE COMMAND...: runs distsim with only that HOME, stdout and stderr to files
  local home=$1
  shift
  env -u DISTSIM_PROFILE_DB -u XDG_DATA_HOME HOME="$home" "$@" >"$scratch/out" 2>"$scratch/err"
}
failed=0
check() {  # WHAT EXPECTED_STATUS EXPECTED_STDERR
  local status=$?
  if [[ $status -ne $2 ]] || ! cmp -s "$scratch/out" "$scratch/expected.out" || [[ $(cat "$scratch/err") != "$3" ]]; then
    echo "$1: exit $status (expected $2); stderr: $(cat "$scratch/err")"
    diff "$scratch/expected.out" "$scratch/out" | head -5
    failed=1
  fi
}

env -u DISTSIM_PROFILE_DB -u XDG_DATA_HOME -u HOME "$distsim" "${job[@]}" >"$scratch/expected.out" || exit 1

ln -s loop "$scratch/loop"  # HOME/.local/... cannot be resolved: too many levels of symbolic links
run "$scratch/loop" "$distsim" "${job[@]}"
check "a HOME that cannot be resolved" 0 "distsim: note: cannot read the default profile database \
'$scratch/loop/.local/share/distsim/profiles.sqlite' (Too many levels of symbolic links); every event is priced by \
the analytical model (--profile-db PATH picks another)"

# The same path given with --profile-db is an error, as a flag naming a database always is.
run "$scratch/loop" "$distsim" "${job[@]}" --profile-db "$scratch/loop/p.sqlite"
status=$?
expected="distsim: error: --profile-db: cannot open profile database '$scratch/loop/p.sqlite': Too many levels of \
symbolic links"
if [[ $status -ne 2 || $(cat "$scratch/err") != "$expected" ]]; then
  echo "--profile-db that cannot be resolved: exit $status; stderr: $(cat "$scratch/err")"
  failed=1
fi

# A HOME this user may not enter: as root, the check runs as the user nobody, whom mode 0700 keeps out.
mkdir -p "$scratch/closed/.local/share/distsim" && chmod 0700 "$scratch/closed" && chmod 0755 "$scratch"
as_user=()
if [[ $(id -u) -eq 0 ]]; then
  as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  chmod 0777 "$scratch"  # nobody writes the output files here
fi
run "$scratch/closed" "${as_user[@]}" "$distsim" "${job[@]}"
check "a HOME this user may not enter" 0 "distsim: note: cannot read the default profile database \
'$scratch/closed/.local/share/distsim/profiles.sqlite' (Permission denied); every event is priced by the analytical \
model (--profile-db PATH picks another)"

mkdir -p "$scratch/home"
run "$scratch/home" "$distsim" db import "$fixtures/profiles/tiny_gpt_a40.json" || { cat "$scratch/err"; exit 1; }
run "$scratch/home" "$distsim" "${job[@]}"
if ! grep -q "events: 22 unique, 106 instances (dedup 4.8x): 22 profiled, 0 extrapolated, 0 analytical" "$scratch/out"; then
  echo "a readable default database was not used:"
  cat "$scratch/out" "$scratch/err"
  failed=1
fi
[[ $failed -eq 0 ]] && echo "the default database is used when readable and skipped with a note otherwise"
exit "$failed"
