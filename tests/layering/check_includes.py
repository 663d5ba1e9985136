#!/usr/bin/python3
"""Checks the include rules of docs/ARCHITECTURE.md ("Layers"): each folder
includes only itself and the folders listed for it. Prints every include
that breaks a rule (file, line, the include, what the folder may include)
and exits 1 if there is one. Usage: check_includes.py SOURCE_ROOT"""
import os
import re
import sys

# folder -> folders it may include (besides itself). Keep in step with the
# table in docs/ARCHITECTURE.md.
ALLOWED = {
    "common": [],
    "storage": ["common"],
    "workloads": ["common"],
    "agent": ["common"],
    "controller/sweep": ["common", "storage"],
    "controller/analysis": ["common", "storage"],
    "controller/importer": ["common", "storage"],
    "controller/modeling": ["common", "storage", "controller/sweep",
                            "controller/analysis"],
    "controller/core": ["common", "storage", "controller/analysis"],
    "controller/metrics": ["common", "storage", "controller/core"],
    "controller/cli": ["common", "controller/sweep", "controller/importer"],
    "controller/service": ["common", "storage", "controller/sweep",
                           "controller/analysis", "controller/importer",
                           "controller/modeling", "controller/core"],
}
FOLDERS = sorted(ALLOWED, key=len, reverse=True)


def folder_of(path):
    for f in FOLDERS:
        if path.startswith(f + "/"):
            return f
    return None


def main(root):
    problems = []
    for top in ("common", "storage", "workloads", "agent", "controller"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in files:
                if not name.endswith((".h", ".cc")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                mine = folder_of(rel)
                if mine is None:
                    continue  # e.g. controller/main.cc wires everything
                with open(path, encoding="utf-8") as f:
                    for n, line in enumerate(f, 1):
                        m = re.match(r'\s*#include "([^"]+)"', line)
                        if not m:
                            continue
                        theirs = folder_of(m.group(1))
                        if m.group(1).startswith("tests/"):
                            theirs = "tests"
                        if theirs is None or theirs == mine:
                            continue
                        if theirs not in ALLOWED[mine]:
                            problems.append(
                                f"{rel}:{n}: includes {m.group(1)}; {mine}/ "
                                f"may include only {ALLOWED[mine] or 'itself'}")
    for p in problems:
        print(p)
    print(f"check_includes: {len(problems)} includes break the layer rules")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
