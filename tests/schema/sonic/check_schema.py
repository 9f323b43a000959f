#!/usr/bin/env python3
"""Check the SONiC config_db.json schema against its hand-written examples.

usage: python3 check_schema.py SCHEMA DIR

Every DIR/valid-*.json must validate against SCHEMA; every DIR/invalid-*.json
must be rejected.  Each invalid file is also compared with the valid files: it
must differ from the nearest one in exactly one place (one value changed, one
key renamed, added or removed), so that it is rejected for the rule its name
gives and not for something else.  One line is printed per file, then a
summary; the exit status is 1 if any expectation is wrong.

Works with jsonschema 4.10 (Debian bookworm's python3-jsonschema) and later.
"""
import glob
import json
import os
import sys

import jsonschema
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match


class DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs):
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise DuplicateKey("duplicate key %r" % key)
        obj[key] = value
    return obj


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f, object_pairs_hook=_no_duplicates)


def fmt_path(path):
    return "/" + "/".join(str(p) for p in path)


def differences(a, b, path=()):
    """List the places where b differs from a.  A key renamed with its value
    unchanged counts as one difference."""
    if type(a) is not type(b):
        return [("changed", path)]
    if isinstance(a, dict):
        out = []
        removed = [k for k in a if k not in b]
        added = [k for k in b if k not in a]
        if len(removed) == 1 and len(added) == 1 and a[removed[0]] == b[added[0]]:
            out.append(("renamed %s -> %s in" % (removed[0], added[0]), path))
        else:
            out += [("removed", path + (k,)) for k in removed]
            out += [("added", path + (k,)) for k in added]
        for k in a:
            if k in b:
                out += differences(a[k], b[k], path + (k,))
        return out
    return [] if a == b else [("changed", path)]


def short(text, limit=110):
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: %s SCHEMA DIR\n" % argv[0])
        return 2
    schema_path, directory = argv[1], argv[2]
    schema = load(schema_path)
    try:
        Draft202012Validator.check_schema(schema)
    except jsonschema.exceptions.SchemaError as e:
        print("FAIL  %s: not a valid draft 2020-12 schema: %s" % (schema_path, short(e.message)))
        return 1
    validator = Draft202012Validator(schema)

    valid_files = sorted(glob.glob(os.path.join(directory, "valid-*.json")))
    invalid_files = sorted(glob.glob(os.path.join(directory, "invalid-*.json")))
    if not valid_files and not invalid_files:
        print("FAIL  %s: no valid-*.json or invalid-*.json files" % directory)
        return 1

    passed = failed = 0
    valid_docs = {}
    for path in valid_files:
        name = os.path.basename(path)
        try:
            doc = load(path)
        except (ValueError, OSError) as e:
            print("FAIL  %s: cannot be read: %s" % (name, e))
            failed += 1
            continue
        valid_docs[name] = doc
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        if errors:
            first = errors[0]
            print("FAIL  %s: rejected (%d errors), first at %s: %s"
                  % (name, len(errors), fmt_path(first.absolute_path), short(first.message)))
            failed += 1
        else:
            print("ok    %s: valid" % name)
            passed += 1

    for path in invalid_files:
        name = os.path.basename(path)
        try:
            doc = load(path)
        except DuplicateKey as e:
            print("ok    %s: rejected when read: %s" % (name, e))
            passed += 1
            continue
        except (ValueError, OSError) as e:
            print("FAIL  %s: cannot be read: %s" % (name, e))
            failed += 1
            continue
        problem = None
        where = ""
        if valid_docs:
            base, diffs = min(((n, differences(d, doc)) for n, d in valid_docs.items()),
                              key=lambda item: len(item[1]))
            if len(diffs) != 1:
                problem = "differs from %s in %d places, not exactly one" % (base, len(diffs))
            else:
                kind, at = diffs[0]
                where = " [%s %s vs %s]" % (kind, fmt_path(at), base)
        error = best_match(validator.iter_errors(doc))
        if error is None:
            print("FAIL  %s: accepted, but must be rejected%s" % (name, where))
            failed += 1
        elif problem:
            print("FAIL  %s: rejected, but %s" % (name, problem))
            failed += 1
        else:
            print("ok    %s: rejected at %s: %s%s"
                  % (name, fmt_path(error.absolute_path), short(error.message), where))
            passed += 1

    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
