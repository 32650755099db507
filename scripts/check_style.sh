#!/bin/bash
# Checks the style of src/ and exits non-zero on any finding:
#   clang-format 14 with .clang-format (--dry-run -Werror: prints what it would change), then
#   clang-tidy 14 with .clang-tidy over the compile commands of a configured build directory.
# usage: scripts/check_style.sh [BUILD_DIR]      (default: build; JOBS=N sets tidy's parallelism)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" 2>/dev/null && pwd) || { echo "check_style: no build directory ${1:-build}" >&2; exit 2; }
if [ ! -f "$build/compile_commands.json" ]; then
  echo "check_style: $build/compile_commands.json is missing: configure with cmake first" >&2
  exit 2
fi
cd "$root"
mapfile -t sources < <(git ls-files 'src/*.cpp' 'src/*.hpp')
mapfile -t units < <(git ls-files 'src/*.cpp')

status=0
echo "clang-format: ${#sources[@]} files"
clang-format-14 --style=file --dry-run -Werror "${sources[@]}" || status=1

echo "clang-tidy: ${#units[@]} translation units (headers through them)"
# run-clang-tidy takes regular expressions; anchor each file's full path.
patterns=()
for unit in "${units[@]}"; do
  patterns+=("^$root/${unit//./\\.}\$")
done
run-clang-tidy-14 -quiet -p "$build" -j "${JOBS:-$(nproc)}" "${patterns[@]}" || status=1

if [ "$status" -ne 0 ]; then
  echo "check_style: findings above" >&2
fi
exit "$status"
