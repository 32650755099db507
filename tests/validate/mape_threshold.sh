#!/usr/bin/env bash
# Runs `distsim validate` on the built-in calibration set (data/published_calibration.csv) and
# fails when the overall MAPE exceeds the threshold or fewer rows than expected were simulated
# (a row that stops simulating must not make the mean look better).
# Usage: mape_threshold.sh DISTSIM MAX_MAPE_PCT MIN_ROWS
set -euo pipefail
distsim=$1
max_mape=$2
min_rows=$3
last=$("$distsim" validate | tail -n 1)
echo "$last"
if [[ ! $last =~ ^MAPE\ ([0-9.]+)%\ over\ ([0-9]+)\ rows\ \(max\ ([0-9.]+)%\)$ ]]; then
  echo "unexpected last line; wanted 'MAPE <x>% over <n> rows (max <y>%)'" >&2
  exit 1
fi
mape=${BASH_REMATCH[1]}
rows=${BASH_REMATCH[2]}
if ((rows < min_rows)); then
  echo "only $rows rows simulated, expected at least $min_rows" >&2
  exit 1
fi
if ! awk -v mape="$mape" -v max="$max_mape" 'BEGIN { exit !(mape <= max) }'; then
  echo "MAPE $mape% exceeds the threshold $max_mape%" >&2
  exit 1
fi
echo "MAPE $mape% within the threshold $max_mape% over $rows rows"
