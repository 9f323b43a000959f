#!/usr/bin/env python3
"""The module graph stays as the README's layout table says: each folder's
code includes only the folders below it, and each library links only the
libraries below it (CMake's own graph, cmake --graphviz), so what runs on a
GPU host or a switch never pulls in the planner, the validator or the lab.

usage: module_graph.py SOURCE_DIR

CMake's graph comes from a configure of its own in a scratch directory, so
the build tree the other tests run from is never touched.
"""
import pathlib
import re
import subprocess
import sys
import tempfile

# What each folder may include besides itself: the allowed downward edges.
# host/ and system/ run on production hosts and switches: the blueprint
# and system/ only. switch/ reads its configuration through switchconfig/
# (agent_config.h), which config --all writes.
ALLOWED = {
    "blueprint": set(),
    "system": {"blueprint"},
    "host": {"blueprint", "system"},
    "planner": {"blueprint"},
    "probe": {"blueprint"},
    "validator": {"blueprint", "probe"},
    "switchconfig": {"blueprint", "planner"},
    "hostconfig": {"blueprint", "planner"},
    "switch": {"blueprint", "system", "switchconfig"},
    "lab": {"blueprint", "system", "host", "switch", "planner", "probe", "validator", "switchconfig",
            "hostconfig"},
    "cli": {"blueprint", "system", "host", "switch", "planner", "probe", "validator", "switchconfig",
            "hostconfig", "lab"},
    # Test support above the lab, which nothing of the product may use:
    # the forwarding model forwards on the lab's wiring (lab/wiring.h).
    "fabricmodel": {"blueprint", "probe", "validator", "lab"},
}
# A folder's library (or libraries) as CMake names them.
LIBRARIES = {f"hpn_{folder}": folder for folder in ALLOWED if folder not in ("cli", "fabricmodel")}
LIBRARIES["hpn_fabric_model"] = "fabricmodel"
LIBRARIES["hpn_probe_agent"] = "probe"
LIBRARIES["hpn_int_transit"] = "switch"
LIBRARIES["hpnctl"] = "cli"


def include_problems(source):
    problems = []
    include = re.compile(r'#include "([a-z_]+)/')
    for folder, allowed in ALLOWED.items():
        for path in sorted((source / folder).glob("*.[ch]*")):
            for number, line in enumerate(path.read_text().splitlines(), 1):
                match = include.match(line)
                if match and match[1] in ALLOWED and match[1] not in allowed | {folder}:
                    problems.append(f"{path.relative_to(source)}:{number}: {folder}/ includes {match[1]}/")
    return problems


def link_problems(source):
    with tempfile.TemporaryDirectory() as scratch:
        dot = pathlib.Path(scratch) / "graph.dot"
        subprocess.run(["cmake", "-S", str(source), "-B", f"{scratch}/build", "-G", "Ninja",
                        "-DBUILD_TESTING=OFF", f"--graphviz={dot}"],
                       check=True, stdout=subprocess.DEVNULL)
        edges = re.findall(r'// (\S+) -> (\S+)', dot.read_text())
    problems = []
    for a, b in edges:
        if a in LIBRARIES and b in LIBRARIES and LIBRARIES[a] != LIBRARIES[b]:
            if LIBRARIES[b] not in ALLOWED[LIBRARIES[a]]:
                problems.append(f"{a} links {b}: {LIBRARIES[a]}/ may use only {sorted(ALLOWED[LIBRARIES[a]])}")
    seen = {a for a, _ in edges} | {b for _, b in edges}
    problems += [f"no library {name} in CMake's graph" for name in LIBRARIES if name not in seen]
    return problems


def main():
    source = pathlib.Path(sys.argv[1]).resolve()
    folders = {p.parent.name for p in source.glob("*/CMakeLists.txt")}
    missing = sorted(folders - set(ALLOWED) - {"tests", "bench", "cmake", "examples", "schemas", "man", "deploy"})
    problems = [f"{folder}/ has a CMakeLists.txt but no place in the module graph" for folder in missing]
    problems += include_problems(source) + link_problems(source)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
