#!/bin/bash
# The lab as a fleet (hpnctl lab up --ssh, lab inventory), provisioned and
# configured through the real ansible-playbook over SSH into the lab's
# namespaces. One lab, wired with a fault in one rack (two hosts' nic1p1
# cables exchanged at their ToR), serves every phase: the inventory names
# every lab device at a management address; provision.yml leaves each host
# as its profile says, restores a host whose address was removed (and only
# that host changes), and fails only the host given another host's profile; switches.yml installs a changed frr.conf on
# that switch alone (every other switch changed=0) and FRR runs it, and
# runs switch apply on each, which puts a drifted port back on its switch
# alone;
# verify.yml --limit of the faulty rack and of a rack wired as planned
# reports exactly what verify --lab reports for the same wiring and scope,
# and sees every cable of the planned rack both ways; lab down stops every
# sshd and removes the machine's end of the management network.
# Each phase's seconds are printed (ctest -V shows them). One bring-up and
# one Ansible run a question: each run costs a minute or two here.
#   lab_fleet.sh HPNCTL SOURCE_DIR
set -u
hpnctl=$1
src=$2
[ "$(id -u)" -eq 0 ] || { echo "skip: needs root (network namespaces)"; exit 77; }
command -v ansible-playbook >/dev/null || { echo "skip: ansible-playbook is missing (Debian ansible-core)"; exit 77; }
[ -x /usr/sbin/sshd ] || { echo "skip: /usr/sbin/sshd is missing (Debian openssh-server)"; exit 77; }
[ -x /usr/lib/frr/frr-reload.py ] || { echo "skip: frr-reload.py is missing (Debian frr-pythontools)"; exit 77; }
# Under hpnctl-test-*: tests/clear_stale_lab.sh takes down a lab whose plan
# is there, left by a run that was killed.
work=$(mktemp -d "${TMPDIR:-/tmp}/hpnctl-test-fleet.XXXXXX")
lab_id=""
cleanup() { "$hpnctl" lab down >/dev/null 2>&1; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; [ -f "$work/run.log" ] && tail -40 "$work/run.log" >&2; exit 1; }
cd "$work" || exit 1
export ANSIBLE_LOCAL_TEMP="$work/tmp" ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 HOME="$work"
"$hpnctl" plan "$src/examples/lab-pod.yaml" -o plan >/dev/null || fail "plan"
# The fault, in rack H0-R01-01: its two hosts' nic1p1 cables exchanged at
# their ToR.
faulty_rack=H0-R01-01
python3 - <<'PY' || fail "wiring"
import csv
rows = list(csv.DictReader(open("plan/cabling.csv")))
a = next(r for r in rows if r["a_device"] == "host-p0-s01-h002" and r["a_port"] == "nic1p1")
b = next(r for r in rows if r["a_device"] == "host-p0-s01-h003" and r["a_port"] == "nic1p1")
a["z_port"], b["z_port"] = b["z_port"], a["z_port"]
with open("wiring.csv", "w", newline="") as out:
    w = csv.DictWriter(out, fieldnames=list(rows[0].keys()))
    w.writeheader()
    w.writerows(rows)
PY
"$hpnctl" lab up --blueprint plan --wiring wiring.csv --ssh >up.log 2>&1 || { cat up.log; fail "lab up --ssh"; }
lab_id=$(sed -n 's/^lab \([0-9a-f]*\) is up.*/\1/p' up.log)
[ -n "$lab_id" ] || fail "no lab id in: $(cat up.log)"
ip -br addr show "hpnm-$lab_id" | grep -q "198.18.0.1/16" || fail "the machine has no management address"
"$hpnctl" lab inventory -o inventory.yml || fail "lab inventory"
ansible-inventory -i inventory.yml --list >inventory.json || fail "ansible-inventory refused it"
python3 - <<'PY' || fail "inventory groups"
import json
inv = json.load(open("inventory.json"))
hosts = inv["role_host"]["hosts"]
switches = inv["role_tor"]["hosts"] + inv["role_agg"]["hosts"] + inv["role_core"]["hosts"]
assert len(hosts) == 16 and len(switches) == 20, (len(hosts), len(switches))
addresses = {inv["_meta"]["hostvars"][h]["ansible_host"] for h in hosts + switches}
assert len(addresses) == 36 and all(a.startswith("198.18.") for a in addresses), addresses
assert sorted(inv["segment_0_1"]["hosts"])[0] == "host-p0-s01-h000"
PY
# A device's shell takes itself for a nested one, so it does not source the
# machine's root's ~/.bashrc (hpnctl-lab(1)); bash counts itself, so 2.
ansible -i inventory.yml host-p0-s00-h000 -m raw -a 'echo "SHLVL=$SHLVL"' >shlvl.log 2>&1 || fail "ansible raw: $(cat shlvl.log)"
tr -d "\r" <shlvl.log | grep -qx "SHLVL=2" || fail "a device's shell is not a nested one: $(cat shlvl.log)"
"$hpnctl" profile --all --blueprint plan -o profiles >/dev/null || fail "profile --all"
play() {
  local started rc
  started=$(date +%s)
  ansible-playbook -i inventory.yml -f 8 "$@" >"$work/run.log" 2>&1
  rc=$?
  echo "ansible-playbook $(basename "$1") ${*:2}: $(( $(date +%s) - started )) s"
  return $rc
}
recap() { grep -E "^$1 +:" "$work/run.log" || fail "no recap for $1"; }
group() { python3 -c 'import json, sys; print("\n".join(json.load(open("inventory.json"))[sys.argv[1]]["hosts"]))' "$1"; }
hosts=$(group role_host)
# The runs are limited to one segment (8 hosts): each host a run reaches
# costs it seconds, and a segment has the hosts the checks need, and others to
# show nothing else changed. The inventory above names all 36 devices.
segment=segment_0_0
segment_hosts=$(group $segment | grep -xF "$hosts")
changed_hosts() { for h in $segment_hosts; do recap "$h" | grep -q " changed=0 " || echo "$h"; done; }

# Every host of the segment reached over SSH and provisioned; the copy is
# the only change (lab up applied the same profiles).
play "$src/deploy/ansible/provision.yml" --limit "$segment" || fail "the first provisioning run"
for h in $segment_hosts; do recap "$h" | grep -q "failed=0" || fail "first run: $h"; done
# A second run changes nothing: the restoring run below is one, where
# every host but the two it is about reports changed=0.

# A host that lost its bond address: a run puts it back, on that host
# alone. (Check mode, which changes nothing and reports what it would, is
# provision_check.sh's, with hpnctl stubbed: the role's logic is the same.)
victim=host-p0-s00-h003
netns=hpn-$lab_id-$victim
address=$(ip -n "$netns" -4 -br addr show nic1p1 | awk '{print $3}')
[ -n "$address" ] || fail "$victim has no IPv4 address on nic1p1"
ip -n "$netns" addr del "$address" dev nic1p1 || fail "cannot remove $address"
# The restoring run is also the one with another host's profile on
# host-p0-s00-h005, so the test has one provisioning run fewer: its identity
# check refuses it and it alone is failed, every other host is ok, and the
# victim is the one host changed.
wrong=host-p0-s00-h005
cp profiles/host-p0-s00-h006/profile.json "profiles/$wrong/profile.json"
play "$src/deploy/ansible/provision.yml" --limit "$segment" && fail "a wrong profile was not reported"
recap "$wrong" | grep -q "failed=1" || fail "$wrong was not failed"
for h in $segment_hosts; do
  [ "$h" = "$wrong" ] && continue
  recap "$h" | grep -q "failed=0" || fail "$h failed beside the wrong profile"
done
[ "$(changed_hosts | grep -vx "$wrong")" = "$victim" ] || fail "restoring run: changed '$(changed_hosts)', not $victim"
ip -n "$netns" -4 -br addr show nic1p1 | grep -q "$address" || fail "the run did not restore $address"

# Switches: one run over all of them (the hpnctl_switch role's switch
# apply of each set, then hpnctl_frr), with one switch's frr.conf changed
# and one port of another switch put off its plan (its MTU): the sets lab
# up applied are installed unchanged and apply changes nothing on every
# other switch (changed=0); the drifted port is put back on its switch
# alone; the changed frr.conf is installed on its switch alone, FRR runs
# it, and its sessions stay up.
"$hpnctl" config --all --bring-up --blueprint plan -o configs >/dev/null || fail "config --all"
"$hpnctl" lab status --format json >status-before.json || fail "lab status"
switch=agg-p0-1-00
sed -i '0,/^ description /s/^ description .*/ description changed by switches.yml/' "configs/$switch/frr.conf"
drifted=tor-p0-s00-r1a
drifted_ns=hpn-$lab_id-$drifted
read -r port mtu <<EOF2
$(ip -n "$drifted_ns" -j link show | python3 -c '
import json, sys
# A port whose stanza in the interfaces file sets its MTU (lo has none),
# up, and at that MTU now.
mtu_of = {}
iface = None
for l in open(sys.argv[1] + "/interfaces").read().splitlines():
    w = l.split()
    if l.startswith("iface "):
        iface = w[1]
    elif l.startswith(" ") and w[:1] == ["mtu"]:
        mtu_of[iface] = int(w[1])
link = next(l for l in json.load(sys.stdin)
            if mtu_of.get(l["ifname"], 0) > 1500 and l["mtu"] == mtu_of[l["ifname"]] and "UP" in l["flags"])
print(link["ifname"], link["mtu"])' "configs/$drifted")
EOF2
[ -n "$port" ] || fail "no port of $drifted to drift"
ip -n "$drifted_ns" link set dev "$port" mtu 1500 || fail "cannot set $drifted:$port's MTU"
# -v: each task's result in the log, switch apply's JSON among them.
play "$src/deploy/ansible/switches.yml" -e hpnctl_switch_serial=20 -v || fail "switches.yml"
for s in $(group role_tor) $(group role_agg) $(group role_core); do
  want=" changed=0 "; [ "$s" = "$switch" ] && want=" changed=2 "; [ "$s" = "$drifted" ] && want=" changed=1 "
  recap "$s" | grep -q "$want" ||
    fail "switches.yml: $s (drifted port: $drifted:$port): $(recap "$s"); its switch apply said: $(grep -F "[$s] => " "$work/run.log" | grep -F '"switch", "apply"')"
done
ip -n "$drifted_ns" -j link show dev "$port" | grep -q "\"mtu\": *$mtu[,}]" ||
  fail "switches.yml did not put $drifted:$port's MTU back to $mtu"
ip netns exec "hpn-$lab_id-$switch" vtysh -N "hpn-$lab_id-$switch" -c "show running-config" 2>/dev/null |
  grep -q "description changed by switches.yml" || fail "FRR on $switch does not run the new configuration"
"$hpnctl" lab status --format json >status.json || fail "lab status"
python3 - "$switch" <<'PY' || fail "sessions of $switch after the reload"
import json, sys
def up(path):
    st = json.load(open(path))
    dev = next(d for d in st["devices"] if d["name"] == sys.argv[1])
    return sorted(s["port"] for s in dev.get("sessions", []) if s.get("state") == "Established")
before, after = up("status-before.json"), up("status.json")
# Its cabled ports' sessions (the spares it lights have no cable in the lab).
assert len(before) == 6 and after == before, (before, after)
PY

# verify.yml --limit the faulty rack and a rack of segment 0 wired as
# planned, run from where the blueprint is. Its findings are verify --lab's
# for the same wiring and the same devices (run after, on a lab of its
# own); both without loss trains (probe plan --lossy-detect 0, through the
# role's hpnctl_verify_plan_args): the wiring is the question, and a chance
# loss must not decide it; the trains are the loss tests' (verify_lab).
# Every cable of the planned rack is seen both ways.
planned_rack=$(python3 -c '
import json
inv = json.load(open("inventory.json"))
print(next(g[len("rack_"):].replace("_", "-") for g in sorted(inv)
           if g.startswith("rack_") and "host-p0-s00-h000" in inv[g].get("hosts", [])))')
[ -n "$planned_rack" ] && [ "$planned_rack" != "$faulty_rack" ] || fail "no planned rack: '$planned_rack'"
scope_devices=$( (group "rack_${faulty_rack//-/_}"; group "rack_${planned_rack//-/_}") | paste -sd, -)
started=$(date +%s)
ansible-playbook -i inventory.yml -f 8 "$src/deploy/ansible/verify.yml" \
  --limit "rack_${faulty_rack//-/_}:rack_${planned_rack//-/_}" \
  -e hpnctl_verify_controller_binary="$hpnctl" -e hpnctl_verify_blueprint="$work/plan" \
  -e hpnctl_verify_base="$work/verify" -e '{"hpnctl_verify_plan_args": ["--lossy-detect", "0"]}' \
  >"$work/run.log" 2>&1 && fail "verify.yml passed the fault of $faulty_rack"
echo "verify.yml of $faulty_rack and $planned_rack: $(( $(date +%s) - started )) s"
grep -q "findings (above" "$work/run.log" || fail "verify.yml failed before its verdict"
# No probe listener of this lab's is left (another lab may be up beside
# this one, with listeners of its own).
for ns in $(ip netns list | awk -v p="hpn-$lab_id-" 'index($1, p) == 1 {print $1}'); do
  for pid in $(ip netns pids "$ns"); do
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "probe listen --run" && fail "a probe listener still runs in $ns after verify.yml"
  done
done

"$hpnctl" lab down >/dev/null || fail "lab down"
pgrep -f "sshd -f /run/hpnctl/frr-$lab_id" >/dev/null && fail "sshd still runs after lab down"
ip link show "hpnm-$lab_id" >/dev/null 2>&1 && fail "hpnm-$lab_id is still on the machine"

"$hpnctl" verify --lab --blueprint plan --wiring wiring.csv --scope "devices=$scope_devices" --lossy-detect 0 \
  --format json -q >lab-report.json 2>lab-verify.log
[ $? -eq 1 ] || { cat lab-verify.log; fail "verify --lab of the faulty wiring did not report findings"; }
python3 - verify/*/report.json lab-report.json plan/cabling.csv "$planned_rack" <<'PY' || fail "verify.yml and verify --lab disagree"
import csv, json, sys
fleet_path, lab_path, cabling, planned_rack = sys.argv[1:]
def findings(path):
    r = json.load(open(path))
    return sorted((f["kind"], tuple(sorted(f["cables"])), f["message"]) for f in r["findings"])
fleet, lab = findings(fleet_path), findings(lab_path)
assert fleet == lab and fleet, (fleet, lab)
assert [k for k, _, _ in fleet] == ["swapped"], fleet
# Every host cable of the planned rack was seen both ways: the report's
# cables in scope but not verified are the swapped two alone.
r = json.load(open(fleet_path))
s = r["summary"]
assert s["cables_in_scope"] - s["cables_verified"] == 2, s
racked = [c for c in csv.DictReader(open(cabling)) if planned_rack in (c["a_rack"], c["z_rack"])]
assert racked and s["cables_in_scope"] > len(racked), (len(racked), s)
PY
echo "ok: lab $lab_id provisioned, configured and verified through Ansible over SSH"
