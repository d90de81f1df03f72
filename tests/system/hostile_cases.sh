# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# hostile_cases.sh: a host that misbehaves, sourced by run.sh after cases.sh.
# Symbolic links in mount paths, specs aimed at rbd-volume's own state,
# hostile files in the spec directory, bytes that are no UTF-8, data with no
# signature, lost ownership records, a stop while the daemon is away, a
# stopped mapper and a frozen cluster, and kill -9 of the daemon across the
# fuse driver's map and unmap windows. Each must be refused or converge, and
# leave nothing behind.

SYS_CASES+=(
	hostile_symlinks
	hostile_unusable_targets
	hostile_own_state
	hostile_bad_spec_files
	hostile_non_utf8
	hostile_not_blank
	hostile_lost_record
	hostile_stop_without_daemon
	hostile_stuck_mapper
	hostile_stuck_cluster
	hostile_kill_map_window
	hostile_kill_down
)

# hostile_spec NAME PUBLISH [STAGING [CREATE]]: a fuse/ext4 spec; CREATE "no": the image exists
hostile_spec() {
	local staging="" create=$'[image.create]\nsize = "64M"'
	grep -qxF -- "$1" "$SYS_WORK/images" 2>/dev/null || echo "$1" >>"$SYS_WORK/images"
	[ -z "${3:-}" ] || staging=$'[staging]\npath = "'"$3"'"'
	[ "${4:-}" != no ] || create=""
	put_file "/etc/rbd-volume/volumes/$1.toml" <<EOF
[image]
pool = "$CEPH_POOL"
name = "$1"
$create

[cluster]
conf = "$CEPH_CONF"
id = "$CEPH_TEST_ID"
keyring = "$CEPH_TEST_KEYRING"

[map]
driver = "fuse"

[filesystem]
type = "ext4"

$staging
[[publish]]
path = "$2"
EOF
	wait_for 10 ctl status "$1" || fail "rbd-volumed did not pick up the spec of $1"
}

mount_count() { # mount_count PREFIX: mounts in the container at or below PREFIX
	in_ct findmnt -rn -o TARGET | grep -c -E "^$1(/|\$)" || true
}

# run_within MS CMD...: CMD succeeds within MS milliseconds (it is run to the end either way)
run_within() {
	local limit=$1 started took
	shift
	started=$(sys_now_ms)
	"$@" >/dev/null 2>&1 || fail "'$*' failed"
	took=$(($(sys_now_ms) - started))
	sys_log "'$*' took $took ms"
	[ "$took" -le "$limit" ] || fail "'$*' took $took ms, more than $limit ms"
}

# answers_within MS CMD...: CMD ends (success or not) within MS milliseconds
answers_within() {
	local limit=$1 started took rc=0
	shift
	started=$(sys_now_ms)
	"$@" >/dev/null 2>&1 || rc=$?
	took=$(($(sys_now_ms) - started))
	sys_log "'$*' ended ($rc) after $took ms"
	[ "$took" -le "$limit" ] || fail "'$*' took $took ms, more than $limit ms"
}

start_refused() { # start_refused NAME: rbd-volume@NAME does not start
	in_ct timeout 120 systemctl start "rbd-volume@$1.service" >/dev/null 2>&1 &&
		fail "rbd-volume@$1 started"
	return 0
}

case_hostile_symlinks() {
	local etc var
	in_ct sh -c 'rm -rf /srv/lnk /srv/lnkdir /srv/stage-link
		ln -s /etc /srv/lnk && ln -s /etc /srv/lnkdir && ln -s /var/lib /srv/stage-link'
	etc=$(mount_count /etc)
	var=$(mount_count /var/lib)
	hostile_spec y1 /srv/lnk
	hostile_spec y2 /srv/lnkdir/sub
	hostile_spec y3 /srv/y3 /srv/stage-link/y3
	start_refused y1
	start_refused y2
	start_refused y3
	vol_condition y1 Conflict "'/srv/lnk' is a symbolic link (to '/etc')" ||
		fail "y1: $(vol_field y1 conditions)"
	vol_condition y2 Conflict "'/srv/lnkdir' is a symbolic link" || fail "y2: $(vol_field y2 conditions)"
	vol_condition y3 Conflict "'/srv/stage-link' is a symbolic link" ||
		fail "y3: $(vol_field y3 conditions)"
	in_ct test -e /etc/sub && fail "/etc/sub was made through the link"
	in_ct test -e /var/lib/y3 && fail "/var/lib/y3 was made through the link"
	# No retries pile mounts up: a minute later, still none.
	sleep 60
	[ "$(mount_count /etc)" = "$etc" ] || fail "mounts below /etc: $etc, then $(mount_count /etc)"
	[ "$(mount_count /var/lib)" = "$var" ] || fail "mounts below /var/lib: $var, then $(mount_count /var/lib)"
	[ "$(mount_count /srv/y3)" = 0 ] || fail "/srv/y3 is mounted without its staging mount"
	in_ct rm -f /srv/lnk /srv/lnkdir /srv/stage-link
}

# Targets no mount may go on (a link, a regular file, a foreign mount): the
# first look sees it, so nothing is done at all: no image made, no rbd-fuse
# started, nothing staged.
case_hostile_unusable_targets() {
	local name
	in_ct sh -c 'rm -rf /srv/t1 /srv/t2 /srv/t3; ln -s /etc /srv/t1; : >/srv/t2
		mkdir -p /srv/t3 && mount -t tmpfs someone-else /srv/t3'
	trap "in_ct sh -c 'umount /srv/t3; rm -rf /srv/t1 /srv/t2 /srv/t3' 2>/dev/null || true" EXIT
	hostile_spec t1 /srv/t1
	hostile_spec t2 /srv/t2
	hostile_spec t3 /srv/t3
	for name in t1 t2 t3; do start_refused $name; done
	vol_condition t1 Conflict "'/srv/t1' is a symbolic link" || fail "t1: $(vol_field t1 conditions)"
	vol_condition t2 Conflict "'/srv/t2' is not a directory" || fail "t2: $(vol_field t2 conditions)"
	vol_condition t3 Conflict "foreign-mount /srv/t3: mounted (tmpfs), not by rbd-volume" ||
		fail "t3: $(vol_field t3 conditions)"
	for name in t1 t2 t3; do
		! rbd_admin info "$CEPH_POOL/$name" >/dev/null 2>&1 || fail "the image of $name was made"
		[ "$(mount_count "/run/rbd-volume/staging/$name")" = 0 ] || fail "$name was staged"
		! in_ct systemctl -q is-active "rbd-fuse@$name.service" || fail "rbd-fuse@$name runs"
	done
	[ "$(in_ct findmnt -n -o SOURCE /srv/t3)" = someone-else ] || fail "the foreign mount on /srv/t3 changed"
}

case_hostile_own_state() {
	local out rc=0
	hostile_spec o1 /run/rbd-volume/owned
	hostile_spec o2 /srv/o2 /run/rbd-volume/intent
	out=$(ctl check /etc/rbd-volume/volumes/o1.toml /etc/rbd-volume/volumes/o2.toml 2>&1) || rc=$?
	[ $rc -eq 1 ] || fail "check exited $rc: $out"
	grep -qF "publish[0].path: expected a path outside rbd-volume's own state" <<<"$out" ||
		fail "check says: $out"
	grep -qF "staging.path: expected a path outside rbd-volume's own state" <<<"$out" ||
		fail "check says: $out"
	expect_phase o1 invalid
	expect_phase o2 invalid
	vol_condition o1 SpecInvalid "own state" || fail "o1: $(vol_field o1 conditions)"
	start_refused o1
	start_refused o2
	in_ct mountpoint -q /run/rbd-volume/owned && fail "something is mounted on /run/rbd-volume/owned"
	in_ct mountpoint -q /run/rbd-volume/intent && fail "something is mounted on /run/rbd-volume/intent"
	return 0
}

# The key of more than 16 dotted parts once crashed the daemon at every start.
case_hostile_bad_spec_files() {
	local pid restarts out rc=0 name
	spec g1
	start_units rbd-volume@g1.service
	pid=$(unit_prop rbd-volumed.service MainPID)
	restarts=$(unit_prop rbd-volumed.service NRestarts)
	in_ct python3 -c 'open("/etc/rbd-volume/volumes/deep.toml", "w").write("x." + "y." * 100000 + "z = 1\n")'
	in_ct mkfifo /etc/rbd-volume/volumes/fifo.toml
	in_ct python3 -c 'open("/etc/rbd-volume/volumes/huge.toml", "w").write("#" * (1100 * 1024) + "\n")'
	in_ct ln -s /dev/zero /etc/rbd-volume/volumes/zero.toml
	wait_for 15 all_phases_are invalid deep fifo huge zero ||
		fail "not all invalid: $(not_in_phase invalid deep fifo huge zero)"
	vol_condition deep SpecInvalid "more than 16 dotted parts" || fail "deep: $(vol_field deep conditions)"
	vol_condition fifo SpecInvalid "expected a file, found a FIFO" || fail "fifo: $(vol_field fifo conditions)"
	vol_condition huge SpecInvalid "at most 1 MiB" || fail "huge: $(vol_field huge conditions)"
	vol_condition zero SpecInvalid "found a character device" || fail "zero: $(vol_field zero conditions)"
	[ "$(unit_prop rbd-volumed.service MainPID)" = "$pid" ] || fail "rbd-volumed was restarted"
	[ "$(unit_prop rbd-volumed.service NRestarts)" = "$restarts" ] || fail "rbd-volumed crashed"
	run_within 2000 ctl status
	out=$(ctl check /etc/rbd-volume/volumes 2>&1) || rc=$?
	[ $rc -eq 1 ] || fail "check of the directory exited $rc: $out"
	for name in deep fifo huge zero; do
		grep -qF "/etc/rbd-volume/volumes/$name.toml" <<<"$out" || fail "check says nothing of $name: $out"
	done
	expect_phase g1 up
	spec g2
	start_units rbd-volume@g2.service
	expect_phase g2 up
	in_ct rm -f /etc/rbd-volume/volumes/fifo.toml /etc/rbd-volume/volumes/zero.toml
}

case_hostile_non_utf8() {
	local out
	spec u1
	start_units rbd-volume@u1.service
	# shellcheck disable=SC2016 # expanded inside
	in_ct sh -c 'cp /etc/rbd-volume/volumes/u1.toml "$(printf "/etc/rbd-volume/volumes/\377.toml")"'
	wait_for 15 vol_phase_is '\xff' invalid || fail "the escaped volume is not shown: $(ctl list 2>&1)"
	vol_condition '\xff' SpecInvalid "valid volume name" || fail "\\xff: $(vol_field '\xff' conditions)"
	out=$(ctl list 2>&1) || fail "list failed: $out"
	grep -q '^u1 ' <<<"$out" || fail "list does not show u1: $out"
	expect_phase u1 up
	# A record of bytes: moved aside, the volume still known as ours by its markers.
	in_ct sh -c 'printf "\377\000\001\nmapped-device\377=\n" >/run/rbd-volume/owned/u1'
	ctl reconcile u1 >/dev/null 2>&1 || true
	run_within 2000 ctl status
	expect_phase u1 up
	run_within 30000 in_ct systemctl stop rbd-volume@u1.service
	assert_nothing_left
	in_ct test -f /run/rbd-volume/owned/u1.damaged || fail "the damaged record was not kept aside"
	in_ct rm -f /run/rbd-volume/owned/u1.damaged
}

# hostile_image NAME DD-ARGS: a 64 MiB image with random bytes where DD-ARGS put them
hostile_image() {
	local file=$SYS_WORK/$1.raw
	rbd_admin rm "$CEPH_POOL/$1" >/dev/null 2>&1 || true
	truncate -s 64M "$file"
	# shellcheck disable=SC2086 # DD-ARGS are words
	dd if=/dev/urandom of="$file" $2 conv=notrunc status=none
	rbd_admin import "$file" "$CEPH_POOL/$1" >/dev/null 2>&1 || fail "cannot import image $1"
	rm -f "$file"
}

rbd_admin() { rbd --conf "$CEPH_CONF" --id admin --keyring "$CEPH_ADMIN_KEYRING" "$@"; }

image_sha256() { rbd_admin export "$CEPH_POOL/$1" - 2>/dev/null | sha256sum | cut -d' ' -f1; }

case_hostile_not_blank() {
	local name args before
	for name in n0 n64k n1m; do
		case $name in
		n0) args="bs=4k count=1" ;;
		n64k) args="bs=4k seek=16 count=1" ;;
		n1m) args="bs=1M count=1" ;;
		esac
		hostile_image "$name" "$args"
		before=$(image_sha256 "$name")
		hostile_spec "$name" "/srv/$name" "" no
		start_refused "$name"
		vol_condition "$name" Conflict "unknown-data" || fail "$name: $(vol_field "$name" conditions)"
		vol_condition "$name" Conflict "blkdiscard -z" || fail "$name does not say how to wipe it"
		[ "$(image_sha256 "$name")" = "$before" ] || fail "image $name changed"
	done
}

case_hostile_lost_record() {
	local how
	spec l1
	for how in deleted emptied directory; do
		start_units rbd-volume@l1.service
		case $how in
		deleted) in_ct rm /run/rbd-volume/owned/l1 ;;
		emptied) in_ct sh -c ': >/run/rbd-volume/owned/l1' ;;
		directory) in_ct rm -rf /run/rbd-volume/owned ;;
		esac
		ctl reconcile l1 >/dev/null 2>&1 || fail "reconcile after the record was $how: $(vol_field l1 conditions)"
		expect_phase l1 up
		stop_units rbd-volume@l1.service
		assert_nothing_left
	done
}

# systemd starts the daemon only after a stop ordered after it: down must not need it.
case_hostile_stop_without_daemon() {
	spec w1
	start_units rbd-volume@w1.service
	in_ct systemctl stop rbd-volumed.service
	run_within 10000 in_ct timeout 60 systemctl stop rbd-volume@w1.service
	[ "$(unit_prop rbd-volume@w1.service ActiveState)" = inactive ] ||
		fail "rbd-volume@w1 is $(unit_prop rbd-volume@w1.service ActiveState)"
	in_ct systemctl -q is-active rbd-volumed.service && fail "the stop started rbd-volumed"
	assert_nothing_left
	[ "$(in_ct cat /run/rbd-volume/intent/w1)" = down ] || fail "w1's intent is not down"
	in_ct systemctl start rbd-volumed.service
	wait_for 15 vol_phase_is w1 down || fail "w1 is $(vol_field w1 phase) after the daemon came back"
}

stuck_fuse_pid() { unit_prop "rbd-fuse@$1.service" MainPID; }

case_hostile_stuck_mapper() {
	local pid started
	spec s1
	spec s2
	spec s3
	start_units rbd-volume@s1.service rbd-volume@s2.service rbd-volume@s3.service
	pid=$(stuck_fuse_pid s1)
	# shellcheck disable=SC2064 # this pid, now
	trap "in_ct kill -CONT $pid 2>/dev/null || true" EXIT
	in_ct kill -STOP "$pid"
	ctl reconcile s1 >/dev/null 2>&1 || true
	wait_for 70 stopped_mapper s1 || fail "s1 is not degraded: $(vol_field s1 conditions)"
	run_within 2000 ctl status
	run_within 2000 ctl plan s2
	run_within 2000 ctl down s2
	run_within 2000 ctl up s2
	run_within 2000 ctl status s1
	run_within 10000 in_ct systemctl restart rbd-volumed.service
	run_within 2000 ctl status
	wait_for 15 stopped_mapper s1 || fail "s1 after the restart: $(vol_field s1 conditions)"
	expect_phase s3 up
	in_ct kill -CONT "$pid"
	# Nothing announces a mapper that resumes: the recheck of degraded volumes sees it.
	started=$(sys_now_ms)
	wait_for 15 vol_phase_is s1 up || fail "s1 after SIGCONT: $(vol_field s1 phase) $(vol_field s1 conditions)"
	sys_log "s1 up again $(elapsed_s "$started") s after SIGCONT"
}

stopped_mapper() { vol_phase_is "$1" degraded && vol_condition "$1" MapperLost "is stopped"; }

cluster_signal() { # cluster_signal SIGNAL: to the test cluster's monitor and OSD
	local file
	for file in "$SYS_WORK"/ceph/run/*.pid; do kill "-$1" "$(cat "$file")"; done
}

# With the cluster stopped (SIGSTOP: no answer, no refusal), nothing that
# asks the daemon waits for it, and a restart does not wait for c3's first
# up, whose call to the cluster waits out its 30 s bound: the stop leaves it
# after its 5 s grace, and the journal names it.
case_hostile_stuck_cluster() {
	local since
	spec c1
	spec c2
	spec c3
	start_units rbd-volume@c1.service rbd-volume@c2.service
	trap 'cluster_signal CONT 2>/dev/null || true' EXIT
	cluster_signal STOP
	sleep 2 # past FUSE's attribute cache: a getattr would reach rbd-fuse
	run_within 2000 ctl status
	run_within 2000 ctl plan c2
	answers_within 2000 ctl up c2
	answers_within 2000 ctl status c1
	run_within 2000 ctl up --no-wait c3
	wait_for 5 test "$(vol_field c3 busy)" = true || fail "c3's up is not running"
	since=$(in_ct date '+%Y-%m-%d %H:%M:%S')
	run_within 10000 in_ct systemctl restart rbd-volumed.service
	in_ct journalctl -q -o cat -u rbd-volumed.service --since "$since" |
		grep -q "volume 'c3': left in flight at stop" || fail "the stop did not say it left c3's up running"
	run_within 2000 ctl status
	cluster_signal CONT
	wait_for 30 all_phases_are up c1 c2 c3 || fail "not up after the cluster came back: $(not_in_phase up c1 c2 c3)"
}

# The daemon killed at a moment of a mapper unit's job, from the unit itself:
# a drop-in runs the kill point as the job begins (ExecStartPre=, ExecStop=:
# WHEN "before", while the daemon waits for the job) or ends (ExecStartPost=,
# ExecStopPost=: WHEN seconds later, while the daemon goes on with the
# volume). After a start the delayed kill runs in the background, in the
# unit's cgroup; after a stop in a transient unit of its own, since the stop
# empties that cgroup.
kill_point_install() { # kill_point_install UNIT
	put_file /usr/local/libexec/rbdv-kill-point <<'EOF'
#!/bin/sh
# rbdv-kill-point JOB PHASE: kills rbd-volumed if /run/rbdv-kill is armed for
# JOB ("start UNIT", "stop UNIT"): at PHASE "begin" for "before", at "end"
# after the armed delay (tests/system/hostile_cases.sh).
point=/run/rbdv-kill
[ -f $point/call ] && [ "$1" = "$(cat $point/call)" ] || exit 0
when=$(cat $point/when)
case $2:$when in
begin:before | end:[0-9]*) ;;
*) exit 0 ;;
esac
rm -f $point/call
pid=$(systemctl show -P MainPID rbd-volumed.service)
[ "$pid" -gt 0 ] || exit 0
if [ "$when" = before ]; then
	kill -KILL "$pid"
elif [ "${1%% *}" = start ]; then
	(sleep "$when" && kill -KILL "$pid") </dev/null >/dev/null 2>&1 &
else
	systemd-run --quiet --no-block --collect --unit="rbdv-kill-$$" /bin/sh -c "sleep $when; kill -KILL $pid"
fi
exit 0
EOF
	in_ct chmod 0755 /usr/local/libexec/rbdv-kill-point
	put_file "/run/systemd/system/$1.d/kill-point.conf" <<'EOF'
[Service]
ExecStartPre=/usr/local/libexec/rbdv-kill-point "start %n" begin
ExecStartPost=/usr/local/libexec/rbdv-kill-point "start %n" end
ExecStop=/usr/local/libexec/rbdv-kill-point "stop %n" begin
ExecStopPost=/usr/local/libexec/rbdv-kill-point "stop %n" end
EOF
	in_ct systemctl daemon-reload
}

kill_point_remove() { # kill_point_remove UNIT
	in_ct rm -rf "/run/systemd/system/$1.d" /usr/local/libexec/rbdv-kill-point /run/rbdv-kill
	in_ct systemctl daemon-reload
}

arm() { # arm CALL WHEN: kill the daemon at CALL ("start rbd-fuse@k.service"), WHEN a delay or "before"
	in_ct mkdir -p /run/rbdv-kill
	echo "$2" | put_file /run/rbdv-kill/when
	echo "$1" | put_file /run/rbdv-kill/call
}

# One kill point passed: the daemon came back, the volume converged, exactly once.
converged_once() { # converged_once NAME
	local loops
	expect_phase "$1" up
	loops=$(loops_of "$1" | wc -l)
	[ "$loops" -eq 1 ] || fail "$1 has $loops loop devices: $(loops_of "$1")"
	[ "$(in_ct pgrep -c -x rbd-fuse)" -eq 1 ] || fail "rbd-fuse processes: $(in_ct pgrep -a -x rbd-fuse | tr '\n' ' ')"
	in_ct mountpoint -q "/srv/$1" || fail "/srv/$1 is not mounted"
}

daemon_killed() { ! in_ct kill -0 "$1" 2>/dev/null; } # daemon_killed OLD-MAIN-PID

case_hostile_kill_map_window() {
	local when pid points=0
	kill_point_install rbd-fuse@kw.service
	spec kw
	# As rbd-fuse's start begins, then by time after it ended: the wait for its
	# file, the loop's attach and record, fsck, the mounts.
	for when in before 0 0.002 0.004 0.006 0.008 0.01 0.013 0.016 0.02 0.025 0.03 0.035 0.04 \
		0.05 0.06 0.07 0.08 0.09 0.1 0.12 0.14 0.17 0.2 0.25 0.3 0.4 0.5 0.7 1.0 1.5; do
		in_ct systemctl reset-failed rbd-volumed.service >/dev/null 2>&1 || true
		pid=$(unit_prop rbd-volumed.service MainPID)
		arm "start rbd-fuse@kw.service" "$when"
		in_ct timeout 120 systemctl start rbd-volume@kw.service ||
			fail "start with a kill at '$when' failed: $(failed_starts rbd-volume@kw.service)"
		wait_for 10 daemon_killed "$pid" || fail "the kill at '$when' did not happen"
		wait_for 30 daemon_replaced "$pid" || fail "systemd did not restart rbd-volumed after the kill at '$when'"
		converged_once kw
		stop_units rbd-volume@kw.service
		assert_nothing_left
		points=$((points + 1))
	done
	sys_log "$points kill points in the map window, each converged"
	kill_point_remove rbd-fuse@kw.service
}

case_hostile_kill_down() {
	local when delay pid points=0
	kill_point_install rbd-fuse@kd.service
	spec kd
	for when in before 0 0.2; do
		start_units rbd-volume@kd.service
		in_ct systemctl reset-failed rbd-volumed.service >/dev/null 2>&1 || true
		pid=$(unit_prop rbd-volumed.service MainPID)
		arm "stop rbd-fuse@kd.service" "$when"
		in_ct timeout 120 systemctl stop rbd-volume@kd.service || fail "stop with a kill at '$when' failed"
		wait_for 10 daemon_killed "$pid" || fail "the kill at '$when' did not happen"
		assert_nothing_left
		points=$((points + 1))
	done
	# Kills at moments of the unmounts and the detach, by time from the stop.
	for delay in 0 0.005 0.01 0.015 0.02 0.025 0.03 0.035 0.04 0.045 0.05 0.06 0.07 0.08 \
		0.09 0.1 0.11 0.12 0.13 0.15 0.17 0.2 0.23 0.26 0.3 0.35 0.4 0.5 0.7; do
		start_units rbd-volume@kd.service
		in_ct systemctl reset-failed rbd-volumed.service >/dev/null 2>&1 || true
		in_ct systemctl stop --no-block rbd-volume@kd.service
		sleep "$delay"
		in_ct systemctl kill --signal=KILL rbd-volumed.service || true
		wait_for 90 unit_in_state rbd-volume@kd.service dead ||
			fail "rbd-volume@kd did not stop after a kill at ${delay}s: $(unit_prop rbd-volume@kd.service ActiveState)"
		[ "$(unit_prop rbd-volume@kd.service Result)" = success ] ||
			fail "rbd-volume@kd stopped with $(unit_prop rbd-volume@kd.service Result) after a kill at ${delay}s"
		assert_nothing_left
		points=$((points + 1))
	done
	sys_log "$points kill points across down, each converged"
	kill_point_remove rbd-fuse@kd.service
}
