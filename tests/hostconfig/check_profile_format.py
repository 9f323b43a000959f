#!/usr/bin/python3
"""Hold schemas/host-profile.schema.json to the one description of the host
profile (blueprint/host_profile_format.h, as format_json() writes it): every
object has the same keys, the same required ones, and each key the same JSON
types (null too where the description says nullable), arrays the same items.

usage: check_profile_format.py DESCRIPTION.json SCHEMA.json
Prints "OBJECT.KEY: problem" per difference and exits 1; exits 0 if none.
"""
import json
import sys

PY_TYPES = {str: "string", bool: "boolean", int: "integer", float: "number", type(None): "null",
            list: "array", dict: "object"}


class Schema:
    def __init__(self, root):
        self.root = root

    def deref(self, node):
        while isinstance(node, dict) and "$ref" in node:
            target = self.root
            for part in node["$ref"].removeprefix("#/").split("/"):
                target = target[part]
            node = target
        return node

    def types(self, node):
        node = self.deref(node)
        if "type" in node:
            t = node["type"]
            return set(t) if isinstance(t, list) else {t}
        if "const" in node:
            return {PY_TYPES[type(node["const"])]}
        if "enum" in node:
            return {PY_TYPES[type(v)] for v in node["enum"]}
        for combinator in ("oneOf", "anyOf"):
            if combinator in node:
                return set().union(*(self.types(branch) for branch in node[combinator]))
        return {"any"}


def compare(desc, schema, name, node, problems):
    obj = desc[name]
    node = schema.deref(node)
    if "variants" in obj:
        branches = [schema.deref(b) for b in node.get("oneOf", [])]
        for value, variant in obj["variants"].items():
            discriminator = desc[variant]["keys"][0]["name"]
            match = [b for b in branches if b.get("properties", {}).get(discriminator, {}).get("const") == value]
            if len(match) != 1:
                problems.append(f"{name}: the schema has no one branch for {discriminator} {value!r}")
                continue
            compare(desc, schema, variant, match[0], problems)
        if len(branches) != len(obj["variants"]):
            problems.append(f"{name}: {len(obj['variants'])} variants in the description, {len(branches)} in the schema")
        return
    props = node.get("properties", {})
    keys = {k["name"]: k for k in obj["keys"]}
    if "open" in obj:
        extra = schema.types(node.get("additionalProperties", {}))
        if extra != {obj["open"]}:
            problems.append(f"{name}: other keys are {sorted(extra)} in the schema, {obj['open']} in the description")
        for key, sub in props.items():
            if key not in keys and schema.types(sub) != {obj["open"]}:
                problems.append(f"{name}.{key}: {sorted(schema.types(sub))} in the schema, {obj['open']} in the description")
    elif node.get("additionalProperties") is not False:
        problems.append(f"{name}: the schema allows other keys, the description does not")
    for key in props:
        if key not in keys and "open" not in obj:
            problems.append(f"{name}.{key}: in the schema, not in the description")
    required = set(node.get("required", []))
    for key, k in keys.items():
        where = f"{name}.{key}"
        if key not in props:
            problems.append(f"{where}: in the description, not in the schema")
            continue
        if k["required"] != (key in required):
            problems.append(f"{where}: {'required' if k['required'] else 'optional'} in the description, "
                            f"{'required' if key in required else 'optional'} in the schema")
        want = {k["type"]} | ({"null"} if k["nullable"] else set())
        have = schema.types(props[key])
        if want != have:
            problems.append(f"{where}: {sorted(want)} in the description, {sorted(have)} in the schema")
            continue
        sub = schema.deref(props[key])
        if k["type"] == "object" and "object" in k:
            compare(desc, schema, k["object"], sub, problems)
        elif k["type"] == "array":
            items = sub.get("items", {})
            if "object" in k:
                compare(desc, schema, k["object"], items, problems)
            elif schema.types(items) != {k["items"]}:
                problems.append(f"{where}: items {k['items']} in the description, "
                                f"{sorted(schema.types(items))} in the schema")


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    desc = json.load(open(argv[1]))
    schema = Schema(json.load(open(argv[2])))
    problems = []
    compare(desc, schema, next(iter(desc)), schema.root, problems)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
