#!/usr/bin/env bash
# Installs the Debian 12 packages distsim builds with, when any is missing (needs root or sudo).
# --with-test-tools adds what only the tests run: python3-torch (the profiler and runner tests),
# chromium (the HTML report rendering test), OpenMPI (the search shared out over processes), the
# Python module with its tests and example: python3-pybind11 and python3-dev, python3-pytest,
# python3-pandas and python3-matplotlib; and the fuzz tools below, since the sanitizer tests run on
# the clang build that also holds the fuzzing harnesses.
# --with-style-tools adds clang-format-14 and clang-tidy-14 (scripts/check_style.sh).
# --with-fuzz-tools adds clang-14 and libclang-rt-14-dev (libFuzzer and the sanitizer runtimes for
# clang; scripts/fuzz.sh).
set -euo pipefail
packages=(cmake ninja-build g++ pkg-config libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev
          libyaml-cpp-dev libtomlplusplus-dev libcli11-dev libfmt-dev libsqlite3-dev zlib1g-dev libprotobuf-dev
          protobuf-compiler python3)
for flag in "$@"; do
  case "$flag" in
    --with-test-tools) packages+=(python3-torch chromium libopenmpi-dev openmpi-bin python3-pybind11 python3-dev
                                  python3-pytest python3-pandas python3-matplotlib clang-14 libclang-rt-14-dev) ;;
    --with-style-tools) packages+=(clang-format-14 clang-tidy-14) ;;
    --with-fuzz-tools) packages+=(clang-14 libclang-rt-14-dev) ;;
    *) echo "install_deps.sh: unknown flag '$flag' (expected --with-test-tools, --with-style-tools or --with-fuzz-tools)" >&2; exit 2 ;;
  esac
done
missing=()
for package in "${packages[@]}"; do
  # `dpkg -s` succeeds for a removed package whose configuration files remain; only this status
  # means installed.
  [ "$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null)" = "install ok installed" ] || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "installing: ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
