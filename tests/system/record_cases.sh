# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# record_cases.sh: the operator's record, sourced by run.sh after cases.sh.
# What rbd-volumed writes to the journal for a stage, publish, unpublish and
# unstage (one line per change, in order, with its fields; nothing when
# converged), the level changed at run time through LogControl1, and the
# unit's status line.

SYS_CASES+=(
	record_changes
	record_log_level
)

# The journal's entries since CURSOR with FIELD=VALUE, as JSON lines. The match
# is ours: journalctl --after-cursor with a match skips the first entry that
# matches when the cursor's own entry does not.
journal_since() { # journal_since CURSOR FIELD=VALUE
	in_ct journalctl --no-pager -q -o json --after-cursor="$1" | python3 -c '
import json, sys
field, value = sys.argv[1].split("=", 1)
for text in sys.stdin:
    if json.loads(text).get(field) == value:
        sys.stdout.write(text)' "$2"
}

# The entries of rbd-volumed (and rbd-volumectl) for volume NAME since CURSOR.
record_since() { journal_since "$1" "RBDV_VOLUME=$2"; } # record_since CURSOR NAME

# The messages of the events with MESSAGE_ID since CURSOR, a line each.
events_since() { # events_since CURSOR MESSAGE_ID
	journal_since "$1" "MESSAGE_ID=$2" | python3 -c '
import json, sys
for text in sys.stdin:
    print(json.loads(text)["MESSAGE"])'
}

journal_cursor() {
	in_ct journalctl --no-pager -q -n 0 --show-cursor | sed -n 's/^-- cursor: //p'
}

# The steps of the info lines, "STEP:RESULT" in order, and checks every
# line's fields: a change names its step, image, driver, device, duration.
record_steps() { # record_steps CURSOR NAME
	record_since "$1" "$2" | python3 -c '
import json, sys
out = []
for text in sys.stdin:
    e = json.loads(text)
    if int(e["PRIORITY"]) > 6 or "RBDV_STEP" not in e:
        continue
    for field in ("RBDV_IMAGE", "RBDV_DRIVER", "RBDV_RESULT", "RBDV_DURATION_USEC"):
        if not e.get(field):
            sys.exit("no %s in: %s" % (field, e["MESSAGE"]))
    if e["RBDV_STEP"] in ("map", "format-if-blank", "mount-staging", "unmap") and not e.get("RBDV_DEVICE"):
        sys.exit("no RBDV_DEVICE in: " + e["MESSAGE"])
    if e["RBDV_STEP"] == "format-if-blank" and "mkfs.ext4" not in e.get("RBDV_DETAIL", ""):
        sys.exit("the format does not name its mkfs: " + e["MESSAGE"])
    if e["RBDV_STEP"] == "ensure-image" and not e.get("RBDV_DETAIL", "").startswith("created, "):
        sys.exit("the image line does not say it was created: " + e["MESSAGE"])
    out.append(e["RBDV_STEP"] + ":" + e["RBDV_RESULT"])
print(" ".join(out))'
}

# The RBDV_DETAIL of NAME's STEP lines since CURSOR, a line each.
step_detail() { # step_detail CURSOR NAME STEP
	record_since "$1" "$2" | python3 -c '
import json, sys
for text in sys.stdin:
    e = json.loads(text)
    if e.get("RBDV_STEP") == sys.argv[1]:
        print(e.get("RBDV_DETAIL", ""))' "$3"
}

# Stage and publish, unpublish and unstage through the unit: one info line per
# changed step, in order, fields filled; the up and down events with their
# MESSAGE_IDs; a converged pass adds no info line; the unit's status line; the
# cluster key in no journal field.
case_record_changes() {
	local cursor steps status key
	spec_now rc1
	cursor=$(journal_cursor)
	start_units rbd-volume@rc1.service
	steps=$(record_steps "$cursor" rc1) || fail "$steps"
	# grow-if-needed found nothing to do: debug, not shown; fsck's verdict is always said
	[ "$steps" = "ensure-image:changed map:changed format-if-blank:changed check:unchanged mount-staging:changed publish:changed" ] ||
		fail "the stage's record: $steps"
	# a fresh image reads as zeroes: mkfs leaves the journal unwritten, and fsck has nothing to find
	[[ $(step_detail "$cursor" rc1 format-if-blank) == *"lazy_journal_init=1"* ]] ||
		fail "the fresh image's mkfs: $(step_detail "$cursor" rc1 format-if-blank)"
	[ "$(step_detail "$cursor" rc1 check)" = "not checked: formatted in this run" ] ||
		fail "the check after our mkfs: $(step_detail "$cursor" rc1 check)"
	events_since "$cursor" 7eb0d271a6b040a898fa189d82c9ab8e | grep -q "volume 'rc1' is up: /dev/loop" || fail "no 'is up' event for rc1"
	[ "$(formatted_since "$cursor")" = rc1 ] || fail "MESSAGE_ID=formatted names '$(formatted_since "$cursor")', not rc1"

	status=$(in_ct systemctl status --no-pager rbd-volume@rc1.service || true)
	[[ $status == *"Status: \"up: /dev/loop"*" staged at /run/rbd-volume/staging/rc1, published at /srv/rc1\""* ]] ||
		fail "systemctl status shows no phase and device: $status"

	# converged: a pass changes nothing and says nothing at info
	cursor=$(journal_cursor)
	ctl reconcile rc1 >/dev/null
	steps=$(record_since "$cursor" rc1 | python3 -c '
import json, sys
print(" ".join(json.loads(t)["MESSAGE"] for t in sys.stdin if int(json.loads(t)["PRIORITY"]) <= 6))')
	[ -z "$steps" ] || fail "a converged pass wrote: $steps"

	cursor=$(journal_cursor)
	stop_units rbd-volume@rc1.service
	steps=$(record_steps "$cursor" rc1) || fail "$steps"
	[ "$steps" = "unmount:changed unmount:changed unmap:changed" ] || fail "the unstage's record: $steps"
	events_since "$cursor" 009d7d2995294b8a91b589f3f0fe3562 | grep -q "volume 'rc1' is down" || fail "no 'is down' event for rc1"
	# up again: mounted, never formatted a second time
	cursor=$(journal_cursor)
	start_units rbd-volume@rc1.service
	[ "$(formatted_since "$cursor")" = "" ] || fail "formatted again: $(formatted_since "$cursor")"
	steps=$(record_steps "$cursor" rc1) || fail "$steps"
	[[ $steps == *"mount-staging:changed"* ]] || fail "the second stage's record: $steps"
	stop_units rbd-volume@rc1.service
	# the key the volume used, in no field of any entry
	key=$(ceph-authtool -p -n "client.$CEPH_TEST_ID" "$CEPH_TEST_KEYRING")
	if in_ct journalctl --no-pager -q -o export | grep -aqF -- "$key"; then
		fail "the key is in a journal field"
	fi
}

# The volumes MESSAGE_ID=formatted names since CURSOR, sorted.
formatted_since() { # formatted_since CURSOR
	journal_since "$1" MESSAGE_ID=d6b77c6b471548edb4a874ffd0f7f0bb | python3 -c 'import json, sys; print(" ".join(sorted({json.loads(t)["RBDV_VOLUME"] for t in sys.stdin})))'
}

# systemctl service-log-level turns debug lines on and off without a restart.
case_record_log_level() {
	local cursor pid debug
	spec_now rl1
	start_units rbd-volume@rl1.service
	pid=$(unit_prop rbd-volumed.service MainPID)
	[ "$(in_ct systemctl service-log-level rbd-volumed.service)" = info ] ||
		fail "the level is $(in_ct systemctl service-log-level rbd-volumed.service), not info"
	in_ct systemctl service-log-level rbd-volumed.service debug ||
		fail "systemctl service-log-level rbd-volumed debug failed"
	[ "$(in_ct systemctl service-log-level rbd-volumed.service)" = debug ] || fail "the level did not change"
	cursor=$(journal_cursor)
	ctl reconcile rl1 >/dev/null
	debug=$(record_since "$cursor" rl1 | python3 -c '
import json, sys
print(sum(1 for t in sys.stdin if int(json.loads(t)["PRIORITY"]) == 7))')
	in_ct systemctl service-log-level rbd-volumed.service info
	[ "$debug" -ge 1 ] || fail "no debug line at level debug"
	cursor=$(journal_cursor)
	ctl reconcile rl1 >/dev/null
	debug=$(record_since "$cursor" rl1 | python3 -c '
import json, sys
print(sum(1 for t in sys.stdin if int(json.loads(t)["PRIORITY"]) == 7))')
	[ "$debug" = 0 ] || fail "$debug debug lines at level info"
	[ "$(unit_prop rbd-volumed.service MainPID)" = "$pid" ] || fail "the daemon restarted"
	stop_units rbd-volume@rl1.service
}
