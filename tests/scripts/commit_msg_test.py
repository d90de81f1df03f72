#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""scripts/hooks/commit-msg on messages: it takes a subject of at most 72
characters (counted as characters, not bytes) with an optional body after an
empty line, and refuses a longer subject, an empty one and a body that starts
on the second line, saying why. Prints "N passed, N failed"; exits 1 on a
failure."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
HOOK = os.path.join(HERE, "..", "..", "scripts", "hooks", "commit-msg")

results = {"passed": 0, "failed": 0}


def verdict(message):
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".msg", delete=False) as f:
        f.write(message)
    try:
        done = subprocess.run(["bash", HOOK, f.name], capture_output=True, text=True,
                              check=False)
    finally:
        os.unlink(f.name)
    return done.returncode, done.stderr


def expect(name, message, accepted, said=""):
    rc, err = verdict(message)
    ok = (rc == 0) == accepted and said in err
    results["passed" if ok else "failed"] += 1
    if not ok:
        print(f"FAIL {name}: exit {rc}, said {err!r}")


expect("short subject", "host: one line\n", True)
expect("subject and body", "host: one line\n\nWhy it changed.\n", True)
expect("72 characters", "x" * 72 + "\n", True)
expect("72 characters, not bytes", "—" * 72 + "\n", True)
expect("git's comment lines", "# Please enter\nhost: one line\n# comment\n\nbody\n", True)
expect("73 characters", "x" * 73 + "\n", False, "73 characters, at most 72")
expect("empty", "\n\n", False, "the subject (first line) is empty")
expect("only comments", "# Please enter the commit message\n", False, "empty")
expect("body on line two", "host: one line\nwhy\n", False, "an empty line goes between")

print(f"{results['passed']} passed, {results['failed']} failed")
sys.exit(1 if results["failed"] else 0)
