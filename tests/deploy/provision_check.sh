#!/bin/sh
# deploy/ansible/provision.yml and its hpnctl_profile role, run by the real
# ansible-playbook over a local connection on two of the 16 hosts of the
# lab pod's inventory (hpnctl export ansible), with hpnctl on the "hosts" replaced by
# tests/deploy/hpnctl_stub.py (no root, no network; its answers held to
# host apply's own schema): check mode changes
# nothing and reports the changes to come (with --diff, shows them); a run applies every profile and
# announces; a second run reports changed=0 on every host; a host given
# another host's profile fails alone, and the others are ok.
#   provision_check.sh HPNCTL SOURCE_DIR
set -eu
hpnctl=$1
src=$2
command -v ansible-playbook >/dev/null || { echo "skip: ansible-playbook is missing (Debian ansible-core)"; exit 77; }
python3 -c "import jsonschema" 2>/dev/null || { echo "skip: the stand-in checks its answers with python3-jsonschema, which is missing"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$work"
"$hpnctl" plan "$src/examples/lab-pod.yaml" -o plan >/dev/null
"$hpnctl" profile --all --blueprint plan -o profiles >/dev/null
"$hpnctl" export ansible --blueprint plan -o inventory >/dev/null
mkdir stub
cp "$src/tests/deploy/hpnctl_stub.py" stub/hpnctl
cp "$src/schemas/host-apply.schema.json" stub/
chmod +x stub/hpnctl
cat >vars.yml <<VARS
ansible_connection: local
ansible_python_interpreter: /usr/bin/python3
ansible_become: false
hpnctl_binary: $work/stub/hpnctl
hpnctl_profile_path: "$work/hosts/{{ inventory_hostname }}/profile.json"
hpnctl_apply_args: ["--netns", "{{ inventory_hostname }}"]
hpnctl_announce_args: ["--netns", "{{ inventory_hostname }}"]
VARS
export ANSIBLE_LOCAL_TEMP="$work/tmp" ANSIBLE_REMOTE_TEMP="$work/tmp" ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0
# Two hosts of a segment, not the 16: the checks need one host that fails
# and one that goes on, and each host costs every run seconds of
# Ansible's module runs (16 made this test 14 minutes of a loaded CI, four
# three minutes).
play() {
  ansible-playbook -i inventory "$src/deploy/ansible/provision.yml" -e "@vars.yml" \
    --limit '~^host-p0-s00-h00[01]$' "$@" >"$work/run.log" 2>&1
}
# The recap of one host: "ok=N changed=N ... failed=N".
recap() { grep -E "^$1 +:" "$work/run.log" || { cat "$work/run.log"; fail "no recap for $1"; }; }
hosts=$(awk '/^    role_host:/{on=1; next} /^    [a-z]/{on=0} on && /^        [^ ]/ {sub(":",""); print $1}' inventory/hosts.yml)
[ "$(echo "$hosts" | wc -l)" -eq 16 ] || fail "expected the lab pod's 16 hosts: $hosts"
hosts=$(echo "$hosts" | grep -x 'host-p0-s00-h00[01]')
[ "$(echo "$hosts" | wc -l)" -eq 2 ] || fail "expected two hosts of segment 0: $hosts"

play --check --diff || { cat "$work/run.log"; fail "the check-mode run failed"; }
# Diff mode shows the changes hpnctl would make (the stub's one change).
[ "$(grep -c "sysctl net.ipv4.conf.bond0.arp_announce 0 -> 2" "$work/run.log")" -eq 2 ] || { cat "$work/run.log"; fail "no diff shown"; }
for h in $hosts; do recap "$h" | grep -q "changed=1 .*failed=0" || { cat "$work/run.log"; fail "check mode: $h"; }; done
[ ! -e stub/state ] || [ -z "$(ls stub/state)" ] || fail "check mode applied something: $(ls stub/state)"
[ ! -e hosts ] || fail "check mode copied profiles onto the hosts"

play || { cat "$work/run.log"; fail "the first run failed"; }
! grep -q "sysctl net.ipv4.conf.bond0.arp_announce" "$work/run.log" || fail "changes shown without --diff"
for h in $hosts; do
  recap "$h" | grep -q "failed=0" || fail "first run: $h failed"
  recap "$h" | grep -q "changed=0" && fail "first run: $h reported nothing changed"
  [ -f "stub/state/$h.announced" ] || fail "first run: $h was not announced"
  cmp -s "hosts/$h/profile.json" "profiles/$h/profile.json" || fail "first run: $h has not its profile"
done

play || { cat "$work/run.log"; fail "the second run failed"; }
for h in $hosts; do recap "$h" | grep -q "changed=0 .*failed=0" || { recap "$h"; fail "second run: $h changed"; }; done

# host-p0-s00-h001 given host-p0-s00-h002's profile: refused there, the others go on.
cp profiles/host-p0-s00-h002/profile.json profiles/host-p0-s00-h001/profile.json
play && fail "a run with a wrong profile succeeded"
recap host-p0-s00-h001 | grep -q "failed=1" || fail "the host with the wrong profile did not fail"
grep -q "not of this host (host-p0-s00-h001)" "$work/run.log" || fail "the failure does not say why"
for h in $hosts; do
  [ "$h" = host-p0-s00-h001 ] && continue
  recap "$h" | grep -q "changed=0 .*failed=0" || { recap "$h"; fail "wrong profile elsewhere: $h not ok"; }
done
echo "ok: check mode, apply, changed=0 on the second run, one wrong profile failing alone, on $(echo "$hosts" | wc -l) hosts"
