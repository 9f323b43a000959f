#!/usr/bin/env bash
# The lab brought up and taken down RUNS times (root): each `lab up`'s wall
# time until BGP has converged (every planned session Established, every ToR
# routing to its hosts, the routes steady, the cores' rules loaded), and the
# `lab down` after it. Prints each run, then min, median and max.
#
#   bench/lab_up.sh [SPEC] [RUNS]      (default: examples/lab-pod.yaml, 5)
#
# Not a test: it asserts nothing and is run by hand; figures are in README.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
hpnctl="${HPNCTL:-$root/build/cli/hpnctl}"
spec="${1:-$root/examples/lab-pod.yaml}"
runs="${2:-5}"
[ "$(id -u)" -eq 0 ] || { echo "lab_up.sh: needs root" >&2; exit 3; }
work="$(mktemp -d)"
trap '"$hpnctl" lab down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
"$hpnctl" plan "$spec" -q -o "$work/plan"
ups=()
for ((i = 1; i <= runs; i++)); do
  start=$(date +%s.%N)
  "$hpnctl" lab up --blueprint "$work/plan" >/dev/null
  up=$(echo "$(date +%s.%N) - $start" | bc)
  start=$(date +%s.%N)
  "$hpnctl" lab down >/dev/null
  down=$(echo "$(date +%s.%N) - $start" | bc)
  printf 'run %d: lab up %.2f s, lab down %.2f s\n' "$i" "$up" "$down"
  ups+=("$up")
done
printf '%s\n' "${ups[@]}" | sort -n | awk '{a[NR]=$1} END {printf "lab up: min %.2f s, median %.2f s, max %.2f s over %d runs\n", a[1], a[int((NR+1)/2)], a[NR], NR}'
