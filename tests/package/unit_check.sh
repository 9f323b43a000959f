#!/bin/sh
# hpnctl-switch-agent.service as systemd reads it: `systemd-analyze verify`
# finds nothing to say of it (with ExecStart= pointing at the built binary,
# since /usr/bin/hpnctl is not installed here), and it keeps the least
# privilege hpnctl-switch(1) promises.
#   unit_check.sh UNIT HPNCTL_BINARY
set -eu
unit=$1
binary=$2
command -v systemd-analyze >/dev/null || { echo "skip: systemd-analyze is missing (package systemd)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

sed "s|/usr/bin/hpnctl|$binary|" "$unit" >"$work/hpnctl-switch-agent.service"
out=$(systemd-analyze verify --man=no "$work/hpnctl-switch-agent.service" 2>&1) || fail "systemd-analyze verify: $out"
# frr.service is named only for ordering; any other remark is a finding.
remarks=$(printf '%s\n' "$out" | grep -v '^$' | grep -v 'frr.service' || true)
[ -z "$remarks" ] || fail "systemd-analyze verify says: $remarks"

# One value per key, exactly.
has() { grep -qx "$1" "$unit" || fail "the unit lacks '$1'"; }
has "ExecStart=/usr/bin/hpnctl switch agent --config /etc/hpnctl/switch-agent.json"
has "Type=notify"
has "Restart=on-failure"
has "Before=frr.service"
has "CapabilityBoundingSet=CAP_NET_ADMIN"
has "AmbientCapabilities=CAP_NET_ADMIN"
has "NoNewPrivileges=yes"
has "ProtectSystem=strict"
has "ProtectHome=yes"
has "PrivateTmp=yes"
has "RestrictAddressFamilies=AF_NETLINK AF_UNIX"
has "DynamicUser=yes"
[ "$(grep -c '^CapabilityBoundingSet=' "$unit")" = 1 ] || fail "more than one CapabilityBoundingSet= line"
echo "ok: $(basename "$unit") verifies and keeps CAP_NET_ADMIN only"
