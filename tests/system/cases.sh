# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# cases.sh: the system suite's cases, one function case_NAME each, run in this
# order by tests/system/run.sh (sourced after lib.sh). A case runs in a
# subshell with errexit: fail REASON, or any command that fails, ends it.
# After each case every rbd-volume@ unit is stopped, the specs are removed,
# and whatever is still mapped or mounted fails the case.

# shellcheck disable=SC2034 # run.sh reads it
SYS_CASES=(
	install_layout
	start_stop
	long_first_format
	daemon_restart_keeps_io
	fuse_kill_degraded
	publish_restored_event_driven
	fifty_volumes
	unprivileged_read_only
	monitor_follows_phases
	metrics_for_node_exporter
	invalid_spec_reported
	down_stops_waiting_unit
	stop_during_start
	shutdown_clean
)

# --- what the host shows, inside the container ----------------------------------------

# "DEVICE BACKING-FILE" of the fuse driver's loop devices of NAME...
loops_of() {
	local name pattern=""
	for name in "$@"; do pattern+="${pattern:+|}/run/rbd-volume/fuse/$name/"; done
	in_ct losetup -l -n -O NAME,BACK-FILE | grep -E -- " ($pattern)" | sort || true
}

# Loop devices are global: those of our volumes attached since the case began.
ct_loops() { in_ct losetup -l -n -O NAME,BACK-FILE | sort; }
ct_new_loops() { sys_our_new_loops "$SYS_CASE_LOOPS" "$(ct_loops)"; }

# Everything of rbd-volume's still mapped, mounted or running; one line each.
ct_leftovers() {
	local out
	out=$(in_ct findmnt -rn -o TARGET | grep -E '^(/srv/|/run/rbd-volume/)' || true)
	[ -z "$out" ] || echo "mounts: $(echo "$out" | tr '\n' ' ')"
	out=$(ct_new_loops)
	[ -z "$out" ] || echo "loop devices: $(echo "$out" | tr '\n' ' ')"
	out=$(in_ct pgrep -a -x rbd-fuse || true)
	[ -z "$out" ] || echo "rbd-fuse processes: $(echo "$out" | tr '\n' ' ')"
	out=$(in_ct systemctl list-units --plain --no-legend --state=active,activating,deactivating,reloading \
		'rbd-fuse@*' 'rbd-nbd@*' 'rbd-volume@*' | awk '{print $1}')
	[ -z "$out" ] || echo "units: $(echo "$out" | tr '\n' ' ')"
	# A record outlives the volume's teardown to remember that rbd-volume
	# formatted the image (never again); it must claim nothing live.
	out=$(in_ct sh -c 'cd /run/rbd-volume/owned 2>/dev/null &&
		grep -sHE "^(mapped-device|map-pending|staged|published)=" -- *' || true)
	[ -z "$out" ] || echo "ownership records: $(echo "$out" | tr '\n' ' ')"
	# What the drivers keep while a volume is mapped, and the staging directories.
	# shellcheck disable=SC2016 # expanded inside
	out=$(in_ct sh -c 'cd /run/rbd-volume && for d in fuse nbd staging; do
		[ -d "$d" ] && ls -A "$d" | sed "s|^|$d/|"; done' || true)
	[ -z "$out" ] || echo "runtime files: $(echo "$out" | tr '\n' ' ')"
	return 0
}

assert_nothing_left() {
	local left
	left=$(ct_leftovers)
	[ -z "$left" ] || fail "left behind: $(echo "$left" | tr '\n' ';')"
}

# What went wrong, from the container's journal.
case_diagnostics() {
	in_ct journalctl --no-pager -q -o short-monotonic -n 40 -u rbd-volumed.service \
		-u 'rbd-volume@*' -u 'rbd-fuse@*' 2>/dev/null | sed 's/^/# /' || true
}

# Forcefully removes what a failed case left, so the next case starts clean:
# the daemon first, or it would restore what is being removed.
force_clean() {
	local dev file
	# shellcheck disable=SC2016 # expanded inside
	in_ct sh -c '
		systemctl stop rbd-volumed.service "rbd-volume@*" rbdv-writer.service
		findmnt -rn -o TARGET | grep -E "^(/srv/|/run/rbd-volume/staging/)" | sort -r |
			while read -r m; do umount -l "$m"; done' >/dev/null 2>&1 || true
	while read -r dev file; do
		[ -z "$dev" ] || in_ct losetup -d "$dev" >/dev/null 2>&1 || true
	done <<<"$(ct_new_loops)"
	# shellcheck disable=SC2016 # expanded inside
	in_ct sh -c '
		systemctl stop "rbd-fuse@*"
		findmnt -rn -o TARGET | grep "^/run/rbd-volume/fuse/" | while read -r m; do umount -l "$m"; done
		rm -rf /run/rbd-volume/owned/* /run/rbd-volume/intent/*
		systemctl reset-failed
		systemctl start rbd-volumed.service' >/dev/null 2>&1 || true
}

case_cleanup() { # case_cleanup NAME: fails when something was left behind
	local left
	in_ct systemctl stop rbdv-writer.service >/dev/null 2>&1 || true
	# a kill-window case that failed leaves its kill point armed
	in_ct sh -c 'rm -rf /run/rbdv-kill /run/systemd/system/rbd-fuse@*.service.d &&
		systemctl daemon-reload' >/dev/null 2>&1 || true
	sys_stop_volumes >/dev/null 2>&1 || true
	in_ct sh -c 'rm -f /etc/rbd-volume/volumes/*.toml' || true
	left=$(ct_leftovers)
	in_ct systemctl reset-failed >/dev/null 2>&1 || true
	[ -n "$left" ] || return 0
	echo "$left" | tr '\n' ';' >"$SYS_WORK/leftovers"
	force_clean
	return 1
}

# --- helpers of the cases ----------------------------------------------------------------

spec_now() { # spec_now NAME [SIZE]: written and checked offline
	write_spec "$@"
	ctl check "/etc/rbd-volume/volumes/$1.toml" >/dev/null ||
		fail "the harness wrote an invalid spec: $(ctl check "/etc/rbd-volume/volumes/$1.toml" | head -n 1)"
}

# spec NAME [SIZE]: written, and known to the daemon. Only start_stop starts a
# volume right after writing its spec, as an operator would.
spec() {
	spec_now "$@"
	wait_for 10 ctl status "$1" || fail "rbd-volumed did not pick up the spec of $1 within 10 s"
}

# The image's file checksum, read on this machine from `rbd export` through a
# read-only loop mount in a private mount namespace.
image_file_sha256() { # image_file_sha256 IMAGE PATH-IN-FS
	local img=$SYS_WORK/$1.img mnt=$SYS_WORK/$1.mnt sum
	rm -f "$img"
	rbd --conf "$CEPH_CONF" --id admin --keyring "$CEPH_ADMIN_KEYRING" export "$CEPH_POOL/$1" "$img" \
		>/dev/null 2>&1 || fail "rbd export $CEPH_POOL/$1 failed"
	e2fsck -fn "$img" >/dev/null 2>&1 || fail "the filesystem in image $1 has errors (e2fsck -fn)"
	! dumpe2fs -h "$img" 2>/dev/null | grep -q needs_recovery ||
		fail "the filesystem in image $1 was not unmounted (its journal needs recovery)"
	mkdir -p "$mnt"
	# shellcheck disable=SC2016 # expanded inside
	sum=$(unshare -m --propagation private sh -c 'mount -o ro,loop "$1" "$2" || exit 1
		sha256sum "$2/$3"; status=$?; umount "$2"; exit $status' sh "$img" "$mnt" "$2") ||
		fail "cannot read $2 from the exported image $1"
	rm -rf "$img" "$mnt"
	echo "${sum%% *}"
}

# --- the cases ---------------------------------------------------------------------------

# Installed where the units expect, units loaded, the bus policy in force (a
# denial needs no daemon), the daemon bus-activated by the first call.
case_install_layout() {
	local path missing=() out
	for path in "${SYS_INSTALLED[@]}"; do
		in_ct test -e "$path" || missing+=("$path")
	done
	[ ${#missing[@]} -eq 0 ] || fail "not installed in the container: ${missing[*]}"
	in_ct systemctl cat rbd-volumed.service rbd-volume@x.service rbd-fuse@x.service >/dev/null ||
		fail "systemctl cat cannot show the units"
	[ "$(unit_prop rbd-volumed.service FragmentPath)" = "$SYS_UNITDIR/rbd-volumed.service" ] ||
		fail "rbd-volumed.service is loaded from $(unit_prop rbd-volumed.service FragmentPath)"
	out=$(unit_prop rbd-volume@x.service ExecStart)
	[[ $out == *"path=$SYS_BINDIR/rbd-volumectl "*"argv[]=$SYS_BINDIR/rbd-volumectl up x "* ]] ||
		fail "rbd-volume@x runs: $out"
	out=$(unit_prop rbd-volumed.service ExecStart)
	[[ $out == *"path=$SYS_SBINDIR/rbd-volumed "* ]] || fail "rbd-volumed runs: $out"
	for path in /run/rbd-volume /run/rbd-volume/volumes /etc/rbd-volume/volumes; do
		[ "$(in_ct stat -c %a "$path" 2>/dev/null)" = 755 ] || fail "tmpfiles did not make $path 0755"
	done
	in_ct busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
		ListActivatableNames | grep -qF '"org.rbdvolume1"' || fail "org.rbdvolume1 is not activatable"
	in_ct systemctl -q is-active rbd-volumed.service && fail "rbd-volumed runs before anything asked for it"
	out=$(as_nobody busctl --system call org.rbdvolume1 /org/rbdvolume1 org.rbdvolume1.Manager Up sb x false 2>&1) &&
		fail "nobody may call Up: $out"
	[[ $out == *"Access denied"* ]] || fail "Up as nobody: expected a denial by the bus policy, got: $out"
	# A read-only call by anyone activates the daemon through systemd.
	out=$(as_nobody busctl --system call org.rbdvolume1 /org/rbdvolume1 org.rbdvolume1.Manager ListVolumes 2>&1) ||
		fail "ListVolumes as nobody failed: $out"
	# The name may be owned, and the call answered, before READY=1.
	wait_for 10 in_ct systemctl -q is-active rbd-volumed.service ||
		fail "the call did not activate rbd-volumed.service ($(unit_prop rbd-volumed.service ActiveState))"
	out=$(in_ct busctl --system status org.rbdvolume1) || fail "busctl status org.rbdvolume1 failed"
	[[ $out == *"PID=$(unit_prop rbd-volumed.service MainPID)"$'\n'* ]] ||
		fail "org.rbdvolume1 is not owned by the daemon's main process"
	in_ct busctl --system introspect org.rbdvolume1 /org/rbdvolume1 | grep -q '^org\.rbdvolume1\.Manager ' ||
		fail "/org/rbdvolume1 has no org.rbdvolume1.Manager interface"
}

case_start_stop() {
	local sum
	spec_now a
	start_units rbd-volume@a.service
	expect_phase a up
	in_ct mountpoint -q /srv/a || fail "/srv/a is not mounted"
	in_ct dd if=/dev/urandom of=/srv/a/data bs=1M count=8 status=none
	in_ct sync /srv/a/data
	sum=$(in_ct sha256sum /srv/a/data)
	stop_units rbd-volume@a.service
	assert_nothing_left
	[ "$(unit_prop rbd-fuse@a.service ActiveState)" = inactive ] || fail "rbd-fuse@a is $(unit_prop rbd-fuse@a.service ActiveState)"
	[ "$(image_file_sha256 a data)" = "${sum%% *}" ] || fail "the data in image a differs from what was written"
}

slow_format_undo() {
	in_ct sh -c 'if [ -e /etc/rbdv-slow/saved ]; then
		mv -f /etc/rbdv-slow/saved /etc/rbd-volume/rbd-volumed.toml
	else rm -f /etc/rbd-volume/rbd-volumed.toml; fi'
	in_ct rm -rf /etc/rbdv-slow /run/systemd/system/rbd-volume@slow.service.d
	in_ct systemctl daemon-reload
	in_ct systemctl restart rbd-volumed.service
}

# A first format that outlasts the unit's start timeout: rbd-volumectl up
# extends it at each step and while one lasts (EXTEND_TIMEOUT_USEC), and the
# unit's status names the step as it goes. The unit allows a start 8 s here,
# and mkfs.ext4 takes 20 s longer than it would (a wrapper that sleeps first).
case_long_first_format() {
	local started status="" now last="" elapsed
	# the daemon's own file as installed comes back afterwards, whatever happens
	in_ct mkdir -p /etc/rbdv-slow
	in_ct sh -c 'if [ -e /etc/rbd-volume/rbd-volumed.toml ]; then
		cp -a /etc/rbd-volume/rbd-volumed.toml /etc/rbdv-slow/saved; fi'
	trap slow_format_undo EXIT
	printf '#!/bin/sh\nsleep 20\nexec /usr/sbin/mkfs.ext4 "$@"\n' | put_file /etc/rbdv-slow/mkfs.ext4
	in_ct chmod 755 /etc/rbdv-slow/mkfs.ext4
	printf '[tools]\nmkfs-ext4 = "/etc/rbdv-slow/mkfs.ext4"\n' | put_file /etc/rbd-volume/rbd-volumed.toml
	in_ct systemctl restart rbd-volumed.service
	printf '[Service]\nTimeoutStartSec=8s\n' | put_file /run/systemd/system/rbd-volume@slow.service.d/timeout.conf
	in_ct systemctl daemon-reload
	spec slow
	started=$(sys_now_ms)
	in_ct systemctl start --no-block rbd-volume@slow.service
	while [ "$(unit_prop rbd-volume@slow.service ActiveState)" = activating ]; do
		# a heartbeat's status (every 10 s): the format, seconds into it
		now=$(unit_prop rbd-volume@slow.service StatusText)
		if [[ $now =~ format-if-blank.*,\ ([0-9]+)\ s$ ]] && [ "${BASH_REMATCH[1]}" -ge 5 ]; then status=$now; fi
		[ "$now" = "$last" ] || sys_log "the unit's status: $now"
		last=$now
		[ $(($(sys_now_ms) - started)) -lt 120000 ] || fail "still starting after 120 s"
		sleep 1
	done
	elapsed=$(($(sys_now_ms) - started))
	[ "$(unit_prop rbd-volume@slow.service ActiveState)" = active ] ||
		fail "the unit gave up: $(unit_prop rbd-volume@slow.service Result) after $elapsed ms $(failed_starts rbd-volume@slow.service)"
	[ "$elapsed" -ge 20000 ] || fail "up in $elapsed ms: the slow mkfs did not run, the case shows nothing"
	[ -n "$status" ] || fail "no heartbeat: the unit's status never showed the format seconds into it"
	sys_log "up in $elapsed ms under an 8 s start timeout; the status showed '$status'"
	expect_phase slow up
	stop_units rbd-volume@slow.service
}

case_daemon_restart_keeps_io() {
	local v mounts loops pid
	for v in b1 b2 b3; do spec "$v"; done
	start_units rbd-volume@b1.service rbd-volume@b2.service rbd-volume@b3.service
	# Synchronous 256 KiB writes to b1 until told to stop (2 min at most).
	# shellcheck disable=SC2016 # expanded inside
	in_ct systemd-run --quiet --unit=rbdv-writer -p RemainAfterExit=yes /bin/bash -c '
		i=0
		while [ ! -e /run/rbdv-writer.stop ]; do
			[ $SECONDS -lt 120 ] || exit 2
			dd if=/dev/urandom of=/srv/b1/w$((i % 4)) bs=64k count=4 oflag=sync status=none || exit 1
			i=$((i + 1))
		done
		echo "$i writes"'
	mounts=$(mounts_of b1 b2 b3)
	loops=$(loops_of b1 b2 b3)
	[ "$(echo "$mounts" | wc -l)" -eq 6 ] || fail "expected 6 mounts of b1..b3, found: $mounts"
	[ "$(echo "$loops" | wc -l)" -eq 3 ] || fail "expected 3 loop devices of b1..b3, found: $loops"

	pid=$(unit_prop rbd-volumed.service MainPID)
	in_ct systemctl restart rbd-volumed.service
	[ "$(unit_prop rbd-volumed.service MainPID)" != "$pid" ] || fail "restart kept MainPID $pid"
	pid=$(unit_prop rbd-volumed.service MainPID)
	in_ct kill -KILL "$pid"
	wait_for 30 daemon_replaced "$pid" || fail "systemd did not restart rbd-volumed after kill -9 of $pid"
	[ "$(unit_prop rbd-volumed.service NRestarts)" -ge 1 ] || fail "NRestarts did not count the restart"
	wait_for 60 all_phases_are up b1 b2 b3 || fail "b1..b3 are not all up again: $(not_in_phase up b1 b2 b3)"

	[ "$(mounts_of b1 b2 b3)" = "$mounts" ] || fail "mounts changed: before: $mounts; after: $(mounts_of b1 b2 b3)"
	[ "$(loops_of b1 b2 b3)" = "$loops" ] || fail "loop devices changed: before: $loops; after: $(loops_of b1 b2 b3)"
	in_ct touch /run/rbdv-writer.stop
	wait_for 30 unit_in_state rbdv-writer.service exited || fail "the writer did not finish"
	[ "$(unit_prop rbdv-writer.service ExecMainStatus)" = 0 ] ||
		fail "the writer failed (status $(unit_prop rbdv-writer.service ExecMainStatus)): $(in_ct journalctl --no-pager -q -n 3 -u rbdv-writer.service | tr '\n' ' ')"
	sys_log "writer: $(in_ct journalctl --no-pager -q -o cat -u rbdv-writer.service | grep writes | tail -n 1)"
	in_ct systemctl stop rbdv-writer.service
	in_ct rm -f /run/rbdv-writer.stop
}

case_fuse_kill_degraded() {
	local pid restarts
	spec k1
	start_units rbd-volume@k1.service
	pid=$(unit_prop rbd-fuse@k1.service MainPID)
	restarts=$(unit_prop rbd-fuse@k1.service NRestarts)
	[ "$pid" != 0 ] || fail "rbd-fuse@k1 has no main process"
	in_ct kill -KILL "$pid"
	wait_for 30 fuse_restarted "$pid" "$restarts" || fail "systemd did not restart rbd-fuse@k1"
	# The resync (60 s) would find it too; the margin covers that.
	wait_for 90 degraded_mapper_lost k1 ||
		fail "k1 did not turn degraded with MapperLost: phase $(vol_field k1 phase), conditions $(vol_field k1 conditions)"
	in_ct timeout 330 systemctl stop rbd-volume@k1.service || fail "systemctl stop rbd-volume@k1 failed"
	assert_nothing_left
}

fuse_restarted() { # fuse_restarted OLD-PID OLD-NRESTARTS
	[ "$(unit_prop rbd-fuse@k1.service NRestarts)" -gt "$2" ] &&
		[ "$(unit_prop rbd-fuse@k1.service ActiveState)" = active ] &&
		[ "$(unit_prop rbd-fuse@k1.service MainPID)" != "$1" ]
}

degraded_mapper_lost() { vol_phase_is "$1" degraded && vol_condition "$1" MapperLost; }

# Unmounted by hand, mounted again long before the 60 s resync: the daemon
# reacts to the mount table's change.
case_publish_restored_event_driven() {
	local before ms
	spec d1
	start_units rbd-volume@d1.service
	before=$(in_ct findmnt -n -o SOURCE,FSTYPE --mountpoint /srv/d1) || fail "/srv/d1 is not mounted"
	# shellcheck disable=SC2016 # expanded inside
	ms=$(in_ct bash -c 'umount /srv/d1 || exit 2
		t0=$EPOCHREALTIME; t0=${t0//[.,]/}
		while ! mountpoint -q /srv/d1; do
			now=$EPOCHREALTIME; now=${now//[.,]/}
			[ $((now - t0)) -lt 30000000 ] || { echo timeout; exit 0; }
			sleep 0.01
		done
		now=$EPOCHREALTIME; now=${now//[.,]/}
		echo $(((now - t0) / 1000))') || fail "cannot unmount /srv/d1"
	[ "$ms" != timeout ] || fail "/srv/d1 was not mounted again within 30 s"
	sys_log "latency: $ms ms"
	[ "$ms" -lt 5000 ] || fail "/srv/d1 came back after $ms ms, not within 5 s"
	[ "$(in_ct findmnt -n -o SOURCE,FSTYPE --mountpoint /srv/d1)" = "$before" ] ||
		fail "/srv/d1 came back as $(in_ct findmnt -n -o SOURCE,FSTYPE --mountpoint /srv/d1), was $before"
}

# expect_all_up LABEL NAME...: every start returned, so every volume converged
# once; yet a read at that instant may show one "pending" while a no-op pass
# (started by the mount events of the others) runs. Such a read is logged
# with what it showed; only a volume not up within 10 s fails the case.
expect_all_up() {
	local label=$1
	shift
	all_phases_are up "$@" && return 0
	sys_log "not all up when the last start returned ($label): $(ctl status --json 2>&1 |
		python3 -c 'import json, sys
try:
    vs = json.load(sys.stdin)["volumes"]
    print(" ".join("%s=%s%s" % (v["name"], v["phase"], "(busy)" if v["busy"] else "") for v in vs if v["phase"] != "up"))
except Exception as e:
    print("status unreadable:", e)')"
	wait_for 10 all_phases_are up "$@" || fail "not all $# are up ($label): $(not_in_phase up "$@")"
}

# fifty_units PREFIX: names and units of 50 fresh volumes (fuse, ext4, 64 MiB)
fifty_units() {
	local n
	FIFTY_NAMES=() FIFTY_UNITS=()
	for n in $(seq -w 0 49); do
		FIFTY_NAMES+=("$1$n")
		FIFTY_UNITS+=("rbd-volume@$1$n.service")
		write_spec "$1$n" 64M
	done
	spec "${1}00" 64M
}

# surveys_so_far: the daemon's count of its surveys (the Manager's Surveys property)
surveys_so_far() {
	in_ct busctl get-property org.rbdvolume1 /org/rbdvolume1 org.rbdvolume1.Manager Surveys |
		awk '{print $2}'
}

# Fifty volumes started in one `systemctl start` against the same work one unit
# at a time: two sets of fresh images (create, map, mkfs, mount, bind each), one
# by one first, so the set started at once meets the warmer cluster no more
# than the other; the same for stopping. The targets (at once at most a third
# of one by one) are measured and printed here, not asserted: a figure of a
# shared machine is no pass/fail verdict (docs/performance.md has the runs).
# With them, how busy the machine's CPUs were: on a machine that runs nothing
# else, the same work at once cannot take less than that share of the
# one-by-one time, so the one-by-one share is the floor of the ratio.
case_fifty_volumes() {
	local sequential_names sequential_units unit started seq_up seq_down up down failed surveys
	local ticks seq_up_busy seq_down_busy up_busy down_busy daemon seq_up_daemon up_daemon

	fifty_units s
	sequential_names=("${FIFTY_NAMES[@]}") sequential_units=("${FIFTY_UNITS[@]}")
	started=$(sys_now_ms) ticks=$(cpu_ticks) daemon=$(daemon_cpu_ms)
	for unit in "${sequential_units[@]}"; do start_units "$unit"; done
	seq_up=$(elapsed_s "$started") seq_up_busy=$(busy_since "$ticks")
	seq_up_daemon=$((($(daemon_cpu_ms) - daemon) / 50))
	sys_log "one by one, up:"
	timeline_since "$started"
	expect_all_up "one by one" "${sequential_names[@]}"
	started=$(sys_now_ms) ticks=$(cpu_ticks)
	for unit in "${sequential_units[@]}"; do stop_units "$unit"; done
	seq_down=$(elapsed_s "$started") seq_down_busy=$(busy_since "$ticks")
	sys_log "one by one, down:"
	timeline_since "$started"
	assert_nothing_left

	fifty_units c
	surveys=$(surveys_so_far)
	started=$(sys_now_ms) ticks=$(cpu_ticks) daemon=$(daemon_cpu_ms)
	start_units "${FIFTY_UNITS[@]}"
	up=$(elapsed_s "$started") up_busy=$(busy_since "$ticks")
	up_daemon=$((($(daemon_cpu_ms) - daemon) / 50))
	sys_log "at once, up:"
	timeline_since "$started"
	expect_all_up "all at once" "${FIFTY_NAMES[@]}"
	[ "$(mounts_of "${FIFTY_NAMES[@]}" | wc -l)" -eq 100 ] ||
		fail "expected 100 mounts, found $(mounts_of "${FIFTY_NAMES[@]}" | wc -l)"
	sleep 1 # the burst's survey runs once the table has been quiet for 200 ms
	surveys=$(($(surveys_so_far) - surveys))
	started=$(sys_now_ms) ticks=$(cpu_ticks)
	stop_units "${FIFTY_UNITS[@]}"
	down=$(elapsed_s "$started") down_busy=$(busy_since "$ticks")
	sys_log "at once, down:"
	timeline_since "$started"
	assert_nothing_left
	failed=$(in_ct systemctl list-units --plain --no-legend --state=failed 'rbd-*' | awk '{print $1}')
	[ -z "$failed" ] || fail "failed units: $(echo "$failed" | tr '\n' ' ')"

	sys_log "50 volumes up: one by one $seq_up s, at once $up s, ratio $(ratio_of "$up" "$seq_up")"
	sys_log "50 volumes down: one by one $seq_down s, at once $down s, ratio $(ratio_of "$down" "$seq_down")"
	sys_log "surveys while 50 volumes came up at once (150 mounts): $surveys"
	sys_log "rbd-volumed's CPU per volume up: one by one $seq_up_daemon ms, at once $up_daemon ms"
	sys_log "CPUs busy up: one by one $seq_up_busy, at once $up_busy; down: one by one $seq_down_busy, at once $down_busy ($(nproc --all) CPUs)"
}

case_unprivileged_read_only() {
	local out rc verb
	spec f1
	as_nobody "$SYS_BINDIR/rbd-volumectl" list >/dev/null || fail "rbd-volumectl list as nobody failed"
	as_nobody "$SYS_BINDIR/rbd-volumectl" status >/dev/null || fail "rbd-volumectl status as nobody failed"
	as_nobody "$SYS_BINDIR/rbd-volumectl" status --json | python3 -c 'import json, sys; json.load(sys.stdin)' ||
		fail "rbd-volumectl status --json as nobody did not print JSON"
	for verb in up down; do
		rc=0
		out=$(as_nobody "$SYS_BINDIR/rbd-volumectl" "$verb" f1 2>&1) || rc=$?
		[ $rc -eq 4 ] || fail "rbd-volumectl $verb as nobody exited $rc, expected 4: $out"
		grep -qiE 'denied|root' <<<"$out" || fail "rbd-volumectl $verb as nobody says: $out"
	done
	out=$(as_nobody busctl --system call org.rbdvolume1 /org/rbdvolume1 org.rbdvolume1.Manager Up sb f1 false 2>&1) &&
		fail "the bus let nobody call Up"
	[[ $out == *"Access denied"* ]] || fail "Up as nobody on the bus: $out"
	[ "$(vol_field f1 intent 2>/dev/null)" != up ] || fail "f1's intent became up"
	in_ct mountpoint -q /srv/f1 && fail "/srv/f1 got mounted"
	return 0
}

monitor_saw() { [ "$(in_ct grep -c -- "$2" /run/rbdv-monitor/out)" = "$1" ]; } # monitor_saw COUNT PATTERN

# rbd-volumectl monitor as nobody, its output a file: each phase change of
# an up and a down as it happens, flushed line by line, across a restart of
# the daemon; SIGTERM ends it, 0.
case_monitor_follows_phases() {
	local out
	spec m1
	in_ct install -d -o nobody /run/rbdv-monitor
	# shellcheck disable=SC2016 # expanded by that shell
	in_ct systemd-run --quiet --unit=rbdv-monitor -p User=nobody -p KillMode=mixed /bin/sh -c \
		'"$0" monitor m1 >/run/rbdv-monitor/out & p=$!; trap "kill -TERM $p" TERM
		wait $p; wait $p; echo $? >/run/rbdv-monitor/rc' "$SYS_BINDIR/rbd-volumectl"
	trap "in_ct systemctl stop rbdv-monitor.service 2>/dev/null || true; in_ct rm -rf /run/rbdv-monitor" EXIT
	# Connected to the bus: its matches follow before it waits.
	wait_for 10 in_ct sh -c "busctl --system list --no-legend | grep -q rbd-volumectl" ||
		fail "the monitor never connected"
	sleep 0.5
	start_units rbd-volume@m1.service
	wait_for 10 in_ct grep -q '^[0-9:.]* m1: up (was pending)$' /run/rbdv-monitor/out ||
		fail "no 'up (was pending)' line: $(in_ct cat /run/rbdv-monitor/out)"
	stop_units rbd-volume@m1.service
	wait_for 10 in_ct grep -q '^[0-9:.]* m1: down (was ' /run/rbdv-monitor/out ||
		fail "no 'down' line: $(in_ct cat /run/rbdv-monitor/out)"
	# A new daemon is followed: its changes still come through.
	in_ct systemctl restart rbd-volumed.service
	wait_for 10 in_ct grep -q '^[0-9:.]* rbd-volumed started$' /run/rbdv-monitor/out ||
		fail "no 'started' line: $(in_ct cat /run/rbdv-monitor/out)"
	start_units rbd-volume@m1.service
	wait_for 10 monitor_saw 2 ' m1: up (was pending)$' ||
		fail "the new daemon's 'up' is not shown: $(in_ct cat /run/rbdv-monitor/out | tr '\n' '|')"
	stop_units rbd-volume@m1.service
	in_ct systemctl stop rbdv-monitor.service
	out=$(in_ct cat /run/rbdv-monitor/out)
	grep -q ' rbd-volumed stopped$' <<<"$out" || fail "no 'stopped' line: $out"
	sys_log "monitor: $(tr '\n' '|' <<<"$out")"
	[ "$(in_ct cat /run/rbdv-monitor/rc)" = 0 ] || fail "the monitor ended with $(in_ct cat /run/rbdv-monitor/rc) on SIGTERM"
	if grep -qvE '^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3} (m1: |rbd-volumed (stopped|started)$)' <<<"$out"; then
		fail "a line that is not a phase change of m1: $out"
	fi
}

# rbd-volume-metrics.service, as its timer starts it: the file node_exporter
# reads, whole; without node_exporter's directory the service does nothing.
case_metrics_for_node_exporter() {
	local out
	spec x1
	start_units rbd-volume@x1.service
	in_ct systemctl start rbd-volume-metrics.service || fail "it failed without the directory"
	in_ct test ! -e /var/lib/prometheus || fail "it wrote without node_exporter's directory"
	in_ct mkdir -p /var/lib/prometheus/node-exporter
	trap "in_ct rm -rf /var/lib/prometheus" EXIT
	in_ct systemctl start rbd-volume-metrics.service || fail "rbd-volume-metrics.service failed"
	out=$(in_ct cat /var/lib/prometheus/node-exporter/rbd-volume.prom)
	for line in 'rbdvolume_up 1' 'rbdvolume_volume_phase{volume="x1",phase="up"} 1' \
		'rbdvolume_volume_busy{volume="x1"} 0' 'rbdvolume_volume_retries_total{volume="x1"} 0'; do
		grep -qxF -- "$line" <<<"$out" || fail "no '$line' in: $out"
	done
	grep -q '^rbdvolume_volume_step_seconds{volume="x1",step="mount-staging"} [0-9]*\.[0-9]\{6\}$' <<<"$out" ||
		fail "no duration of x1's mount-staging in: $out"
	[ "$(in_ct ls /var/lib/prometheus/node-exporter)" = rbd-volume.prom ] ||
		fail "more than the one file: $(in_ct ls /var/lib/prometheus/node-exporter)"
	[ "$(in_ct stat -c %a /var/lib/prometheus/node-exporter/rbd-volume.prom)" = 644 ] || fail "not 0644"
}

case_invalid_spec_reported() {
	local mounts where="bad.toml:3:8"
	spec a
	start_units rbd-volume@a.service
	mounts=$(mounts_of a)
	# image.name must be a string: the error is at the value, line 3, column 8.
	put_file /etc/rbd-volume/volumes/bad.toml <<'EOF'
[image]
pool = "rbd"
name = 42
EOF
	wait_for 30 bad_reported "$where" ||
		fail "volume bad: phase $(vol_field bad phase 2>&1), conditions $(vol_field bad conditions 2>&1); expected invalid with SpecInvalid at $where"
	in_ct journalctl --no-pager -q -u rbd-volumed.service | grep -qF "$where" ||
		fail "the daemon's journal does not mention $where"
	expect_phase a up
	[ "$(mounts_of a)" = "$mounts" ] || fail "a's mounts changed: $mounts -> $(mounts_of a)"
}

bad_reported() { vol_phase_is bad invalid && vol_condition bad SpecInvalid "$1"; }

# rbd-volumectl down while rbd-volume@NAME waits to start again (its try
# found no cluster: exit 75, and Restart= starts it again 30 s later): the
# down stops the unit, says so, and no later start brings the volume up.
case_down_stops_waiting_unit() {
	local out
	write_spec away
	# a monitor nobody serves: the try ends with 75 after the connect timeout
	in_ct sed -i 's|^\[cluster\]$|[cluster]\nmonitors = ["127.0.0.1:9"]|' /etc/rbd-volume/volumes/away.toml
	wait_for 10 ctl status away || fail "rbd-volumed did not pick up the spec of away within 10 s"
	! on_node systemctl start rbd-volume@away.service 2>/dev/null || fail "rbd-volume@away started without a cluster"
	wait_for 30 unit_in_sub_state rbd-volume@away.service auto-restart ||
		fail "rbd-volume@away does not wait to start again: $(unit_prop rbd-volume@away.service SubState)," \
			"exit $(unit_prop rbd-volume@away.service ExecMainStatus)"
	out=$(ctl down away 2>&1) || fail "rbd-volumectl down away: $out"
	grep -qF "stopped rbd-volume@away.service, which waited to start again" <<<"$out" ||
		fail "the down did not say it stopped the waiting unit: $out"
	[ "$(unit_prop rbd-volume@away.service SubState)" = dead ] ||
		fail "rbd-volume@away is $(unit_prop rbd-volume@away.service SubState) after the down"
	expect_phase away down
}

# A systemctl stop while the unit's start still runs (its up waits on a
# monitor nobody serves) kills the up and runs no ExecStop=: ExecStopPost=
# sets the intent down, so nothing brings the volume up behind the stopped
# unit, and the stop returns with the volume down.
case_stop_during_start() {
	write_spec cut
	in_ct sed -i 's|^\[cluster\]$|[cluster]\nmonitors = ["127.0.0.1:9"]|' /etc/rbd-volume/volumes/cut.toml
	wait_for 10 ctl status cut || fail "rbd-volumed did not pick up the spec of cut within 10 s"
	on_node systemctl start --no-block rbd-volume@cut.service
	wait_for 10 unit_in_sub_state rbd-volume@cut.service start ||
		fail "rbd-volume@cut is not starting: $(unit_prop rbd-volume@cut.service SubState)"
	wait_for 10 test "$(vol_field cut intent)" = up || fail "the start did not set the intent up"
	on_node systemctl stop rbd-volume@cut.service || fail "systemctl stop rbd-volume@cut failed"
	# systemd 252 calls a oneshot start cut short by its stop failed ('signal')
	case $(unit_prop rbd-volume@cut.service SubState) in
	dead | failed) ;;
	*) fail "rbd-volume@cut is $(unit_prop rbd-volume@cut.service SubState) after the stop" ;;
	esac
	[ "$(vol_field cut intent)" = down ] || fail "the intent of cut is '$(vol_field cut intent)' after the stop"
	expect_phase cut down
}

unit_in_sub_state() { [ "$(unit_prop "$1" SubState)" = "$2" ]; } # unit_in_sub_state UNIT STATE

# A poweroff with a volume up and unsynced data: rbd-volume@ brings the volume
# down while the daemon, the network and the mapper still run (the mapper
# units are not stopped by the shutdown transaction), and the data is in the
# image, on a clean filesystem. Boots a fresh container afterwards.
case_shutdown_clean() {
	local sum leader journal order
	spec s1
	start_units rbd-volume@s1.service
	# A persistent journal, to read the shutdown afterwards from the overlay.
	in_ct mkdir -p /var/log/journal
	in_ct journalctl --flush
	in_ct dd if=/dev/urandom of=/srv/s1/data bs=1M count=16 status=none
	sum=$(in_ct sha256sum /srv/s1/data)
	leader=$SYS_LEADER
	in_ct systemctl poweroff --no-block
	wait_for 120 container_gone "$leader" || fail "the container did not power off in 120 s"
	journal=$(journalctl --no-pager -q -o cat --file "$SYS_ROOT/var/log/journal/*/*.journal" \
		-u rbd-volume@s1.service -u rbd-fuse@s1.service 2>&1)
	sys_restart_sandbox
	order=$(grep -E '^Stopped rbd-(volume|fuse)@s1' <<<"$journal" | cut -d' ' -f2)
	[ "$order" = "rbd-fuse@s1.service"$'\n'"rbd-volume@s1.service" ] ||
		fail "expected rbd-fuse@s1 stopped (by the daemon) before rbd-volume@s1 finished stopping: $(echo "$journal" | tr '\n' ';')"
	! grep -qiE 'fail|kill' <<<"$journal" || fail "a unit failed or was killed at shutdown: $(echo "$journal" | tr '\n' ';')"
	[ "$(image_file_sha256 s1 data)" = "${sum%% *}" ] || fail "the data in image s1 differs from what was written"
}

container_gone() { ! sys_alive "$1"; }
