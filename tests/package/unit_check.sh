#!/bin/sh
# The package's units as systemd reads them: `systemd-analyze verify` finds
# nothing to say of either (with ExecStart= pointing at the built binary,
# since /usr/bin/hpnctl is not installed here), each keeps the least
# privilege hpnctl-switch(1) promises, and the order a switch boots in
# holds: the set applied, then the agent, then FRR.
#   unit_check.sh UNIT_DIR HPNCTL_BINARY
set -eu
dir=$1
binary=$2
command -v systemd-analyze >/dev/null || { echo "skip: systemd-analyze is missing (package systemd)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

for unit in "$dir"/hpnctl-switch-apply.service "$dir"/hpnctl-switch-agent.service; do
  name=$(basename "$unit")
  sed "s|/usr/bin/hpnctl|$binary|" "$unit" >"$work/$name"
done
# Both at once, so each one's reference to the other is resolved.
out=$(cd "$work" && systemd-analyze verify --man=no hpnctl-switch-apply.service hpnctl-switch-agent.service 2>&1) ||
  fail "systemd-analyze verify: $out"
# frr.service is named only for ordering; any other remark is a finding.
remarks=$(printf '%s\n' "$out" | grep -v '^$' | grep -v 'frr.service' || true)
[ -z "$remarks" ] || fail "systemd-analyze verify says: $remarks"

# One value per key, exactly.
has() { grep -qx "$2" "$dir/$1" || fail "$1 lacks '$2'"; }
agent=hpnctl-switch-agent.service
has $agent "ExecStart=/usr/bin/hpnctl switch agent --config /etc/hpnctl/switch/switch-agent.json"
has $agent "ConditionPathExists=/etc/hpnctl/switch/switch-agent.json"
has $agent "Type=notify"
has $agent "Restart=on-failure"
has $agent "Before=frr.service"
has $agent "After=network-pre.target hpnctl-switch-apply.service"
has $agent "CapabilityBoundingSet=CAP_NET_ADMIN"
has $agent "AmbientCapabilities=CAP_NET_ADMIN"
has $agent "DynamicUser=yes"
has $agent "RestrictAddressFamilies=AF_NETLINK AF_UNIX"
apply=hpnctl-switch-apply.service
has $apply "ExecStart=/usr/bin/hpnctl switch apply /etc/hpnctl/switch --wait-ports 60"
has $apply "ConditionPathIsDirectory=/etc/hpnctl/switch"
has $apply "Type=oneshot"
has $apply "RemainAfterExit=yes"
has $apply "Before=network.target frr.service hpnctl-switch-agent.service"
has $apply "CapabilityBoundingSet=CAP_NET_ADMIN"
has $apply "RestrictAddressFamilies=AF_NETLINK AF_UNIX"
# switch apply writes /proc/sys/net: the unit must leave it writable.
grep -q '^ProtectKernelTunables=yes' "$dir/$apply" && fail "$apply makes /proc/sys read-only"
for unit in $agent $apply; do
  has $unit "NoNewPrivileges=yes"
  has $unit "ProtectSystem=strict"
  has $unit "ProtectHome=yes"
  has $unit "PrivateTmp=yes"
  [ "$(grep -c '^CapabilityBoundingSet=' "$dir/$unit")" = 1 ] || fail "$unit: more than one CapabilityBoundingSet= line"
done
# The ExecStart lines run: the binary takes these arguments (--help of
# the same command line parses them; nothing is applied).
"$binary" switch apply --help | grep -q -- "--wait-ports" || fail "switch apply has no --wait-ports"
echo "ok: $apply and $agent verify, in boot order, with CAP_NET_ADMIN only"
