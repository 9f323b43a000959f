#!/usr/bin/env python3
"""Writes what the agents or switches gave, one file each, on the controller:
one module run for all of them where a copy per file cost each a few seconds.

usage: keep_outputs.py DIR PREFIX SUFFIX < {"NAME": "TEXT", ...}

Each NAME (an inventory host name) becomes DIR/PREFIX+NAME+SUFFIX holding
TEXT and a final newline (none for an empty TEXT). A PREFIX+NAME+SUFFIX
that is not a plain file name is refused (nothing leaves DIR), and
nothing is written over: the run's directory is new, so a file already
there (or a link) means two writers, an error.
"""
import json
import os
import sys


def main():
    directory, prefix, suffix = sys.argv[1:4]
    outputs = json.load(sys.stdin)
    os.makedirs(directory, mode=0o755, exist_ok=True)
    for name, text in sorted(outputs.items()):
        file_name = prefix + name + suffix
        if not name or "/" in file_name or "\0" in file_name or file_name in (".", ".."):
            sys.exit(f"keep_outputs.py: '{file_name}' cannot name a file in {directory}")
        if text and not text.endswith("\n"):
            text += "\n"
        with open(os.path.join(directory, file_name), "x", encoding="utf-8") as out:
            out.write(text)


if __name__ == "__main__":
    main()
