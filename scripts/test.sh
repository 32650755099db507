#!/usr/bin/env bash
# Builds distsim and runs the whole test suite: every test on a release build (gcc, with the
# Python module and MPI), then every test not labelled slow on a clang build under
# AddressSanitizer and UndefinedBehaviorSanitizer, which also builds the fuzzing harnesses
# (CMakePresets.json: test and sanitize). Installs what the tests need first, and configures
# with every component on, so that a build configured earlier without them (scripts/run_default.sh
# on a fresh machine) gains them. Prints each step's wall time at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/step_times.sh
jobs=$(nproc)

timed install scripts/install_deps.sh --with-test-tools
timed configure cmake --preset test >/dev/null
timed build cmake --build build -j "$jobs"
timed tests bash -c "cd build && ctest --output-on-failure -j $jobs"

timed "sanitizer configure" cmake --preset sanitize >/dev/null
timed "sanitizer build" cmake --build build-sanitize -j "$jobs"
timed "sanitizer tests" bash -c "cd build-sanitize && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j $jobs -LE slow"
