#!/bin/bash
# Runs each Google Benchmark of a benchmark binary in a process of its own and prints its median,
# so that no benchmark inherits the allocator's state from the ones before it (a process that has
# just run a 525,000-task simulation serves the next one's arrays from a larger, scattered heap).
# usage: scripts/bench_each.sh [BINARY] [REPETITIONS]   (default: build/bench/simulate_bench, 3)
set -euo pipefail
binary=${1:-build/bench/simulate_bench}
repetitions=${2:-3}
for name in $("$binary" --benchmark_list_tests); do
  "$binary" --benchmark_filter="^${name}\$" --benchmark_repetitions="$repetitions" \
    --benchmark_report_aggregates_only=true 2>/dev/null | grep -E "^BM_" | grep -v -E "_(mean|stddev|cv) "
done
