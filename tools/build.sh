#!/usr/bin/env bash
# Installs what is missing (Debian 12 packages only), configures and builds.
#   tools/build.sh [BUILD_DIR]      (default: build)
# HPN_CMAKE_ARGS adds cmake arguments, split on spaces (.ci/run:
# HPN_CMAKE_ARGS=-DHPN_SANITIZE=ON tools/build.sh build-asan).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}

packages=(
  cmake ninja-build g++ pkg-config
  libyaml-cpp-dev libcli11-dev libspdlog-dev libfmt-dev nlohmann-json3-dev
  libsqlite3-dev sqlite3 catch2 libpcap-dev libnl-3-dev libnl-route-3-dev libnl-genl-3-dev
  libssl-dev libcap-dev
  python3 python3-jsonschema python3-yaml groff-base man-db zsh bsdutils
  tshark iproute2 nftables netplan.io systemd lldpd
  libxlsxwriter-dev python3-openpyxl graphviz
  clang libclang-rt-14-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "tools/build.sh: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# shellcheck disable=SC2086 # HPN_CMAKE_ARGS is a list of arguments
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo ${HPN_CMAKE_ARGS:-} >/dev/null
cmake --build "$build_dir"
