#!/usr/bin/env bash
# Provisioning the lab's hosts through deploy/ansible/provision.yml over SSH
# (root): `lab up --ssh`, its inventory, every host's profile; then each
# host loses its bond address on one port, so that every host has a change
# to apply, and the playbook runs with FORKS forks (a run that changes every
# host), then once more (nothing to change). Prints the wall times, the
# per-host cost (wall x forks / hosts: the time one fork spends on a host)
# and from it the time to provision a 2,040-host pod at FORKS forks and
# serial 34 (provision.yml's default batch).
#
#   bench/ansible_provision.sh [FORKS]      (default: 8)
#
# Not a test: it asserts nothing and is run by hand; figures are in README.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
hpnctl="${HPNCTL:-$root/build/cli/hpnctl}"
forks="${1:-8}"
[ "$(id -u)" -eq 0 ] || { echo "ansible_provision.sh: needs root" >&2; exit 3; }
work="$(mktemp -d)"
trap '"$hpnctl" lab down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
cd "$work"
export ANSIBLE_LOCAL_TEMP="$work/tmp" ANSIBLE_NOCOLOR=1 HOME="$work"
"$hpnctl" plan "$root/examples/lab-pod.yaml" -q -o plan
"$hpnctl" lab up --blueprint plan --ssh >/dev/null
"$hpnctl" lab inventory -o lab.yml
"$hpnctl" profile --all --blueprint plan -o profiles >/dev/null
hosts=$(ansible-inventory -i lab.yml --list | python3 -c 'import json,sys; print(" ".join(json.load(sys.stdin)["role_host"]["hosts"]))')
id=$("$hpnctl" lab status --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["lab"])')
n=0
for h in $hosts; do
  ns="hpn-$id-$h"
  a=$(ip -n "$ns" -4 -br addr show nic1p1 | awk '{print $3}')
  ip -n "$ns" addr del "$a" dev nic1p1
  n=$((n + 1))
done
run() {
  local start
  start=$(date +%s.%N)
  ansible-playbook -i lab.yml -f "$forks" "$root/deploy/ansible/provision.yml" >"$work/run.log" 2>&1
  echo "$(date +%s.%N) - $start" | bc
}
changing=$(run)
grep -cE "changed=[1-9]" "$work/run.log" | xargs printf 'hosts changed: %s of '"$n"'\n'
steady=$(run)
awk -v c="$changing" -v s="$steady" -v n="$n" -v f="$forks" 'BEGIN {
  per = c * (f < n ? f : n) / n
  printf "forks %d, %d hosts: a run changing every host %.1f s, a run with nothing to change %.1f s\n", f, n, c, s
  printf "per host: %.2f s of one fork (changing), %.2f s (nothing to change)\n", per, s * (f < n ? f : n) / n
  batches = int((2040 + 33) / 34); per_batch = int((34 + f - 1) / f) * per
  printf "a 2,040-host pod at forks %d, serial 34: %d batches of %.1f s, about %.0f min\n", f, batches, per_batch, batches * per_batch / 60
}'
