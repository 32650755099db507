#!/usr/bin/env bash
# Renders a simulation report of the default job and a hand-filled search report in headless
# Chromium and checks that each page loads without console errors, that its script ran (it
# sets data-report-ready on <html>) and that the expected elements are in the DOM Chromium built.
# Fails, saying what to install, when no Chromium is installed.
set -euo pipefail
distsim=$1
sample_search_report=$2

chromium=$(command -v chromium || command -v chromium-browser || true)
if [[ -z "$chromium" ]]; then
  echo "FAIL: chromium not found: install the Debian package 'chromium' (scripts/install_deps.sh --with-test-tools)" >&2
  exit 1
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# Prints the DOM of $1 after its scripts ran; Chromium's log (console messages included) goes
# to $1.log.
render() {
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-extensions --no-first-run --user-data-dir="$scratch/profile" \
    --enable-logging=stderr --v=0 --dump-dom "file://$1" 2>"$1.log"
}

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# Checks one page: no console message from the page, the marker set, every expected fragment.
check_page() {
  local page=$1
  shift
  local dom
  dom=$(render "$page")
  if grep -F ":CONSOLE" "$page.log" | grep -F "file://$page"; then
    fail "$page: the page wrote to the console (an error or an uncaught exception)"
  fi
  if grep -q "Uncaught" "$page.log"; then
    fail "$page: uncaught exception"
  fi
  for expected in 'data-report-ready="yes"' "$@"; do
    if ! grep -qF -- "$expected" <<<"$dom"; then
      fail "$page: rendered DOM lacks $expected"
    fi
  done
  echo "$page: $(wc -c <"$page") bytes, rendered, $# expected elements checked"
}

"$distsim" simulate --report "$scratch/simulation.html" >/dev/null
check_page "$scratch/simulation.html" '<svg id="timeline"' 'id="summary"' 'id="devices"' 'id="memory"' \
  '<rect class="fwd"' '<rect class="bwd"' '<rect class="tp"' '<rect class="pp"' '<rect class="dp"' \
  '>time (ms)</text>' 'Timeline of data-parallel replica 0'

"$sample_search_report" "$scratch/search.html"
check_page "$scratch/search.html" '<svg id="throughput-chart"' '<svg id="pareto-chart"' 'id="ranking"' \
  '<rect class="bar-oom"' '<rect class="bar-invalid"' '<circle class="dot front"' '<polyline class="front-line"'

if ((failures > 0)); then
  exit 1
fi
echo "both reports render in $("$chromium" --version 2>/dev/null | head -1)"
