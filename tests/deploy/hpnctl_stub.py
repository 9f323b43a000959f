#!/usr/bin/env python3
"""Stands in for hpnctl on the hosts of the profile role's test, so that a
real ansible-playbook run (local connection) exercises the role without
root or a network: `host apply PROFILE --format json [--dry-run] --netns
HOST` answers as hpnctl does (result unchanged, dry-run or applied, and the
changes), remembering what it applied in state/HOST beside this script;
a profile of another host is refused with exit 2, as hpnctl's identity
check refuses it. `host announce PROFILE --netns HOST` appends to
state/HOST.announced.

Every answer is checked, before it is printed, against the schema of
hpnctl's own (host-apply.schema.json beside this script, a copy of
schemas/host-apply.schema.json, which `host apply --format json` is tested
against): an answer the real command could not give fails here, exit 70,
so the role is exercised on the real command's shape."""
import json
import os
import sys

import jsonschema

here = os.path.dirname(os.path.abspath(__file__))
args = sys.argv[1:]
command, profile, rest = args[:2], args[2], args[3:]
host = rest[rest.index("--netns") + 1]
state = os.path.join(here, "state")
os.makedirs(state, exist_ok=True)
with open(profile, encoding="utf-8") as f:
    wanted = json.load(f)
if wanted.get("host") != host:
    print(f"hpnctl: {profile}: a profile of {wanted.get('host')}, not of this host ({host}); nothing was done",
          file=sys.stderr)
    sys.exit(2)
if command == ["host", "announce"]:
    with open(os.path.join(state, host + ".announced"), "a", encoding="utf-8") as f:
        f.write("announced\n")
    sys.exit(0)
assert command == ["host", "apply"], command
applied = os.path.join(state, host)
have = open(applied, encoding="utf-8").read() if os.path.exists(applied) else ""
text = json.dumps(wanted, sort_keys=True)
dry_run = "--dry-run" in rest
# The one change this stand-in knows: a host that has not the profile yet
# takes it as one sysctl step.
key = "net.ipv4.conf.bond0.arp_announce"
changes = [] if have == text else [
    {"op": "~", "kind": "sysctl", "text": f"~ sysctl {key} 0 -> 2", "key": key, "from": "0", "to": "2"}]
result = "unchanged" if not changes else "dry-run" if dry_run else "applied"
if result == "applied":
    with open(applied, "w", encoding="utf-8") as f:
        f.write(text)
answer = {
    "host": host, "netns": host, "dry_run": dry_run, "no_bond": "--no-bond" in rest, "forced": "--force" in rest,
    "warnings": [], "conflicts": [], "saved": None, "result": result, "changes": changes,
    "applied": len(changes) if result == "applied" else 0, "failed_step": None,
}
with open(os.path.join(here, "host-apply.schema.json"), encoding="utf-8") as f:
    schema = json.load(f)
errors = list(jsonschema.Draft202012Validator(schema).iter_errors(answer))
if errors:
    for e in errors:
        print(f"hpnctl stand-in: its answer is not host apply's: {list(e.absolute_path)}: {e.message}", file=sys.stderr)
    sys.exit(70)
print(json.dumps(answer, indent=2))
