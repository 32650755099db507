#!/bin/bash
# Checks the style of src/ and exits non-zero on any finding:
#   clang-format 14 with .clang-format (--dry-run -Werror: prints what it would change), then
#   clang-tidy 14 with .clang-tidy over the compile commands of build-tidy/ (CMakePresets.json:
#   tidy), which cmake configures but never builds: each module's sources are one unity source
#   there, so that the headers they share (the standard library, CLI11, nlohmann/json, fmt,
#   pybind11), which clang-tidy parses and matches in full for every translation unit, are read
#   once a module instead of once a file.
# usage: scripts/check_style.sh          (JOBS=N sets tidy's parallelism)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
mapfile -t sources < <(git ls-files 'src/*.cpp' 'src/*.hpp')
mapfile -t units < <(git ls-files 'src/*.cpp')

status=0
echo "clang-format: ${#sources[@]} files"
clang-format-14 --style=file --dry-run -Werror "${sources[@]}" || status=1

if ! cmake --preset tidy >/dev/null; then
  echo "check_style: cmake --preset tidy failed" >&2
  exit 2
fi
build=$root/build-tidy
# The translation units: a unity source per module, and the few sources CMake keeps out of them
# (those with options of their own, such as the generated calibration set). protoc's generated
# sources (*.pb.cc) are not written here, so they are not checked.
mapfile -t tidy_units < <(sed -n 's/^ *"file": "\(.*\)",\?$/\1/p' "$build/compile_commands.json" | grep -v '\.pb\.cc$')
# Every source of src/ must reach clang-tidy.
mapfile -t reached < <(for unit in "${tidy_units[@]}"; do
                         case "$unit" in
                           */Unity/*) sed -n 's/^#include "\(.*\)"$/\1/p' "$unit" ;;
                           *) echo "$unit" ;;
                         esac
                       done | sed "s|^$root/||" | LC_ALL=C sort -u)
missed=$(LC_ALL=C comm -23 <(printf '%s\n' "${units[@]}" | LC_ALL=C sort -u) <(printf '%s\n' "${reached[@]}"))
if [ -n "$missed" ]; then
  echo "check_style: these sources are in no translation unit of build-tidy, so clang-tidy would not see them:" >&2
  echo "$missed" >&2
  exit 2
fi
echo "clang-tidy: ${#units[@]} sources in ${#tidy_units[@]} translation units (headers through them)"
# A unity source includes each .cpp on purpose, so bugprone-suspicious-include is off for them; the
# grep below keeps its rule for the sources themselves.
if git grep -nE '^#include +["<][^">]+\.(c|cc|cpp|cxx)[">]' -- 'src/*.cpp' 'src/*.hpp'; then
  echo "check_style: a source of src/ includes an implementation file (bugprone-suspicious-include)" >&2
  status=1
fi
# run-clang-tidy takes regular expressions; anchor each file's full path.
patterns=()
for unit in "${tidy_units[@]}"; do
  patterns+=("^${unit//./\\.}\$")
done
run-clang-tidy-14 -quiet -p "$build" -j "${JOBS:-$(nproc)}" -checks=-bugprone-suspicious-include \
  -header-filter="^${root//./\\.}/src/.*\\.(hpp|cpp)\$" "${patterns[@]}" || status=1

if [ "$status" -ne 0 ]; then
  echo "check_style: findings above" >&2
fi
exit "$status"
