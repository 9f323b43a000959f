#!/usr/bin/env bash
# Captures the LLDP dumps under tests/data/lldp/ from real lldpd (Debian's
# lldpd 1.0.16) running in every namespace of the lab pod's lab, so the
# reader's tests read what lldpd writes, not what we think it writes.
#
#   tests/data/lldp/capture.sh HPNCTL OUT_DIR [WIRING_FILE|- [--port-id]]
#
# Root; takes the lab lock. OUT_DIR gets one DEVICE.json per device,
# `lldpcli -f json0 show neighbors details`. With --port-id the daemons send
# the interface name as port ID (`configure lldp portidsubtype ifname`) and
# every interface gets an alias, which lldpd sends as the port description,
# as a switch OS sends its configured port description ("to-PEER:PORT").
# The dumps hold the kernel release and random MACs of chassis IDs; nothing
# the reader uses.
set -euo pipefail
hpnctl=$(realpath "$1")
out=$(realpath -m "$2")
wiring=${3:-}
[ "$wiring" = - ] && wiring=""
[ -z "$wiring" ] || wiring=$(realpath "$wiring")
port_id=${4:-}
here=$(cd "$(dirname "$0")/../../.." && pwd)
work=$(mktemp -d /tmp/hpnC-lldp-capture.XXXXXX)
chmod 755 "$work"  # lldpd's lldpcli reads the -O file as the _lldpd user, and skips it silently if it cannot
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  (cd "$work" && "$hpnctl" lab down >/dev/null 2>&1) || true
  [ -n "${KEEP_WORK:-}" ] || rm -rf "$work"
}
trap cleanup EXIT

exec 9>/tmp/hpnctl-lab.lock
flock 9
cd "$work"
"$hpnctl" plan "$here/examples/lab-pod.yaml" -q -o plan
if [ -n "$wiring" ]; then
  "$hpnctl" lab up --blueprint plan --wiring "$wiring" >/dev/null
else
  "$hpnctl" lab up --blueprint plan >/dev/null
fi
"$hpnctl" lab status --format json >status.json
# device netns expected-neighbours iface,iface,...; aliases.txt: netns ifname alias
python3 - >daemons.txt <<'EOF'
import json
s = json.load(open("status.json"))
with open("aliases.txt", "w") as aliases:
    for d in s["devices"]:
        ports = [p for p in d["ports"] if p["state"] == "up"]
        print(d["name"], d["netns"], len(ports), ",".join(p["ifname"] for p in ports) or "none")
        for p in ports:
            print(d["netns"], p["ifname"], "to-%s:%s" % (p["peer"]["device"], p["peer"]["port"]), file=aliases)
EOF
if [ "$port_id" = --port-id ]; then
  while read -r netns ifname alias; do ip -n "$netns" link set dev "$ifname" alias "$alias"; done <aliases.txt
fi
mkdir -p /run/lldpd  # lldpd's privilege-separation chroot (the Debian unit makes it)
while read -r device netns expected ifaces; do
  printf 'configure system hostname %s\nconfigure lldp tx-interval 1\n' "$device" >"$device.conf"
  ip netns exec "$netns" lldpd -d -M4 -u "/run/hpnC-lldpd-$netns.sock" -I "$ifaces" -O "$work/$device.conf" \
    </dev/null >"$device.log" 2>&1 &
  pids+=($!)
done <daemons.txt
sleep 1
if [ "$port_id" = --port-id ]; then
  while read -r device netns expected ifaces; do
    lldpcli -u "/run/hpnC-lldpd-$netns.sock" configure lldp portidsubtype ifname >/dev/null
  done <daemons.txt
fi
# Until every up port hears its peer (tx-interval 1 s), at most 30 s.
for _ in $(seq 60); do
  pending=0
  while read -r device netns expected ifaces; do
    lldpcli -u "/run/hpnC-lldpd-$netns.sock" -f json0 show neighbors details >"$device.json"
    heard=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["lldp"][0].get("interface", [])))' "$device.json")
    [ "$heard" -ge "$expected" ] || pending=$((pending + 1))
  done <daemons.txt
  [ "$pending" -eq 0 ] && break
  sleep 0.5
done
[ "$pending" -eq 0 ] || { echo "capture.sh: $pending devices still hear too few neighbours" >&2; exit 3; }
[ -z "$port_id" ] || sleep 2  # the new port IDs reach every neighbour
mkdir -p "$out"
while read -r device netns expected ifaces; do
  lldpcli -u "/run/hpnC-lldpd-$netns.sock" -f json0 show neighbors details >"$out/$device.json"
done <daemons.txt
echo "capture.sh: $(wc -l <daemons.txt) dumps in $out"
