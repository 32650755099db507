#!/usr/bin/env bash
# Two `distsim db import` processes started together into a database file that does not exist
# yet: both must succeed (an import waits for the one before it), and every event that either
# reported imported must be in the file afterwards. Each profile holds COUNT distinct keys for
# its own hardware, so the file must end with 2 hardware and 2 x COUNT events.
# Usage: concurrent_imports.sh DISTSIM SCRATCH_DIR
set -u
distsim=$1
scratch=$2
count=20000
rounds=4
rm -rf "$scratch" && mkdir -p "$scratch" || exit 1

source "$(dirname "$0")/write_profile.sh"
write_profile a40 "$count" "$scratch/a40.json"
write_profile h100 "$count" "$scratch/h100.json"

failed=0
for ((round = 1; round <= rounds; round++)); do
  db="$scratch/round$round.sqlite"
  "$distsim" db import "$scratch/a40.json" --profile-db "$db" >"$scratch/a40.out" 2>&1 &
  first=$!
  "$distsim" db import "$scratch/h100.json" --profile-db "$db" >"$scratch/h100.out" 2>&1 &
  second=$!
  wait "$first"; first_status=$?
  wait "$second"; second_status=$?
  if [[ $first_status -ne 0 || $second_status -ne 0 ]]; then
    echo "round $round: an import failed (exit $first_status and $second_status):"
    cat "$scratch/a40.out" "$scratch/h100.out"
    failed=1
    continue
  fi
  stats=$("$distsim" db stats --profile-db "$db" 2>&1)
  expected="profile database '$db': 2 hardware, $((2 * count)) events"
  if [[ $(head -n 1 <<<"$stats") != "$expected" ]]; then
    echo "round $round: both imports reported success, but db stats says:"
    echo "$stats"
    echo "expected: $expected"
    failed=1
  fi
done
[[ $failed -eq 0 ]] && echo "$rounds rounds of two concurrent imports: every reported event is stored"
exit "$failed"
