#!/usr/bin/env bash
# `kill -9` during `distsim db import`, then every reader: the killed import must be rolled back
# and the database read as it was before it (1 hardware, COUNT events from the first import) by
# the first reader, `db stats`, and by `db list` and `db export` after it. The kill is sent as
# soon as the import's journal holds something, that is inside its transaction.
# Usage: killed_import.sh DISTSIM SCRATCH_DIR
set -u
distsim=$1
scratch=$2
count=20000
rm -rf "$scratch" && mkdir -p "$scratch" || exit 1
source "$(dirname "$0")/write_profile.sh"
write_profile a40 "$count" "$scratch/a40.json"
write_profile h100 "$((5 * count))" "$scratch/h100.json"
db="$scratch/p.sqlite"
"$distsim" db import "$scratch/a40.json" --profile-db "$db" >/dev/null || exit 1

"$distsim" db import "$scratch/h100.json" --profile-db "$db" >"$scratch/import.out" 2>&1 &
import=$!
# SQLite writes the journal's magic number (d9 d5 05 f9 ...) once the journal is synced, just
# before it first writes changed pages into the database file (the import's events outgrow its
# page cache); from then on the file needs the journal to be whole again.
journal_synced() { [[ $(od -An -N1 -tx1 "$db-journal" 2>/dev/null) == " d9" ]]; }
while ! journal_synced && kill -0 "$import" 2>/dev/null; do sleep 0.01; done
kill -KILL "$import"
wait "$import" 2>/dev/null
status=$?
if [[ $status -ne 137 ]] || ! journal_synced; then
  echo "the import was not killed inside its transaction (exit $status); the test proves nothing"
  exit 1
fi

failed=0
expect() {  # WHAT EXPECTED_FIRST_LINE COMMAND...
  local what=$1 expected=$2
  shift 2
  local output
  output=$("$@" 2>&1)
  local status=$?
  if [[ $status -ne 0 || $(head -n 1 <<<"$output") != "$expected" ]]; then
    echo "$what after the kill: exit $status, output:"
    head -n 3 <<<"$output"
    failed=1
  fi
}
expect "db stats" "profile database '$db': 1 hardware, $count events" "$distsim" db stats --profile-db "$db"
expect "db list" "$((count + 1))" bash -c 'set -o pipefail; "$0" db list --profile-db "$1" | wc -l' "$distsim" "$db"
expect "db export" "{" "$distsim" db export --profile-db "$db"
if [[ -e "$db-journal" ]]; then
  echo "the journal of the killed import is still there"
  failed=1
fi
[[ $failed -eq 0 ]] && echo "a killed import is rolled back by the next reader"
exit "$failed"
