#!/usr/bin/python3
"""Validate pod specs (hpn-pod.yaml(5)) against schemas/hpn-pod.schema.json.

Usage:
  validate_examples.py SCHEMA EXAMPLES_DIR
      Validate every *.yaml directly in EXAMPLES_DIR. Prints "ok FILE" for a
      file that passes and one "FILE:LINE:COL: $.json.path: message" line per
      error otherwise. Exits 1 if any file fails or if there is no file.
  validate_examples.py SCHEMA --expect-invalid FILE...
      Negative cases: exits 0 only if the schema rejects every FILE. A file may
      pin the reason with comment lines "# expect-error: $.json.path"; it then
      passes only if some error is reported at each of those paths, so a case
      cannot pass by being wrong in some other way.

A file that is not valid YAML, or that repeats a key in one mapping (which YAML
loaders disagree on and the schema cannot see), fails in both modes. Exit 2 is
a usage error or an unusable schema.

Needs Debian's python3-jsonschema (>= 4.0, for Draft 2020-12) and python3-yaml;
run it with /usr/bin/python3, not a virtualenv or pyenv interpreter.
"""

import argparse
import json
import pathlib
import re
import sys

import jsonschema
import yaml

EXPECT_RE = re.compile(r"^\s*#\s*expect-error:\s*(\S+)\s*$")


class SpecError(Exception):
    """A file that cannot be checked at all (unreadable, not YAML)."""


def location(mark):
    return f"{mark.line + 1}:{mark.column + 1}"


def mapping_get(node, key, loader):
    """The (key node, value node) of KEY in a mapping node, or (None, None)."""
    for key_node, value_node in node.value:
        if isinstance(key_node, yaml.ScalarNode) and loader.construct_object(key_node) == key:
            return key_node, value_node
    return None, None


def node_at(root, path, loader):
    """The deepest node along a JSON instance path (a sequence of keys/indices)."""
    node = root
    for step in path:
        if isinstance(node, yaml.MappingNode):
            _, child = mapping_get(node, step, loader)
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and step < len(node.value):
            child = node.value[step]
        else:
            child = None
        if child is None:
            break
        node = child
    return node


def duplicate_keys(node, loader, json_path="$"):
    """Yield (key node, json path) for every key repeated inside one mapping."""
    if isinstance(node, yaml.MappingNode):
        seen = set()
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node) if isinstance(key_node, yaml.ScalarNode) else None
            child_path = f"{json_path}.{key}"
            if key is not None:
                if key in seen:
                    yield key_node, child_path
                seen.add(key)
            yield from duplicate_keys(value_node, loader, child_path)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            yield from duplicate_keys(item, loader, f"{json_path}[{i}]")


def load(path):
    """(data, root node, loader) of a YAML file; raises SpecError."""
    try:
        text = pathlib.Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise SpecError(f"{path}: cannot read: {e}") from e
    loader = yaml.SafeLoader(text)
    try:
        root = loader.get_single_node()
        data = loader.construct_document(root) if root is not None else None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f"{path}:{location(mark)}" if mark else str(path)
        raise SpecError(f"{where}: not valid YAML: {e.problem or e}") from e
    except yaml.YAMLError as e:
        raise SpecError(f"{path}: not valid YAML: {e}") from e
    return data, root, loader


def check(validator, path):
    """Return a list of (line, col, json path, message) for one file."""
    data, root, loader = load(path)
    found = []
    if root is not None:
        for key_node, json_path in duplicate_keys(root, loader):
            mark = key_node.start_mark
            found.append((mark.line + 1, mark.column + 1, json_path, "key given twice in one mapping"))
    for error in validator.iter_errors(data):
        node = node_at(root, error.absolute_path, loader) if root is not None else None
        mark = node.start_mark if node is not None else None
        # Point an unknown key at the key itself, not at the mapping holding it.
        if error.validator == "additionalProperties" and isinstance(node, yaml.MappingNode):
            allowed = error.schema.get("properties", {})
            for key_node, _ in node.value:
                if isinstance(key_node, yaml.ScalarNode) and loader.construct_object(key_node) not in allowed:
                    mark = key_node.start_mark
                    break
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        found.append((line, col, error.json_path, error.message))
    return sorted(found)


def expected_paths(path):
    try:
        lines = pathlib.Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    return [m.group(1) for m in map(EXPECT_RE.match, lines) if m]


def load_schema(path):
    try:
        schema = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
        jsonschema.Draft202012Validator.check_schema(schema)
    except (OSError, ValueError) as e:
        print(f"{path}: cannot load schema: {e}", file=sys.stderr)
        sys.exit(2)
    except jsonschema.SchemaError as e:
        print(f"{path}: not a valid Draft 2020-12 schema at {e.json_path}: {e.message}", file=sys.stderr)
        sys.exit(2)
    return jsonschema.Draft202012Validator(schema)


def validate_dir(validator, directory):
    if not pathlib.Path(directory).is_dir():
        print(f"{directory}: not a directory", file=sys.stderr)
        return 1
    files = sorted(pathlib.Path(directory).glob("*.yaml"))
    if not files:
        print(f"{directory}: no *.yaml files", file=sys.stderr)
        return 1
    failed = 0
    for path in files:
        try:
            errors = check(validator, path)
        except SpecError as e:
            print(e)
            failed += 1
            continue
        if not errors:
            print(f"ok {path}")
            continue
        failed += 1
        for line, col, json_path, message in errors:
            print(f"{path}:{line}:{col}: {json_path}: {message}")
    if failed:
        print(f"{failed} of {len(files)} files failed", file=sys.stderr)
    return 1 if failed else 0


def expect_invalid(validator, files):
    failed = 0
    for path in files:
        try:
            errors = check(validator, path)
        except SpecError as e:
            print(f"BROKEN {e} (a negative case must be valid YAML)")
            failed += 1
            continue
        if not errors:
            print(f"ACCEPTED {path}: expected the schema to reject it")
            failed += 1
            continue
        reported = {json_path for _, _, json_path, _ in errors}
        missing = [p for p in expected_paths(path) if p not in reported]
        line, col, json_path, message = errors[0]
        if missing:
            print(f"WRONG-REASON {path}: no error at {', '.join(missing)}; "
                  f"first error {line}:{col}: {json_path}: {message}")
            failed += 1
        else:
            print(f"rejected {path}:{line}:{col}: {json_path}: {message}")
    return 1 if failed else 0


def main(argv):
    parser = argparse.ArgumentParser(description="Validate hpnctl pod specs against the JSON Schema.")
    parser.add_argument("schema", help="path of hpn-pod.schema.json")
    parser.add_argument("examples_dir", nargs="?", help="directory whose *.yaml files must all be valid")
    parser.add_argument("--expect-invalid", nargs="+", metavar="FILE",
                        help="files that must all be rejected")
    args = parser.parse_args(argv)
    if (args.examples_dir is None) == (args.expect_invalid is None):
        parser.error("give either EXAMPLES_DIR or --expect-invalid FILE...")
    validator = load_schema(args.schema)
    if args.expect_invalid is not None:
        return expect_invalid(validator, args.expect_invalid)
    return validate_dir(validator, args.examples_dir)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
