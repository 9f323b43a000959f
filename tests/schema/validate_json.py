#!/usr/bin/python3
"""validate_json.py SCHEMA FILE [--lines]: FILE (or each line of it, with
--lines) must be valid against SCHEMA (JSON Schema draft 2020-12), checked with
Debian's python3-jsonschema, an implementation independent of ours."""
import json
import sys

import jsonschema


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    schema = json.load(open(sys.argv[1]))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    text = open(sys.argv[2]).read()
    documents = [l for l in text.splitlines() if l.strip()] if "--lines" in sys.argv else [text]
    if not documents:
        print(f"{sys.argv[2]}: nothing to validate", file=sys.stderr)
        return 1
    bad = 0
    for n, doc in enumerate(documents, 1):
        for error in validator.iter_errors(json.loads(doc)):
            path = "$" + "".join(f"[{p!r}]" for p in error.absolute_path)
            print(f"{sys.argv[2]}:{n}: {path}: {error.message}", file=sys.stderr)
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
