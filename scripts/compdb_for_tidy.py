#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""compdb_for_tidy.py BUILD_DIR OUT_DIR CLANG [FILE...]: BUILD_DIR's
compile_commands.json in OUT_DIR, with precompiled headers clang-tidy can
read.

Under clang the libraries and the test programs compile with one
(src/pch/src_pch.hpp, tests/support/pch/test_pch.hpp; meson's cpp_pch adds
-include-pch DIR/NAME.pch). clang-tidy 22 cannot read the .pch clang 14
made, and parsing those system headers (gtest, <chrono>) again in every
file was a fifth of the lint. So each header is compiled once more by
CLANG (clang++-22, the same release as clang-tidy) for each distinct set of
compiler flags among the FILEs to be linted (all files when none are
named), into OUT_DIR, and every command points at its copy. The headers
hold system headers only: a file that forgets an include of ours still
fails here, one that forgets a standard header fails the gcc build, which
has none. A gcc build's commands pass unchanged."""
import concurrent.futures
import json
import os
import shlex
import subprocess
import sys

# options of one compile that do not change what a header compiles to
DROPPED_WITH_VALUE = ("-o", "-MQ", "-MF", "-MT")


def without_outputs(args):
    """A compile's arguments without what it writes (the object, its dependency file)."""
    out = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in DROPPED_WITH_VALUE:
            skip = True
        elif arg != "-MD":
            out.append(arg)
    return out


def flag_key(args, header):
    """What a precompiled header must share with the files that use it."""
    return tuple(arg for arg in without_outputs(args[1:])
                 if not (arg.startswith("-I") or arg in ("-c", header)))


def pch_of(args):
    """The .pch an -include-pch names, or None."""
    for i, arg in enumerate(args[:-1]):
        if arg == "-include-pch":
            return args[i + 1]
    return None


def with_pch(args, path):
    out = list(args)
    out[out.index("-include-pch") + 1] = path
    return out


def without_pch(args):
    i = args.index("-include-pch")
    return args[:i] + args[i + 2:]


def header_command(clang, args, output):
    """The header's own compile, by CLANG, into output, without its dependency file."""
    return [clang] + without_outputs(args[1:]) + ["-o", output]


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: compdb_for_tidy.py BUILD_DIR OUT_DIR CLANG [FILE...]")
    build, out_dir, clang = sys.argv[1:4]
    wanted = {os.path.realpath(f) for f in sys.argv[4:]}
    with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as f:
        entries = json.load(f)

    def args_of(entry):
        return entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])

    def path_of(entry):
        return os.path.realpath(os.path.join(entry["directory"], entry["file"]))

    # meson's entries that make a .pch, by their output
    makers = {e["output"]: e for e in entries if "output" in e and e["output"].endswith(".pch")}
    compiles = {}  # (header, flags) -> (directory, command); one compile each
    sources = []
    for entry in entries:
        if entry.get("output", "").endswith(".pch"):
            continue
        args = args_of(entry)
        pch = pch_of(args)
        if pch is not None and (not wanted or path_of(entry) in wanted):
            maker = makers[pch]
            header = path_of(maker)
            key = (header, flag_key(args_of(maker), maker["file"]))
            if key not in compiles:
                output = os.path.join(out_dir, "pch", "%d-%s.pch" % (len(compiles), os.path.basename(header)))
                compiles[key] = (maker["directory"], header_command(clang, args_of(maker), output))
            args = with_pch(args, compiles[key][1][-1])
        elif pch is not None:
            args = without_pch(args)  # not linted: clang 14's .pch is no use to anyone here
        entry.pop("command", None)
        entry["arguments"] = args
        sources.append(entry)

    os.makedirs(os.path.join(out_dir, "pch"), exist_ok=True)

    def compile_one(job):
        directory, command = job
        done = subprocess.run(command, cwd=directory, capture_output=True, text=True, check=False)
        return command[-1], done.returncode, done.stderr

    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for output, rc, err in pool.map(compile_one, compiles.values()):
            if rc != 0:
                sys.exit("compdb_for_tidy.py: %s failed (%d):\n%s" % (output, rc, err))
    with open(os.path.join(out_dir, "compile_commands.json"), "w", encoding="utf-8") as f:
        json.dump(sources, f, indent=1)
    print("compdb_for_tidy.py: %d precompiled headers for clang-tidy" % len(compiles), file=sys.stderr)


main()
