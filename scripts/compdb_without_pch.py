#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""compdb_without_pch.py BUILD_DIR OUT_DIR: BUILD_DIR's compile_commands.json
in OUT_DIR, each command without its precompiled header.

The test programs are compiled with one (tests/support/pch/test_pch.hpp,
meson's cpp_pch). clang-tidy cannot read one another compiler made (gcc's
.gch, or clang 14's .pch for clang-tidy 22), and without it each file is
linted as it is written: what it uses, it includes."""
import json
import os
import shlex
import sys


def without_pch(args):
    out = []
    i = 0
    while i < len(args):
        arg = args[i]
        following = args[i + 1] if i + 1 < len(args) else ""
        if arg == "-include-pch":  # clang: -include-pch DIR/NAME.pch
            i += 2
        elif arg == "-include" and following.endswith("_pch.hpp"):  # gcc: its .gch beside it
            i += 2
        elif arg == "-fpch-preprocess":
            i += 1
        else:
            out.append(arg)
            i += 1
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: compdb_without_pch.py BUILD_DIR OUT_DIR")
    build, out_dir = sys.argv[1:]
    with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as f:
        entries = json.load(f)
    for entry in entries:
        if "arguments" in entry:
            entry["arguments"] = without_pch(entry["arguments"])
        else:
            entry["command"] = shlex.join(without_pch(shlex.split(entry["command"])))
    with open(os.path.join(out_dir, "compile_commands.json"), "w", encoding="utf-8") as f:
        json.dump(entries, f, indent=1)


main()
