#!/usr/bin/env bash
# Results that cannot reach standard output are an error, not exit 0: a full device (/dev/full)
# gives "cannot write standard output: No space left on device" and exit 2, a closed standard
# output is refused before anything runs (else the first file distsim opens would take its
# descriptor), and a writable one still exits 0.
# usage: standard_output.sh DISTSIM SCRATCH
set -uo pipefail
distsim=$1
scratch=$2
rm -rf "$scratch" && mkdir -p "$scratch"
failures=0
expect() {  # expect NAME STATUS WANTED_STATUS STDERR_FILE WANTED_TEXT
  if [ "$2" -ne "$3" ] || ! grep -qF "$5" "$4"; then
    echo "FAIL: $1: exit $2 (expected $3), stderr: $(cat "$4") (expected to contain '$5')"
    failures=$((failures + 1))
  fi
}

for command in "simulate --json" "list models" "events"; do
  # shellcheck disable=SC2086
  "$distsim" $command >/dev/full 2>"$scratch/full.err"
  expect "$command >/dev/full" $? 2 "$scratch/full.err" "distsim: error: cannot write standard output: No space left on device"
done

"$distsim" simulate --json >&- 2>"$scratch/closed.err"
expect "simulate >&-" $? 2 "$scratch/closed.err" \
  "distsim: error: standard output is closed; distsim writes its results there (redirect it to a file or to /dev/null)"

"$distsim" simulate --json >"$scratch/summary.json" 2>"$scratch/ok.err"
status=$?
if [ "$status" -ne 0 ] || [ -s "$scratch/ok.err" ] || ! grep -q '"iteration_time_s"' "$scratch/summary.json"; then
  echo "FAIL: simulate >file: exit $status, stderr: $(cat "$scratch/ok.err"), summary: $(head -c 200 "$scratch/summary.json")"
  failures=$((failures + 1))
fi

[ "$failures" -eq 0 ] && echo "standard output: all passed"
exit $((failures > 0))
