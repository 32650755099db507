# Sourced by scripts/test.sh and .ci/run: `timed STEP COMMAND...` runs COMMAND and records its wall
# time under STEP in the file $DISTSIM_STEP_TIMES (made here when unset, so that .ci/run's steps
# and those of the test.sh it calls share one table); the script that made the table prints it
# when it exits, however it exits.
if [ -z "${DISTSIM_STEP_TIMES:-}" ]; then
  DISTSIM_STEP_TIMES=$(mktemp)
  export DISTSIM_STEP_TIMES
  trap 'print_step_times; rm -f "$DISTSIM_STEP_TIMES"' EXIT
fi

timed() {
  local step=$1
  shift
  local started=$SECONDS status=0
  "$@" || status=$?
  printf '%s\t%d\t%s\n' "$step" "$((SECONDS - started))" "$([ "$status" -eq 0 ] && echo ok || echo "failed ($status)")" \
    >>"$DISTSIM_STEP_TIMES"
  return "$status"
}

print_step_times() {
  [ -s "$DISTSIM_STEP_TIMES" ] || return 0
  echo "wall time per step:"
  awk -F'\t' '{ printf "  %-18s %6d s  %5.1f min  %s\n", $1, $2, $2 / 60, $3; total += $2 }
              END { printf "  %-18s %6d s  %5.1f min\n", "all", total, total / 60 }' "$DISTSIM_STEP_TIMES"
}
