#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Counts the test cases of meson test runs: prints 'tests: N passed, N failed, N skipped'.

gtest binaries count their cases (from meson's JUnit log); a test that failed
outside its cases (a crash, a sanitizer report, a timeout) counts as one more
failure, and a binary skipped whole (exit 77) as one skip. A build dir without
a test log is a failure, so a run that did not happen cannot read as a pass.
Exits 1 when anything failed. With --list-skipped, first one line per
skipped case or test, with the reason it gave ("skipped: NAME: REASON"): a skip
is never silent (scripts/quick-check.sh runs the unit suite unprivileged).
"""
import glob
import json
import os
import sys
import xml.etree.ElementTree as ET

args = sys.argv[1:]
list_skipped = "--list-skipped" in args
args = [a for a in args if a != "--list-skipped"]


def show_skip(name, reason):
    if list_skipped:
        reason = " ".join((reason or "").split())
        print(f"skipped: {name}" + (f": {reason}" if reason else ""))


passed = failed = skipped = 0
for build in args:
    logs = glob.glob(os.path.join(build, "meson-logs", "testlog*.json"))
    if not logs:
        print(f"{build}: no test log", file=sys.stderr)
        failed += 1
        continue
    for log in logs:
        failing_cases = {}
        junit = log[: -len(".json")] + ".junit.xml"
        if os.path.exists(junit):
            for suite in ET.parse(junit).getroot().iter("testsuite"):
                owner = suite.get("name", "")
                for case in suite.iter("testcase"):
                    if case.find("failure") is not None or case.find("error") is not None:
                        failed += 1
                        failing_cases[owner] = failing_cases.get(owner, 0) + 1
                    elif case.find("skipped") is not None:
                        skipped += 1
                        skip = case.find("skipped")
                        show_skip(f"{owner.rsplit(' / ', 1)[-1]}.{case.get('name', '')}",
                                  skip.get("message") or skip.text)
                    else:
                        passed += 1
        with open(log) as f:
            for line in f:
                entry = json.loads(line)
                result = entry["result"]
                if result == "SKIP":
                    skipped += 1
                    show_skip(entry["name"], "exit 77, the whole test")
                elif result not in ("OK", "EXPECTEDFAIL"):
                    prefix = f"rbd-volume.{entry['name']}."
                    if not any(k.startswith(prefix) for k in failing_cases):
                        failed += 1
print(f"tests: {passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
