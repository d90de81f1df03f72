#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# sandbox.sh: a real systemd, PID 1 of a systemd-nspawn container booted over
# an overlay of this machine's root, for the system suite and the demo.
#
#   sandbox.sh start DIR         boot a container kept in DIR; prints
#                                SANDBOX_LEADER=PID and SANDBOX_ROOT=DIR/merged
#   sandbox.sh exec DIR CMD...   run CMD inside, in every namespace of its PID 1
#   sandbox.sh stop DIR          power off, kill what is left, unmount, remove
#                                its cgroups; always safe to run again
#   sandbox.sh root DIR          the container's root as seen from here
#   sandbox.sh leader DIR        the container's PID 1 as numbered here
#
# The root is an overlay: this machine's root filesystem, read-only, under a
# tmpfs, so every start boots a pristine system, every change (an install, a
# spec) stays in the tmpfs, and stop throws it all away. The container boots
# basic.target: none of the services this machine has enabled are started.
# It shares the network (a cluster on 127.0.0.1 is reachable), nothing else.
#
# Knobs (environment):
#   SANDBOX_LOOPS=N     bind /dev/loop-control and /dev/loop0..N-1 (made here
#                       first when missing: devices the kernel makes later would
#                       not appear inside); 0, the default: no loop devices
#   SANDBOX_FUSE=1      bind /dev/fuse
#   SANDBOX_BIND="A B"  more paths, each bound at the same place inside
#   SANDBOX_TIMEOUT=60  seconds the boot may take
# Needs root, systemd-nspawn (systemd-container) and nsenter (util-linux).
set -euo pipefail

say() { printf 'sandbox: %s\n' "$*" >&2; }
die() {
	printf 'sandbox: ERROR: %s\n' "$*" >&2
	exit 1
}
usage() {
	sed -n '5,12p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

[ $# -ge 2 ] || usage
cmd=$1
case $2 in /*) ;; *) die "DIR must be an absolute path, got '$2'" ;; esac
DIR=${2%/}
shift 2

MERGED=$DIR/merged
UPPER=$DIR/upper
TIMEOUT=${SANDBOX_TIMEOUT:-60}
# A name of our own per DIR: the machine's host name, and our cgroup's name.
NAME=rbdv-$(printf '%s' "$DIR" | cksum | cut -d' ' -f1)
CGROUP=rbdv-sandbox-$NAME

# --- processes ------------------------------------------------------------------

alive() { # alive PID: exists and is not a zombie
	local state
	[ -n "${1:-}" ] && [ -r "/proc/$1/stat" ] || return 1
	state=$(sed 's/^.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

nspawn_pid() { # the systemd-nspawn we started for DIR, if it still runs
	local pid
	pid=$(cat "$DIR/nspawn.pid" 2>/dev/null) || return 1
	alive "$pid" || return 1
	tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | grep -qxF -- "--machine=$NAME" || return 1
	echo "$pid"
}

leader_pid() { # the container's PID 1, as this machine numbers it
	local np pid
	np=$(nspawn_pid) || return 1
	pid=$(pgrep -P "$np" | head -n1) || return 1
	[ -n "$pid" ] && echo "$pid"
}

in_container() {
	local pid
	pid=$(leader_pid) || die "no container runs for $DIR"
	nsenter -t "$pid" -m -u -i -p -C -n --wd -- "$@"
}

# --- cgroups ----------------------------------------------------------------------

# The hierarchies systemd manages: the unified one alone, or name=systemd and
# the unified one of a hybrid setup.
cgroup_roots() {
	if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		echo /sys/fs/cgroup
		return
	fi
	local h
	for h in /sys/fs/cgroup/systemd /sys/fs/cgroup/unified; do
		[ -f "$h/cgroup.procs" ] && echo "$h"
	done
	return 0
}

# On a machine whose PID 1 is systemd, nspawn asks it for a scope of its own.
# Elsewhere nspawn stays in its cgroup and puts the container in a "payload"
# child of it: each sandbox gets its own parent, or two of them would share
# that payload and their systemds would kill each other's units.
host_has_systemd() { [ -d /run/systemd/system ]; }

remove_cgroups() {
	local h d
	host_has_systemd && return 0
	for h in $(cgroup_roots); do
		[ -d "$h/$CGROUP" ] || continue
		find "$h/$CGROUP" -depth -type d | while read -r d; do
			rmdir "$d" 2>/dev/null || true
		done
	done
}

# --- the root filesystem -------------------------------------------------------------

unmount_root() {
	local m
	for m in "$MERGED" "$UPPER"; do
		mountpoint -q "$m" 2>/dev/null || continue
		umount "$m" 2>/dev/null || umount -l "$m"
	done
}

# What makes no sense in a container, or could touch this machine: its fstab,
# and every service, socket and timer enabled here (basic.target pulls
# sysinit.target, sockets.target and timers.target). What the distribution
# ships statically (journald, dbus.socket) stays.
prune_root() {
	local wants
	rm -f "$MERGED/etc/machine-id"
	: >"$MERGED/etc/machine-id"
	: >"$MERGED/etc/fstab"
	for wants in "$MERGED"/etc/systemd/system/*.wants; do
		[ -d "$wants" ] && find "$wants" -maxdepth 1 -type l -delete
	done
	return 0
}

mount_root() {
	unmount_root
	mkdir -p "$UPPER" "$MERGED"
	mount -t tmpfs -o size=8G,mode=0755 rbdv-sandbox-upper "$UPPER"
	mkdir -p "$UPPER/upper" "$UPPER/work"
	mount -t overlay rbdv-sandbox-root \
		-o "lowerdir=/,upperdir=$UPPER/upper,workdir=$UPPER/work" "$MERGED" ||
		die "cannot mount the overlay over / at $MERGED"
	prune_root
}

# --- start and stop -------------------------------------------------------------------

device_binds() {
	local loops=${SANDBOX_LOOPS:-0} i
	if [ "$loops" -gt 0 ]; then
		[ -c /dev/loop-control ] || die "/dev/loop-control is missing"
		echo "--bind=/dev/loop-control"
		for ((i = 0; i < loops; i++)); do
			# Opening a node made by hand creates its device (BLOCK_LEGACY_AUTOLOAD).
			[ -b "/dev/loop$i" ] || mknod -m 0660 "/dev/loop$i" b 7 "$i" ||
				die "cannot create /dev/loop$i"
			echo "--bind=/dev/loop$i"
		done
	fi
	if [ "${SANDBOX_FUSE:-0}" = 1 ]; then
		[ -c /dev/fuse ] || die "/dev/fuse is missing"
		echo "--bind=/dev/fuse"
	fi
	local path
	for path in ${SANDBOX_BIND:-}; do echo "--bind=$path"; done
}

# Starts nspawn in the background, in a cgroup of its own (see above).
launch() { # launch NSPAWN-ARGS...
	local procs=() h
	if ! host_has_systemd; then
		for h in $(cgroup_roots); do
			mkdir -p "$h/$CGROUP"
			procs+=("$h/$CGROUP/cgroup.procs")
		done
	fi
	# shellcheck disable=SC2016 # expanded by the inner shell
	setsid sh -c 'while [ "$1" != -- ]; do echo $$ >"$1"; shift; done; shift; exec "$@"' \
		launch "${procs[@]}" -- systemd-nspawn "$@" \
		>"$DIR/console.log" 2>&1 </dev/null &
	echo $! >"$DIR/nspawn.pid"
}

wait_booted() {
	local deadline=$((SECONDS + TIMEOUT)) state=""
	while :; do
		nspawn_pid >/dev/null ||
			die "systemd-nspawn exited: $(tail -n 5 "$DIR/console.log" | tr '\n' ' ')"
		if leader_pid >/dev/null; then
			state=$(in_container systemctl is-system-running 2>/dev/null || true)
			case $state in running | degraded) break ;; esac
		fi
		[ $SECONDS -lt $deadline ] ||
			die "systemd in $NAME did not finish booting in ${TIMEOUT}s (state: ${state:-none}; see $DIR/console.log)"
		sleep 0.1
	done
	if [ "$state" = degraded ]; then
		say "booted degraded; failed units: $(in_container systemctl --failed --plain --no-legend | awk '{print $1}' | tr '\n' ' ')"
	fi
}

cmd_start() {
	command -v systemd-nspawn >/dev/null || die "systemd-nspawn not found (Debian: systemd-container)"
	[ "$(id -u)" -eq 0 ] || die "needs root"
	if nspawn_pid >/dev/null; then die "a container already runs for $DIR"; fi
	local started=$EPOCHREALTIME args binds
	mkdir -p "$DIR"
	mount_root
	mapfile -t binds < <(device_binds)
	args=(--directory="$MERGED" --machine="$NAME" --register=no
		--console=passive --link-journal=no --resolv-conf=off --timezone=off
		"${binds[@]}")
	host_has_systemd || args+=(--keep-unit)
	launch "${args[@]}" --boot -- systemd.unit=basic.target
	wait_booted
	say "$NAME booted in $(ms_since "$started") ms"
	echo "SANDBOX_LEADER=$(leader_pid)"
	echo "SANDBOX_ROOT=$MERGED"
}

ms_since() { # ms_since EPOCHREALTIME-VALUE
	local now=$EPOCHREALTIME then=$1
	echo $(((${now//[.,]/} - ${then//[.,]/}) / 1000))
}

cmd_stop() {
	local np leader
	if np=$(nspawn_pid); then
		leader=$(leader_pid || true)
		# nspawn turns SIGTERM into a clean poweroff of the container.
		kill -TERM "$np" 2>/dev/null || true
		wait_gone "$np" 90 || {
			say "the container did not power off in 90s; killing it"
			# SIGKILL to its PID 1 ends every process in its PID namespace.
			[ -z "$leader" ] || kill -KILL "$leader" 2>/dev/null || true
			wait_gone "$np" 10 || kill -KILL "$np" 2>/dev/null || true
			wait_gone "$np" 10 || true
		}
	fi
	rm -f "$DIR/nspawn.pid"
	unmount_root
	remove_cgroups
	# nspawn leaves these behind when the run directory is not a tmpfs.
	rmdir "/run/systemd/nspawn/propagate/$NAME" 2>/dev/null || true
	rmdir /run/systemd/nspawn/propagate /run/systemd/nspawn/locks /run/systemd/nspawn 2>/dev/null || true
	return 0
}

wait_gone() { # wait_gone PID SECONDS
	local deadline=$((SECONDS + $2))
	while alive "$1"; do
		[ $SECONDS -lt $deadline ] || return 1
		sleep 0.1
	done
}

case $cmd in
start) cmd_start ;;
exec)
	[ $# -ge 1 ] || usage
	in_container "$@"
	;;
stop) cmd_stop ;;
root) echo "$MERGED" ;;
leader) leader_pid || die "no container runs for $DIR" ;;
*) usage ;;
esac
