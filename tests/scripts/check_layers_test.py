#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""scripts/check-layers.py on small trees: it passes the allowed includes and
names every forbidden one (file, line, the LAYER that forbids it), the ones
reached through an allowed header included, and it passes the real src/.
Prints "N passed, N failed"; exits 1 on a failure."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "check-layers.py")
SRC = os.path.join(HERE, "..", "..", "src")

results = {"passed": 0, "failed": 0}


def check(name, condition, detail=""):
    results["passed" if condition else "failed"] += 1
    if not condition:
        print(f"FAIL {name}: {detail}")


def tree(files):
    root = tempfile.mkdtemp(prefix="layers-")
    for path, text in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)
    return root


def run(root):
    done = subprocess.run([sys.executable, SCRIPT, root], capture_output=True, text=True,
                          check=False)
    return done.returncode, done.stdout


BASE = {
    "common/LAYER": "common\n",
    "common/text.hpp": "#pragma once\n#include <string>\n",
    "engine/LAYER": "# the engine\nengine\ncommon\n",
    "engine/plan.hpp": '#pragma once\n#include "common/text.hpp"\n#include "engine/step.hpp"\n',
    "engine/step.hpp": "#pragma once\n",
    "host/LAYER": "host/**\nengine\ncommon\n",
    "host/mounter.cpp": '#include "engine/plan.hpp"\n#include "host/drivers/krbd.hpp"\n',
    "host/drivers/krbd.hpp": '#pragma once\n#include "host/mounter.hpp"\n',
    "host/mounter.hpp": "#pragma once\n",
}

code, out = run(tree(BASE))
check("allowed includes pass", code == 0, out)
check("the summary counts them", out.startswith("layers: 6 files, 5 includes"), out)

bad = dict(BASE)
bad["common/text.hpp"] = '#pragma once\n#include <string>\n#include "engine/plan.hpp"\n'
code, out = run(tree(bad))
check("a deliberate bad include fails", code == 1, out)
check("it names file, line, include and LAYER",
      'common/text.hpp:3: includes "engine/plan.hpp", but common/ may include only: '
      "common (common/LAYER)" in out, out)

through = dict(BASE)
through["host/mounter.hpp"] = '#pragma once\n#include "engine/plan.hpp"\n'
through["csi/LAYER"] = "# never the engine\ncsi\nhost\ncommon\n"
through["csi/node.cpp"] = '#include "common/text.hpp"\n#include "host/mounter.hpp"\n'
code, out = run(tree(through))
check("the engine through a host header fails", code == 1, out)
check("it names the chain of headers",
      'csi/node.cpp:2: includes "host/mounter.hpp" -> "engine/plan.hpp", but csi/ may include '
      "only: csi, host, common (csi/LAYER)" in out, out)
check("only that include is named", out.count("\n") == 1, out)

unknown = dict(BASE)
unknown["daemon/main.cpp"] = '#include "host/mounter.hpp"\n'
code, out = run(tree(unknown))
check("a folder without a LAYER fails", code == 1 and "no LAYER file governs daemon/" in out,
      out)

code, out = run(os.path.normpath(SRC))
check("src/ keeps to its layers", code == 0, out)

print(f"{results['passed']} passed, {results['failed']} failed")
sys.exit(1 if results["failed"] else 0)
