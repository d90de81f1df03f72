# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# lib.sh: the harness shared by the system suite (tests/system/run.sh) and the
# demo (scripts/demo.sh). Sourced, not run. It starts a throw-away Ceph
# cluster (tests/ceph/test-cluster.sh), boots systemd in a container over this
# machine's root (tests/system/sandbox.sh), installs a build into it, runs
# commands inside, and tears everything down again.
#
#   sys_missing BUILD_DIR     what this machine lacks to run it (empty: nothing)
#   sys_up BUILD_DIR          cluster, container, install; sets the CEPH_* and
#                             SYS_* variables below
#   sys_down                  tear it all down; safe to call more than once,
#                             from a trap, at any point of sys_up
#   in_ct CMD...              run CMD in the container (clean environment)
#   on_node CMD...            run CMD on the machine under test (here in_ct)
#   sys_skip_if_missing SUITE FLAG MISSING   77 (a skip), or 1 when FLAG=1
#   ctl ARGS...               rbd-volumectl ARGS in the container
#   put_file PATH             stdin to PATH in the container, atomically
#   write_spec NAME [SIZE]    a fuse/ext4 spec for NAME, published at /srv/NAME
#   vol_field NAME FIELD      one field of NAME in `rbd-volumectl status --json`
#   wait_for SECONDS CMD...   until CMD succeeds, looking every SYS_POLL (0.2) s; fails after SECONDS
#
# Knobs: RBDV_SYSTEM_LOOPS (loop devices bound into the container, 128),
# RBDV_CEPH_OSD_BYTES (the test cluster's memstore size, 3 GiB here).

SYS_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SYS_SANDBOX=$SYS_SRC/tests/system/sandbox.sh
SYS_CLUSTER=$SYS_SRC/tests/ceph/test-cluster.sh
SYS_WORK=""     # everything of one run: ceph/, sandbox/, logs
SYS_ROOT=""     # the container's root, as seen from here
SYS_LEADER=""   # the container's PID 1, as this machine numbers it
SYS_BUILD=""
# shellcheck disable=SC2034 # set by run.sh, read by cases.sh
SYS_CASE_LOOPS="" # loop devices when the current case began
# shellcheck disable=SC2034 # the cases and the demo use these
SYS_BINDIR="" SYS_SBINDIR="" SYS_UNITDIR=""
SYS_INSTALLED=() # every installed path, as the container sees it
# shellcheck disable=SC2034
CEPH_CONF="" CEPH_POOL="" CEPH_TEST_ID="" CEPH_TEST_KEYRING="" CEPH_ADMIN_KEYRING=""

sys_log() { printf '# %s\n' "$*"; }
sys_die() {
	printf 'system: ERROR: %s\n' "$*" >&2
	exit 1
}

sys_now_ms() {
	local now=$EPOCHREALTIME
	echo $((${now//[.,]/} / 1000))
}

# --- what a run needs ---------------------------------------------------------------

sys_missing() { # sys_missing BUILD_DIR: prints the first thing missing
	local tool
	if [ "$(id -u)" -ne 0 ]; then echo "needs root"; return; fi
	for tool in systemd-nspawn nsenter setpriv python3 meson ss ceph-mon ceph-osd rbd rbd-fuse; do
		command -v "$tool" >/dev/null || {
			echo "$tool not found (scripts/install-deps.sh installs it)"
			return
		}
	done
	[ -c /dev/fuse ] || { echo "no /dev/fuse"; return; }
	[ -c /dev/loop-control ] || { echo "no /dev/loop-control"; return; }
	case $'\n'$(sys_installed_paths "$1")$'\n' in
	*/rbd-volumed$'\n'*) ;;
	*) echo "this build has no rbd-volumed (it needs the ceph feature)" ;;
	esac
}

# --- the build, installed ---------------------------------------------------------------

# A suite this machine cannot run (MISSING says why) is meson's skip (77), or a
# failure when the environment sets FLAG=1: CI sets it where the suite must run.
sys_skip_if_missing() { # sys_skip_if_missing SUITE FLAG MISSING
	local suite=$1 flag=$2 missing=$3
	[ -n "$missing" ] || return 0
	if [ "${!flag:-0}" = 1 ]; then
		echo "$suite cannot run: $missing ($flag=1)" >&2
		exit 1
	fi
	echo "SKIP: $suite: $missing"
	exit 77
}

sys_installed_paths() { # sys_installed_paths BUILD_DIR: where `meson install` puts each file
	meson introspect --installed "$1" 2>/dev/null |
		python3 -c 'import json, sys; print("\n".join(json.load(sys.stdin).values()))'
}

sys_install() {
	local started log=$SYS_WORK/install.log
	started=$(sys_now_ms)
	DESTDIR=$SYS_ROOT meson install -C "$SYS_BUILD" --no-rebuild >"$log" 2>&1 ||
		sys_die "meson install into the container failed (see $log)"
	mapfile -t SYS_INSTALLED < <(sys_installed_paths "$SYS_BUILD")
	local path
	for path in "${SYS_INSTALLED[@]}"; do
		# shellcheck disable=SC2034 # the cases use them
		case $path in
		*/bin/rbd-volumectl) SYS_BINDIR=${path%/*} ;;
		*/rbd-volumed) SYS_SBINDIR=${path%/*} ;;
		*/rbd-volumed.service) SYS_UNITDIR=${path%/*} ;;
		*/dbus-1/system.d/org.rbdvolume1.conf) sys_include_bus_policy "${path%/*}" ;;
		esac
	done
	in_ct systemctl daemon-reload
	in_ct systemd-tmpfiles --create rbd-volume.conf
	# dbus-daemon reads its policies when it starts and on ReloadConfig.
	if in_ct systemctl -q is-active dbus.service; then in_ct systemctl reload dbus.service; fi
	sys_log "installed into the container in $(($(sys_now_ms) - started)) ms (bindir $SYS_BINDIR)"
}

# dbus-daemon reads only /usr/share/dbus-1/system.d and /etc/dbus-1/system.d:
# a build for another prefix (meson's default is /usr/local) needs its
# directory included, as an administrator would.
sys_include_bus_policy() { # sys_include_bus_policy DIR
	[ "$1" = /usr/share/dbus-1/system.d ] && return 0
	put_file /etc/dbus-1/system-local.conf <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <includedir>$1</includedir>
</busconfig>
EOF
}

# --- the cluster -------------------------------------------------------------------------

# A monitor port pair nobody listens on: other clusters (the ceph suite, another
# developer's) may run on this machine at the same time.
sys_free_ports() {
	local v2
	for v2 in $(seq 13320 10 13620); do
		if [ -z "$(ss -Hltn "sport = :$v2")" ] && [ -z "$(ss -Hltn "sport = :$((v2 + 3500))")" ]; then
			echo "$v2 $((v2 + 3500))"
			return 0
		fi
	done
	return 1
}

sys_start_cluster() {
	local started ports key value
	started=$(sys_now_ms)
	ports=$(sys_free_ports) || sys_die "no free port pair for the test cluster's monitor"
	while IFS='=' read -r key value; do
		case $key in
		CEPH_CONF | CEPH_POOL | CEPH_TEST_ID | CEPH_TEST_KEYRING | CEPH_ADMIN_KEYRING)
			printf -v "$key" '%s' "$value"
			;;
		esac
	done < <(RBDV_CEPH_MON_PORT=${ports% *} RBDV_CEPH_MON_PORT_V1=${ports#* } \
		RBDV_CEPH_OSD_BYTES=${RBDV_CEPH_OSD_BYTES:-3221225472} \
		"$SYS_CLUSTER" start "$SYS_WORK/ceph" 2>"$SYS_WORK/cluster.log")
	if [ -z "$CEPH_CONF" ] || [ -z "$CEPH_TEST_KEYRING" ]; then
		sys_die "the test cluster did not start: $(tail -n 3 "$SYS_WORK/cluster.log")"
	fi
	sys_log "cluster ready in $(($(sys_now_ms) - started)) ms (mon port ${ports% *})"
}

# --- the container -----------------------------------------------------------------------

sys_loop_devices() { losetup -l -n -O NAME,BACK-FILE 2>/dev/null | sort || true; }

# One try at booting the container; SYS_LEADER and SYS_ROOT set when it did.
sys_boot_sandbox() {
	local key value
	while IFS='=' read -r key value; do
		case $key in
		SANDBOX_LEADER) SYS_LEADER=$value ;;
		SANDBOX_ROOT) SYS_ROOT=$value ;;
		esac
	done < <(SANDBOX_LOOPS=${RBDV_SYSTEM_LOOPS:-128} SANDBOX_FUSE=1 SANDBOX_BIND="$SYS_WORK/ceph" \
		"$SYS_SANDBOX" start "$SYS_WORK/sandbox" 2>>"$SYS_WORK/sandbox.log")
	[ -n "$SYS_LEADER" ] && [ -n "$SYS_ROOT" ]
}

# systemd-nspawn on a loaded CI machine has died silently before the
# container's systemd was up (in 2 of the 10 full runs kept here, before any
# of our code ran in it): such a boot is tried once more, and said so.
sys_start_sandbox() {
	local started
	started=$(sys_now_ms)
	if ! sys_boot_sandbox; then
		sys_log "the container did not boot ($(tail -n 1 "$SYS_WORK/sandbox.log")); booting it once more"
		"$SYS_SANDBOX" stop "$SYS_WORK/sandbox" 2>>"$SYS_WORK/sandbox.log" || true
		SYS_LEADER="" SYS_ROOT=""
		sys_boot_sandbox || sys_die "the container did not boot: $(tail -n 3 "$SYS_WORK/sandbox.log")"
	fi
	# The system bus: socket-activated by basic.target when this machine's
	# dbus is; started by hand otherwise.
	in_ct busctl --system list >/dev/null 2>&1 || in_ct systemctl start dbus.service
	in_ct busctl --system list >/dev/null || sys_die "the system bus does not answer in the container"
	sys_log "container booted in $(($(sys_now_ms) - started)) ms"
}

# The container powered off (a case may do that): a fresh one, installed again.
sys_restart_sandbox() {
	"$SYS_SANDBOX" stop "$SYS_WORK/sandbox" 2>>"$SYS_WORK/sandbox.log" || true
	SYS_LEADER="" SYS_ROOT=""
	sys_start_sandbox
	sys_install
}

# A case runs in a subshell: after one restarted the container, the next
# commands need its new PID 1.
sys_refresh_leader() {
	SYS_LEADER=$("$SYS_SANDBOX" leader "$SYS_WORK/sandbox" 2>/dev/null) || SYS_LEADER=""
}

sys_alive() { # sys_alive PID: exists and is not a zombie
	local state
	[ -r "/proc/$1/stat" ] || return 1
	state=$(sed 's/^.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

# --- up and down -------------------------------------------------------------------------

sys_work_dir() { # sys_work_dir BUILD_DIR: admin socket paths must stay short
	local base
	base=$(cd "$1" && pwd)
	if [ ${#base} -gt 40 ]; then
		base=/var/lib/rbd-volume-tests
		mkdir -p "$base"
	fi
	mktemp -d "$base/system.XXXXXX"
}

sys_up() { # sys_up BUILD_DIR
	SYS_BUILD=$(cd "$1" && pwd)
	SYS_WORK=$(sys_work_dir "$SYS_BUILD")
	sys_loop_devices >"$SYS_WORK/loops-before"
	sys_start_guardian
	sys_start_cluster
	sys_start_sandbox
	sys_install
}

# A guardian in a session of its own (a signal to our process group spares
# it) watches this shell: when the shell is gone without sys_down (SIGKILL,
# a timeout), the guardian tears everything down itself.
sys_start_guardian() {
	# shellcheck disable=SC2016 # expanded by the guardian
	setsid bash -c 'trap "" INT TERM HUP PIPE
		while [ -d "$3" ] && [ ! -e "$3/released" ] && kill -0 "$1" 2>/dev/null; do sleep 1; done
		[ -d "$3" ] && [ ! -e "$3/released" ] || exit 0
		. "$2"
		SYS_WORK=$3
		sys_down' guardian "$$" "$SYS_SRC/tests/system/lib.sh" "$SYS_WORK" \
		</dev/null >>"$SYS_WORK/guardian.log" 2>&1 &
}

# Is FILE the backing file of a loop device of one of our volumes? The fuse
# driver's is /run/rbd-volume/fuse/NAME/IMAGE (IMAGE = NAME here); once the
# dead FUSE mount of a killed rbd-fuse is detached it shows as /IMAGE.
sys_our_loop_file() { # sys_our_loop_file FILE
	local file=${1% (deleted)} image
	[ -f "$SYS_WORK/images" ] || return 1
	while read -r image; do
		case $file in "/run/rbd-volume/fuse/$image/$image" | "/$image") return 0 ;; esac
	done <"$SYS_WORK/images"
	return 1
}

# Loop devices in LIST (NAME FILE lines) of our volumes that are not in BEFORE.
sys_our_new_loops() { # sys_our_new_loops BEFORE LIST
	local dev file
	while read -r dev file; do
		[ -n "$dev" ] || continue
		grep -qxF -- "$dev $file" <<<"$1" && continue
		sys_our_loop_file "$file" && echo "$dev $file"
	done <<<"$2"
	return 0
}

# Loop devices attached inside the container outlive it: detach those of our
# volumes that appeared during the run. Prints what it found.
sys_detach_stray_loops() {
	local dev file
	while read -r dev file; do
		[ -n "$dev" ] || continue
		echo "$dev ($file)"
		losetup -d "$dev" 2>/dev/null || true
	done <<<"$(sys_our_new_loops "$(cat "$SYS_WORK/loops-before" 2>/dev/null)" "$(sys_loop_devices)")"
}

# Everything the run left on this machine; prints one line per leftover.
sys_leftovers() {
	local mounts
	mounts=$(findmnt -rn -o TARGET | grep -F -- "$SYS_WORK" || true)
	[ -z "$mounts" ] || echo "mounts under $SYS_WORK: $(echo "$mounts" | tr '\n' ' ')"
	if pgrep -f -- "$SYS_WORK/" >/dev/null; then
		echo "processes: $(pgrep -a -f -- "$SYS_WORK/" | tr '\n' ' ')"
	fi
	return 0
}

SYS_DOWN_DONE=0
SYS_DOWN_LEFTOVERS="" # what sys_down could not remove
sys_down() {
	[ "$SYS_DOWN_DONE" = 1 ] && return 0
	SYS_DOWN_DONE=1
	[ -n "$SYS_WORK" ] || return 0
	local stray
	# Volumes first, while the daemon runs, so they come down cleanly.
	[ -z "$SYS_LEADER" ] || sys_stop_volumes >/dev/null 2>&1 || true
	if [ -d "$SYS_WORK/sandbox" ]; then
		"$SYS_SANDBOX" stop "$SYS_WORK/sandbox" 2>>"$SYS_WORK/sandbox.log" || true
	fi
	stray=$(sys_detach_stray_loops)
	[ -z "$stray" ] || sys_log "detached loop devices the container left: $stray"
	if [ -d "$SYS_WORK/ceph" ]; then
		"$SYS_CLUSTER" purge "$SYS_WORK/ceph" 2>>"$SYS_WORK/cluster.log" || true
	fi
	SYS_DOWN_LEFTOVERS=$(sys_leftovers)
	touch "$SYS_WORK/released" # the guardian stands down
	if [ -z "$SYS_DOWN_LEFTOVERS" ]; then
		rm -rf --one-file-system "$SYS_WORK"
	else
		sys_log "left in place: $SYS_WORK ($SYS_DOWN_LEFTOVERS)"
	fi
}

# --- inside the container ------------------------------------------------------------------

in_ct() {
	nsenter -t "$SYS_LEADER" -m -u -i -p -C -n --wd -- \
		env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 TERM=dumb SYSTEMD_PAGER= SYSTEMD_COLORS=0 "$@"
}

# The machine under test: this container. The helpers below run everything
# there through on_node, which the kernel suite points at its guest instead.
on_node() { in_ct "$@"; }

ctl() { on_node "$SYS_BINDIR/rbd-volumectl" "$@"; }

as_nobody() { on_node setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

put_file() { # put_file PATH: stdin to PATH, atomically (a watcher never sees half a file)
	# shellcheck disable=SC2016 # expanded inside
	on_node sh -c 'd=$(dirname "$1"); mkdir -p "$d" && cat >"$d/.$(basename "$1").tmp" &&
		mv -f "$d/.$(basename "$1").tmp" "$1"' put_file "$1"
}

unit_prop() { on_node systemctl show -P "$2" "$1"; } # unit_prop UNIT PROPERTY

# Takes every volume down: stops the rbd-volume@ units, then brings down what
# is still meant to be up (a unit that failed to start is not stopped).
# Bounded, for teardowns.
sys_stop_volumes() {
	local units status=0 name
	units=$(on_node systemctl list-units --all --plain --no-legend 'rbd-volume@*' | awk '{print $1}')
	if [ -n "$units" ]; then
		# shellcheck disable=SC2086 # one unit name per word
		on_node timeout 330 systemctl stop $units || {
			# shellcheck disable=SC2086
			on_node systemctl kill --signal=KILL $units || true
			status=1
		}
	fi
	for name in $(ctl status --json 2>/dev/null | python3 -c '
import json, sys
print(" ".join(v["name"] for v in json.load(sys.stdin)["volumes"] if v["intent"] == "up"))'); do
		on_node timeout 330 "$SYS_BINDIR/rbd-volumectl" down "$name" || status=1
	done
	return $status
}

# --- volumes ---------------------------------------------------------------------------------

write_spec() { # write_spec NAME [SIZE]: fuse driver, ext4, published at /srv/NAME
	grep -qxF -- "$1" "$SYS_WORK/images" 2>/dev/null || echo "$1" >>"$SYS_WORK/images"
	put_file "/etc/rbd-volume/volumes/$1.toml" <<EOF
# $1: written by the system test harness
[image]
pool = "$CEPH_POOL"
name = "$1"

[image.create]
size = "${2:-256M}"

[cluster]
conf = "$CEPH_CONF"
id = "$CEPH_TEST_ID"
keyring = "$CEPH_TEST_KEYRING"

[map]
driver = "fuse"

[filesystem]
type = "ext4"

[[publish]]
path = "/srv/$1"
EOF
}

# shellcheck disable=SC2016 # python, not shell
SYS_PY_VOLUME='
import json, sys
def volume(name):
    for v in json.load(sys.stdin)["volumes"]:
        if v["name"] == name:
            return v
    sys.exit(1)
'

vol_field() { # vol_field NAME FIELD: a string as it is, anything else as JSON
	ctl status --json | python3 -c "$SYS_PY_VOLUME"'
x = volume(sys.argv[1]).get(sys.argv[2])
print(x if isinstance(x, str) else json.dumps(x))' "$1" "$2"
}

vol_phase_is() { [ "$(vol_field "$1" phase 2>/dev/null)" = "$2" ]; } # vol_phase_is NAME PHASE

# vol_condition NAME TYPE [TEXT]: NAME has a condition TYPE whose message holds TEXT.
vol_condition() {
	ctl status --json | python3 -c "$SYS_PY_VOLUME"'
v = volume(sys.argv[1])
text = sys.argv[3] if len(sys.argv) > 3 else ""
sys.exit(0 if any(c["type"] == sys.argv[2] and text in c["message"]
                  for c in v.get("conditions") or []) else 1)' "$@"
}

# all_phases_are PHASE NAME...: one status call for many volumes.
all_phases_are() {
	ctl status --json | python3 -c '
import json, sys
phase, names = sys.argv[1], set(sys.argv[2:])
seen = {v["name"]: v["phase"] for v in json.load(sys.stdin)["volumes"]}
sys.exit(0 if all(seen.get(n) == phase for n in names) else 1)' "$@"
}

# SYS_POLL: seconds between two looks (the kernel suite's lib.sh sets its own)
wait_for() { # wait_for SECONDS CMD...: polls every SYS_POLL (0.2) s; fails after SECONDS
	local deadline=$((SECONDS + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ $SECONDS -lt $deadline ] || return 1
		sleep "${SYS_POLL:-0.2}"
	done
}

# --- running cases: run.sh and packages.sh alike ------------------------------------------

SYS_PASSED=0
SYS_FAILED=0

# --- what every suite's cases share --------------------------------------------

# fail REASON: ends the case (run in a subshell by sys_run_case) with REASON.
fail() {
	echo "$*" >"$SYS_WORK/failed"
	exit 1
}

# A PID 1 busy with fifty jobs (an emulated one above all) answers a StartUnit
# call later than sd-bus's default 25 s: the units' own timeouts bound a start.
start_units() { # start_units UNIT...: one systemctl call, all at once
	local out
	out=$(on_node env SYSTEMD_BUS_TIMEOUT=300 systemctl start "$@" 2>&1) ||
		fail "systemctl start failed: $out $(failed_starts "$@")"
}

failed_starts() { # failed_starts UNIT...: what rbd-volumectl said for each failed unit
	local unit
	for unit in "$@"; do
		[ "$(unit_prop "$unit" ActiveState)" = failed ] || continue
		printf '%s: %s; ' "$unit" "$(on_node journalctl --no-pager -q -o cat -u "$unit" |
			grep -m1 'rbd-volumectl' || echo "(no message)")"
	done
}

stop_units() { on_node env SYSTEMD_BUS_TIMEOUT=300 systemctl stop "$@" || fail "systemctl stop $* failed"; }

expect_phase() { # expect_phase NAME PHASE
	local phase
	phase=$(vol_field "$1" phase) || fail "rbd-volumectl status --json does not show volume $1"
	[ "$phase" = "$2" ] || fail "volume $1 is $phase, expected $2 ($(vol_field "$1" conditions))"
}

elapsed_s() { # elapsed_s START-MS: seconds with one decimal
	local ms=$(($(sys_now_ms) - $1))
	printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100))
}

daemon_replaced() { # daemon_replaced OLD-PID: another main process is up
	local pid
	pid=$(unit_prop rbd-volumed.service MainPID)
	[ "$pid" != 0 ] && [ "$pid" != "$1" ] && [ "$(unit_prop rbd-volumed.service ActiveState)" = active ]
}

not_in_phase() { # not_in_phase PHASE NAME...: "NAME: PHASE (CONDITION: MESSAGE)" of the others
	ctl status --json | python3 -c '
import json, sys
phase, names = sys.argv[1], sys.argv[2:]
seen = {v["name"]: v for v in json.load(sys.stdin)["volumes"]}
for n in names:
    v = seen.get(n)
    if v is None:
        print("%s: unknown;" % n, end=" ")
    elif v["phase"] != phase:
        why = ", ".join("%s: %s" % (c["type"], c["message"]) for c in v.get("conditions") or [])
        print("%s: %s (%s);" % (n, v["phase"], why), end=" ")' "$@"
}

# "MOUNT-ID TARGET MAJ:MIN" of the staging and publish mounts of NAME...
mounts_of() {
	local name pattern=""
	for name in "$@"; do pattern+="${pattern:+|}/srv/$name|/run/rbd-volume/staging/$name"; done
	# shellcheck disable=SC2016 # awk's fields
	on_node awk -v re="^($pattern)\$" '$5 ~ re {print $1, $5, $3}' /proc/self/mountinfo | sort
}

unit_in_state() { [ "$(unit_prop "$1" SubState)" = "$2" ]; } # unit_in_state UNIT SUBSTATE

sys_report() { # sys_report CASE RC REASON: one "ok"/"not ok" line, counted
	if [ "$2" -eq 0 ]; then
		echo "ok - $1"
		SYS_PASSED=$((SYS_PASSED + 1))
	else
		echo "not ok - $1: ${3:-failed}"
		SYS_FAILED=$((SYS_FAILED + 1))
	fi
}

# sys_run_case NAME: case_NAME in a subshell with errexit: fail() or any
# failing command ends it. Sets SYS_CASE_RC, and SYS_CASE_REASON: what fail()
# said, else the command whose failure ended the case (the last one: the ERR
# trap also fires inside command substitutions).
sys_run_case() {
	: >"$SYS_WORK/reason"
	: >"$SYS_WORK/failed"
	set +e
	(
		set -eE
		trap 'echo "${BASH_SOURCE[0]##*/}:$LINENO: \`$BASH_COMMAND\` exited $?" >>"$SYS_WORK/reason"' ERR
		"case_$1"
	)
	# shellcheck disable=SC2034 # read by run.sh and packages.sh
	SYS_CASE_RC=$?
	set -e
	SYS_CASE_REASON=$(cat "$SYS_WORK/failed")
	[ -n "$SYS_CASE_REASON" ] || SYS_CASE_REASON=$(tail -n 1 "$SYS_WORK/reason")
}

sys_interrupted() {
	trap - INT TERM
	echo "# interrupted; tearing down" >&2
	exit 130
}

sys_finish() {
	local rc=$?
	sys_down
	if [ -n "${SYS_DOWN_LEFTOVERS:-}" ]; then
		echo "# teardown left: $SYS_DOWN_LEFTOVERS" >&2
		[ $rc -ne 0 ] || rc=1
	fi
	exit $rc
}

# From here on the container, the cluster and what they made go at any exit, Ctrl-C included.
sys_trap_teardown() {
	trap sys_finish EXIT
	trap sys_interrupted INT TERM
}

# The last case: everything torn down, nothing left behind.
sys_report_teardown() {
	sys_down
	sys_report teardown_clean "$([ -z "$SYS_DOWN_LEFTOVERS" ] && echo 0 || echo 1)" "$SYS_DOWN_LEFTOVERS"
	SYS_DOWN_LEFTOVERS=""
}

sys_summary() {
	echo "$SYS_PASSED passed, $SYS_FAILED failed"
	[ "$SYS_FAILED" -eq 0 ]
}

# --- figures the cases print ---------------------------------------------------

# timeline_since START-MS: where the time went since START-MS, by the clock of
# the container or guest (ct_now_ms), from the journal's step lines and PID 1's
# jobs (tests/system/step_timeline.py)
timeline_since() {
	on_node journalctl -q -o json --since "@$(($1 / 1000))" | python3 "$SYS_SRC/tests/system/step_timeline.py" "$(($1 * 1000))"
}

# ct_now_ms: the container's or guest's clock, in ms since the epoch
ct_now_ms() { on_node date +%s%3N; }

# daemon_cpu_ms: the CPU time rbd-volumed used so far, user and system, in ms
daemon_cpu_ms() {
	on_node cat "/proc/$(on_node pidof rbd-volumed)/stat" |
		awk -v hz="$(getconf CLK_TCK)" '{ print int(($14 + $15) * 1000 / hz) }'
}

# ratio_of PART WHOLE: PART / WHOLE with two decimals (both in seconds, as elapsed_s prints)
ratio_of() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# cpu_ticks: "BUSY TOTAL" of the CPUs the volumes run on so far (the first line
# of /proc/stat as the container or the guest reads it: busy is all but idle
# and iowait)
cpu_ticks() { on_node cat /proc/stat | awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9; exit }'; }

# busy_since "BUSY TOTAL": the share of the machine's CPU time that was busy since then
busy_since() {
	local now
	now=$(cpu_ticks)
	awk -v a="$1" -v b="$now" 'BEGIN { split(a, x, " "); split(b, y, " ");
		printf "%.2f", (y[1] - x[1]) / (y[2] - x[2]) }'
}
