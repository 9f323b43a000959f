#!/usr/bin/env bash
# Installs what is missing (tools/deps.sh: Debian 12 packages only),
# configures and builds.
#   tools/build.sh [BUILD_DIR [TARGET...]]   (default: build, every target)
# HPN_CMAKE_ARGS adds cmake arguments, split on spaces (.ci/run:
# HPN_CMAKE_ARGS="-DHPN_SANITIZE=ON -DCMAKE_CXX_COMPILER=clang++" tools/build.sh build-asan).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
targets=("${@:2}")

tools/deps.sh

# shellcheck disable=SC2086 # HPN_CMAKE_ARGS is a list of arguments
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo ${HPN_CMAKE_ARGS:-} >/dev/null
if ((${#targets[@]})); then
  cmake --build "$build_dir" --target "${targets[@]}"
else
  cmake --build "$build_dir"
fi
