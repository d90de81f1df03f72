#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""compdb_without_pch.py BUILD_DIR OUT_DIR: BUILD_DIR's compile_commands.json
in OUT_DIR, each command without its precompiled header.

Under clang the libraries and the test programs compile with one
(src/pch/src_pch.hpp, tests/support/pch/test_pch.hpp; meson's cpp_pch adds
-include-pch DIR/NAME.pch). clang-tidy 22 cannot read the .pch clang 14
made, and without it each file is linted as it is written: what it uses, it
includes. A gcc build has none (meson.build): its commands pass unchanged."""
import json
import os
import shlex
import sys


def without_pch(args):
    out = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg == "-include-pch":
            skip = True
        else:
            out.append(arg)
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
