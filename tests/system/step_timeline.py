#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""step_timeline.py: where the time of many volumes started (or stopped) at
once went, from the journal.

    journalctl -o json --since @SECONDS | step_timeline.py [SINCE-USEC]

reads the daemon's step lines (RBDV_STEP, logged when a step ends, with
RBDV_DURATION_USEC) and PID 1's job lines for rbd-volume@ and rbd-fuse@ /
rbd-nbd@ units, and prints one summary: how many steps were in flight at
most and on average, each step kind's count and median, and how a volume's
wall time from its unit's job start to the job's end splits into its steps
and the waits before, between and after them. Only a diagnostic: it asserts
nothing. With SINCE-USEC (the Unix epoch in microseconds) it leaves out
steps that began and jobs that started before it: journalctl's --since
counts whole seconds.
"""

import json
import statistics
import sys

JOB_STARTED = "7d4958e842da4a758f6c1cdc7b36dcc5"
JOB_DONE = "39f53479d3a045ac8e11786248231fbf"
STOP_STARTED = "de5b426a63be47a7b6ac3eaac82e2f6f"
STOP_DONE = "9d1aaa27d60140bd96365438aad20286"


def volume_of_unit(unit):
    """rbd-volume@NAME.service -> NAME, anything else -> None"""
    if unit.startswith("rbd-volume@") and unit.endswith(".service"):
        return unit[len("rbd-volume@"):-len(".service")]
    return None


def read(lines, since):
    steps, jobs = [], {}
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        at = int(entry["__REALTIME_TIMESTAMP"])
        if "RBDV_STEP" in entry and "RBDV_DURATION_USEC" in entry:
            took = int(entry["RBDV_DURATION_USEC"])
            if at - took < since:
                continue
            steps.append((entry.get("RBDV_VOLUME", "?"), entry["RBDV_STEP"], at - took, at))
            continue
        volume = volume_of_unit(entry.get("UNIT", ""))
        if volume is None:
            continue
        mid = entry.get("MESSAGE_ID")
        if at < since:
            continue
        if mid in (JOB_STARTED, STOP_STARTED):
            jobs.setdefault(volume, [None, None])[0] = at
        elif mid in (JOB_DONE, STOP_DONE):
            jobs.setdefault(volume, [None, None])[1] = at
    return steps, jobs


def in_flight(steps):
    """(most, mean) steps in flight over the span from the first start to the last end"""
    edges = sorted([(s[2], 1) for s in steps] + [(s[3], -1) for s in steps])
    most = now = 0
    area = 0
    last = edges[0][0]
    for at, delta in edges:
        area += now * (at - last)
        last = at
        now += delta
        most = max(most, now)
    span = edges[-1][0] - edges[0][0]
    return most, (area / span if span else 0.0)


def ms(usec):
    return "%.0f ms" % (usec / 1000)


def main():
    since = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    steps, jobs = read(sys.stdin, since)
    if not steps:
        print("# timeline: no step lines")
        return
    first = min(s[2] for s in steps)
    last = max(s[3] for s in steps)
    most, mean = in_flight(steps)
    print("# timeline: %d steps of %d volumes over %s; in flight at most %d, on average %.1f"
          % (len(steps), len({s[0] for s in steps}), ms(last - first), most, mean))
    kinds = {}
    for volume, step, start, end in steps:
        kinds.setdefault(step, []).append(end - start)
    print("# timeline: " + ", ".join("%s %d x %s" % (k, len(v), ms(statistics.median(v)))
                                     for k, v in sorted(kinds.items(), key=lambda kv: -sum(kv[1]))))
    before, between, after, inside = [], [], [], []
    for volume, (job_start, job_end) in jobs.items():
        own = sorted((s[2], s[3]) for s in steps if s[0] == volume)
        if not own or job_start is None or job_end is None:
            continue
        before.append(own[0][0] - job_start)
        after.append(job_end - max(e for _, e in own))
        busy = sum(e - s for s, e in own)
        inside.append(busy)
        between.append(max(e for _, e in own) - own[0][0] - busy)
    if inside:
        print("# timeline per volume (median): job start to first step %s, in steps %s, "
              "between steps %s, last step to job end %s"
              % tuple(ms(statistics.median(x)) for x in (before, inside, between, after)))
        starts = sorted(jobs[v][0] for v in jobs if jobs[v][0] is not None)
        firsts = sorted(min(s[2] for s in steps if s[0] == v) for v in jobs
                        if any(s[0] == v for s in steps))
        print("# timeline: jobs started within %s of each other; first steps within %s"
              % (ms(starts[-1] - starts[0]), ms(firsts[-1] - firsts[0])))


if __name__ == "__main__":
    main()
