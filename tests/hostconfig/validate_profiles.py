#!/usr/bin/python3
"""Validate host profiles (hpnctl-profile(1)) against schemas/host-profile.schema.json.

Usage:
  validate_profiles.py SCHEMA FILE...
      Exit 0 if every FILE validates; otherwise print "FILE: $.json.path: message"
      per error and exit 1.
  validate_profiles.py SCHEMA --expect-invalid FILE...
      Exit 0 only if the schema rejects every FILE.

Exit 2: usage error or an unusable schema. Needs Debian's python3-jsonschema
(>= 4.0, for draft 2020-12): run it with /usr/bin/python3.
"""
import json
import sys

import jsonschema


def main(argv):
    args = argv[1:]
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    schema_path, files = args[0], args[1:]
    expect_invalid = files[0] == "--expect-invalid"
    if expect_invalid:
        files = files[1:]
    try:
        schema = json.load(open(schema_path))
        jsonschema.Draft202012Validator.check_schema(schema)
    except (OSError, ValueError, jsonschema.SchemaError) as e:
        print(f"{schema_path}: unusable schema: {e}", file=sys.stderr)
        return 2
    validator = jsonschema.Draft202012Validator(schema)
    failed = 0
    for path in files:
        errors = sorted(validator.iter_errors(json.load(open(path))), key=lambda e: e.json_path)
        if expect_invalid:
            if not errors:
                print(f"{path}: accepted, but it should be rejected")
                failed += 1
            continue
        for e in errors:
            print(f"{path}: {e.json_path}: {e.message}")
        failed += bool(errors)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
