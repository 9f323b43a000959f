#!/usr/bin/env bash
# Installs the Debian 12 packages hpnctl builds and tests with, and any
# named on the command line, when missing (apt-get; sudo unless root).
#   tools/deps.sh [PACKAGE...]
# tools/build.sh runs it bare. clang builds the INT transit's eBPF program
# (switch/int_transit.bpf.c) for every build; tools/fuzz.sh and CI's
# sanitized build add clang's runtime libraries.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config
  libyaml-cpp-dev libcli11-dev libspdlog-dev libfmt-dev nlohmann-json3-dev
  libsqlite3-dev sqlite3 catch2 libpcap-dev libnl-3-dev libnl-route-3-dev libnl-genl-3-dev
  libssl-dev libcap-dev
  python3 python3-jsonschema python3-yaml groff-base man-db zsh bsdutils
  tshark iproute2 nftables netplan.io systemd udev lldpd frr
  libxlsxwriter-dev python3-openpyxl graphviz
  dpkg-dev file ansible-core ansible-lint openssh-server frr-pythontools
  ifupdown2 clang libbpf-dev bpftool
)
packages+=("$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "tools/deps.sh: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

