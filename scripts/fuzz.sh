#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz (clang, AddressSanitizer, UndefinedBehaviorSanitizer;
# they live in build-sanitize/, the sanitizer build of scripts/test.sh) and runs each for SECONDS
# (default 25), starting from the seeds the build gathers from the fixtures (tests/fuzz/seeds.txt).
# Exits 1 on the first harness that finds a crash, a leak, a sanitizer report or an exception other
# than InputError; the input is left in build-sanitize/findings/<harness>/ and, once the parser is
# fixed, goes to tests/fuzz/regressions/<harness>/ so that the normal ctest replays it
# (docs/fuzzing.md).
# usage: scripts/fuzz.sh [SECONDS [HARNESS...]]        (BUILD_DIR=... sets the build folder)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-25}
shift || true
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz.sh: SECONDS must be a positive whole number, got '$seconds'" >&2
  exit 2
fi
build=${BUILD_DIR:-build-sanitize}
scripts/install_deps.sh --with-fuzz-tools

started=$SECONDS
# The sanitizer build of scripts/test.sh (CMakePresets.json: sanitize) holds the harnesses; after
# test.sh there is nothing left to build.
cmake --preset sanitize -B "$build" >/dev/null
cmake --build "$build" -j "$(nproc)" --target fuzzers
echo "fuzz.sh: build took $((SECONDS - started)) s"

harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
  mapfile -t harnesses < <(sed -n 's/^\([a-z_]*\):.*/\1/p' tests/fuzz/seeds.txt)
fi
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
summary=()
for harness in "${harnesses[@]}"; do
  binary="$build/tests/fuzz/fuzz_$harness"
  seeds="$build/tests/fuzz/seeds/$harness"
  if [ ! -x "$binary" ]; then
    echo "fuzz.sh: no harness '$harness' (tests/fuzz/seeds.txt lists them)" >&2
    exit 2
  fi
  corpus="$build/corpus/$harness"
  findings="$build/findings/$harness"
  log="$build/logs/$harness.log"
  mkdir -p "$corpus" "$findings" "$(dirname "$log")"
  echo "fuzz.sh: $harness for $seconds s"
  # TMPDIR: the harnesses write each input to a file there.
  if ! TMPDIR="$build" "$binary" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=4096 -print_final_stats=1 \
      -artifact_prefix="$findings/" "$corpus" "$seeds" >"$log" 2>&1; then
    tail -n 60 "$log" >&2
    echo "fuzz.sh: $harness failed; the input is in $findings/ (full log: $log)" >&2
    exit 1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  summary+=("$(printf '%-16s %10s executions in %s s' "$harness" "${runs:-?}" "$seconds")")
done
printf '%s\n' "${summary[@]}"
echo "fuzz.sh: ${#harnesses[@]} harnesses, no finding; $((SECONDS - started)) s in all"
