#!/usr/bin/env python3
"""Stands in for hpnctl on the hosts of the profile role's test, so that a
real ansible-playbook run (local connection) exercises the role without
root or a network: `host apply PROFILE --format json [--dry-run] --netns
HOST` answers as hpnctl does (result unchanged, dry-run or applied, and the
changes), remembering what it applied in state/HOST beside this script;
a profile of another host is refused with exit 2, as hpnctl's identity
check refuses it. `host announce PROFILE --netns HOST` appends to
state/HOST.announced."""
import json
import os
import sys

args = sys.argv[1:]
command, profile, rest = args[:2], args[2], args[3:]
host = rest[rest.index("--netns") + 1]
state = os.path.join(os.path.dirname(os.path.abspath(__file__)), "state")
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
changes = [] if have == text else [{"step": "set bond0 from the profile"}]
result = "unchanged" if not changes else "dry-run" if dry_run else "applied"
if result == "applied":
    with open(applied, "w", encoding="utf-8") as f:
        f.write(text)
print(json.dumps({"host": host, "dry_run": dry_run, "result": result, "changes": changes}, indent=2))
