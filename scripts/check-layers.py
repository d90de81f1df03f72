#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Fails on an #include that crosses a layer the build does not allow.

Every folder of src/ that starts a layer holds a file named LAYER listing the
folders of src/ its files may include, one per line ('#' starts a comment):

    common          headers directly in src/common
    host/**         headers in src/host and in every folder below it

A file obeys the LAYER of the nearest folder above it that has one. Only
project includes ("folder/file.hpp") are checked; <system> includes are the
build's business (meson says which library each layer links). What a file
includes through a header counts as well: a rule cannot be passed through a
header of an allowed folder that includes a forbidden one.

Usage: check-layers.py [--stamp FILE] [SRC_DIR]   (default: the src/ beside this script)
Prints one line per forbidden include, FILE:LINE: why, and exits 1 when there
is one; prints "layers: N files, N includes, all allowed" and exits 0 else
(with --stamp, it writes FILE instead: the build runs it on every build).
A file always may include its own folder.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def read_layer(path):
    entries = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                entries.append(line)
    return entries


def allows(entries, folder):
    for entry in entries:
        if entry.endswith("/**"):
            base = entry[:-3]
            if folder == base or folder.startswith(base + "/"):
                return True
        elif folder == entry:
            return True
    return False


def main():
    args = sys.argv[1:]
    stamp = None
    if len(args) >= 2 and args[0] == "--stamp":
        stamp, args = args[1], args[2:]
    if args and args[0].startswith("-") or len(args) > 1:
        sys.stderr.write(__doc__.strip() + "\n")
        return 0 if args[0] in ("-h", "--help") else 2
    src = args[0] if args else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "src")
    src = os.path.normpath(src)
    if not os.path.isdir(src):
        sys.stderr.write(f"check-layers: {src}: not a directory\n")
        return 2
    layers = {}
    problems = []
    files = includes = 0
    direct = {}  # path relative to src -> [(line, include)] of project headers that exist
    owners = {}  # path relative to src -> the folder whose LAYER governs it
    for root, dirs, names in os.walk(src):
        dirs.sort()
        rel = os.path.relpath(root, src)
        rel = "" if rel == "." else rel
        if "LAYER" in names:
            layers[rel] = read_layer(os.path.join(root, "LAYER"))
        for name in sorted(names):
            if not name.endswith((".cpp", ".hpp", ".h", ".cc")):
                continue
            files += 1
            owner = rel
            while owner not in layers and owner:
                owner = os.path.dirname(owner)
            path = os.path.join(root, name)
            if owner not in layers:
                problems.append(f"{path}: no LAYER file governs {rel or 'src'}/")
                continue
            key = os.path.join(rel, name)
            owners[key] = owner
            direct[key] = []
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    match = INCLUDE.match(line)
                    if not match or "/" not in match.group(1):
                        continue
                    if not os.path.isfile(os.path.join(src, match.group(1))):
                        continue  # a generated header or one of a library
                    includes += 1
                    direct[key].append((number, match.group(1)))

    def reached(header):
        """Every project header `header` includes, directly or not: {header: the one before it}."""
        before = {header: None}
        todo = [header]
        while todo:
            current = todo.pop()
            for _, nested in direct.get(current, []):
                if nested not in before:
                    before[nested] = current
                    todo.append(nested)
        return before

    for key in sorted(direct):
        owner, folder = owners[key], os.path.dirname(key)
        path = os.path.join(src, key)
        allowed = ", ".join(layers[owner])
        for number, header in direct[key]:
            target = os.path.dirname(header)
            if target != folder and not allows(layers[owner], target):
                problems.append(
                    f'{path}:{number}: includes "{header}", but '
                    f"{owner}/ may include only: {allowed} ({owner}/LAYER)")
                continue
            before = reached(header)
            for far in sorted(before):
                far_folder = os.path.dirname(far)
                if far_folder == folder or allows(layers[owner], far_folder):
                    continue
                chain = [far]
                while before[chain[-1]] is not None:
                    chain.append(before[chain[-1]])
                through = " -> ".join(f'"{h}"' for h in reversed(chain))
                problems.append(
                    f'{path}:{number}: includes {through}, but '
                    f"{owner}/ may include only: {allowed} ({owner}/LAYER)")
                break
    for problem in problems:
        print(problem)
    if problems:
        return 1
    if not stamp:  # the build's target is quiet when all is well
        print(f"layers: {files} files, {includes} includes, all allowed")
    if stamp:
        with open(stamp, "w", encoding="utf-8") as f:
            f.write("ok\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
