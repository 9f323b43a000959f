#!/usr/bin/env python3
"""Validate generated config_db.json files against the SONiC schema.

usage: python3 validate_config_db.py SCHEMA DIR

Every DIR/*/config_db.json must validate. Beyond what JSON Schema can say,
the cross-table rules SONiC's YANG states are checked too (see README.md):
an INTERFACE or VLAN_MEMBER port is in PORT, a prefix entry has its bare
interface entry, a VLAN member is not also a routed interface, BREAKOUT_CFG
names a port. Prints one line per failure and a summary; exit 1 on any.
"""
import glob
import json
import os
import sys

from jsonschema import Draft202012Validator


def cross_table(db):
    errors = []
    ports = set(db.get("PORT", {}))
    for table in ("INTERFACE", "VLAN_INTERFACE", "LOOPBACK_INTERFACE"):
        keys = set(db.get(table, {}))
        for key in keys:
            if "|" in key and key.split("|")[0] not in keys:
                errors.append(f"{table}|{key}: no entry {key.split('|')[0]}")
    for key in db.get("INTERFACE", {}):
        name = key.split("|")[0]
        if name not in ports:
            errors.append(f"INTERFACE|{key}: {name} is not in PORT")
    members = set()
    for key in db.get("VLAN_MEMBER", {}):
        vlan, port = key.split("|")
        members.add(port)
        if port not in ports:
            errors.append(f"VLAN_MEMBER|{key}: {port} is not in PORT")
        if vlan not in db.get("VLAN", {}):
            errors.append(f"VLAN_MEMBER|{key}: {vlan} is not in VLAN")
    routed = {k.split("|")[0] for k in db.get("INTERFACE", {})}
    for port in members & routed:
        errors.append(f"{port}: both a VLAN member and a routed interface")
    for vlan, fields in db.get("VLAN", {}).items():
        if fields.get("vlanid") != vlan[len("Vlan"):]:
            errors.append(f"VLAN|{vlan}: vlanid {fields.get('vlanid')}")
    for port in db.get("BREAKOUT_CFG", {}):
        if port not in ports:
            errors.append(f"BREAKOUT_CFG|{port}: not in PORT")
    return errors


def main():
    schema_path, root = sys.argv[1], sys.argv[2]
    with open(schema_path) as f:
        validator = Draft202012Validator(json.load(f))
    files = sorted(glob.glob(os.path.join(root, "*", "config_db.json")))
    failed = 0
    for path in files:
        with open(path) as f:
            db = json.load(f)
        problems = [f"{'/'.join(str(p) for p in e.absolute_path)}: {e.message}" for e in validator.iter_errors(db)]
        problems += cross_table(db)
        for p in problems[:5]:
            print(f"{path}: {p}")
        failed += bool(problems)
    if not files:
        print(f"{root}: no */config_db.json")
        return 1
    print(f"{len(files) - failed} config_db.json files valid, {failed} not")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
