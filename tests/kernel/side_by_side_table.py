#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The side-by-side figure's summary from its rows, "WAY STAGE-MS UNSTAGE-MS".

Medians with their range for each way (ours, cephcsi, floor), our times as
a share of ceph-csi's, and what each plugin adds above the floor, ours as a
share of ceph-csi's: what issue 32 of the project measures.
"""
import statistics
import sys


def main(path):
    rows = [line.split() for line in open(path, encoding="utf-8") if line.strip()]
    ways = {}
    for way, stage, unstage in rows:
        ways.setdefault(way, ([], []))
        ways[way][0].append(int(stage))
        ways[way][1].append(int(unstage))

    def median(way, column):
        return statistics.median(ways[way][column])

    parts = []
    for way in ("ours", "cephcsi", "floor"):
        stage, unstage = ways[way]
        parts.append("%s stage %d ms (%d-%d), unstage %d ms (%d-%d)" % (
            way, median(way, 0), min(stage), max(stage), median(way, 1), min(unstage), max(unstage)))
    floor_stage, floor_unstage = median("floor", 0), median("floor", 1)
    over_ours = median("ours", 0) - floor_stage
    over_theirs = median("cephcsi", 0) - floor_stage
    parts.append("stage ours/cephcsi %.2f, above the floor ours/cephcsi %d/%d ms = %s" % (
        median("ours", 0) / median("cephcsi", 0), over_ours, over_theirs,
        "%.2f" % (over_ours / over_theirs) if over_theirs > 0 else "n/a"))
    parts.append("unstage ours/cephcsi %.2f, ours/floor %.2f; %d rounds" % (
        median("ours", 1) / median("cephcsi", 1), median("ours", 1) / floor_unstage,
        len(ways["ours"][0])))
    print("; ".join(parts))


if __name__ == "__main__":
    main(sys.argv[1])
