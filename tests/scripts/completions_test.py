#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The bash and zsh completions of rbd-volumectl, and its man page, against
its own --help, the one table of verbs and options: every verb and every
option a verb takes is completed, nothing else is, and a completion never
asks the daemon (a call on the bus could have the bus start rbd-volumed);
the man page names every verb in its synopsis and every option. The bash
completion is run too, for a verb and for check's spec files.

    completions_test.py RBD_VOLUMECTL COMPLETIONS_DIR MAN_PAGE

Prints "N passed, N failed"; exits 1 on a failure."""
import os
import re
import subprocess
import sys
import tempfile

VOLUMECTL, COMPLETIONS, MAN = sys.argv[1], sys.argv[2], sys.argv[3]
BASH = os.path.join(COMPLETIONS, "rbd-volumectl.bash")
ZSH = os.path.join(COMPLETIONS, "_rbd-volumectl")
results = {"passed": 0, "failed": 0}


def expect(name, ok, why=""):
    results["passed" if ok else "failed"] += 1
    if not ok:
        print(f"FAIL {name}: {why}")


def help_table():
    """{verb: set of options} from `rbd-volumectl --help`."""
    text = subprocess.run([VOLUMECTL, "--help"], capture_output=True, text=True,
                          check=True).stdout
    verbs = {}
    lines = text.splitlines()
    start = lines.index("Verbs:") + 1
    for line in lines[start:]:
        if not line.strip():
            break
        verbs[line.split()[0]] = set()
    option = re.compile(r"^\s+(?:-\w, )?(--[a-z-]+)(?: (?:[A-Z]+|up\|down))?\s+"
                        r"([a-z-]+(?:, [a-z-]+)*):")
    for line in lines:
        found = option.match(line)
        if found:
            for verb in found.group(2).split(", "):
                verbs[verb].add(found.group(1))
    return verbs


def code_lines(path):
    with open(path, encoding="utf-8") as f:
        return [line for line in f.read().splitlines() if not line.lstrip().startswith("#")]


def bash_table(lines):
    text = "\n".join(lines)
    verbs = re.search(r'local verbs="([^"]*)"', text).group(1).split()
    options = {verb: set() for verb in verbs}
    for line in lines:
        found = re.match(r'\s+([a-z| -]+)\) options="([^"]*)" ;;', line)
        if found:
            for verb in found.group(1).split(" | "):
                options[verb.strip()] = set(found.group(2).split())
    return options


def zsh_table(lines):
    text = "\n".join(lines)
    block = re.search(r"verbs=\((.*?)\n\t\)", text, re.S).group(1)
    verbs = re.findall(r"'([a-z-]+):", block)
    options = {verb: set() for verb in verbs}
    cases = text[text.index("case $verb in"):]
    for found in re.finditer(r"\n\t([a-z|-]+)\)(.*?);;", cases, re.S):
        for verb in found.group(1).split("|"):
            options[verb] = set(re.findall(r"['\"](--[a-z-]+)\[", found.group(2)))
    return options


def bash_complete(words):
    script = (f'. "{BASH}"; COMP_WORDS=({" ".join(words)}); '
              f"COMP_CWORD={len(words) - 1}; _rbd_volumectl; printf '%s\\n' \"${{COMPREPLY[@]}}\"")
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=False)
    return set(done.stdout.split())


wanted = help_table()
expect("help lists verbs", len(wanted) >= 10, str(wanted))
for name, path, table in (("bash", BASH, bash_table), ("zsh", ZSH, zsh_table)):
    lines = code_lines(path)
    have = table(lines)
    expect(f"{name}: the verbs of --help", set(have) == set(wanted),
           f"completes {sorted(have)}, --help lists {sorted(wanted)}")
    for verb, options in wanted.items():
        got = have.get(verb, set())
        expect(f"{name}: {verb}'s options", got == options,
               f"completes {sorted(got)}, --help gives {sorted(options)}")
    calls = [line for line in lines if re.search(r"rbd-volumectl (list|status)", line)]
    expect(f"{name}: never asks the daemon", not calls, str(calls))

with open(MAN, encoding="utf-8") as f:
    man = f.read()
synopsis = man[man.index("# SYNOPSIS"):man.index("# DESCRIPTION")]
for verb, options in wanted.items():
    expect(f"man: {verb} in the synopsis", f"*rbd-volumectl {verb}*" in synopsis
           or f"|*{verb}*" in synopsis, verb)
    for option in options:
        expect(f"man: {option}", f"*{option}*" in man, f"{option} is not in {MAN}")

expect("bash: a verb", bash_complete(["rbd-volumectl", "rot"]) == {"rotate-key"},
       str(bash_complete(["rbd-volumectl", "rot"])))
with tempfile.TemporaryDirectory() as directory:
    for file in ("a.toml", "b.txt"):
        open(os.path.join(directory, file), "w", encoding="utf-8").close()
    os.mkdir(os.path.join(directory, "sub"))
    got = bash_complete(["rbd-volumectl", "check", directory + "/"])
    want = {os.path.join(directory, n) for n in ("a.toml", "sub")}
    expect("bash: check completes specs and directories", got == want, str(got))

print(f"{results['passed']} passed, {results['failed']} failed")
sys.exit(1 if results["failed"] else 0)
