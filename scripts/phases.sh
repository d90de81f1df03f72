# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# phases.sh: times the phases of scripts/test.sh, runs some of them in the
# background, and prints them all as a table. Sourced; needs bash 5
# ($EPOCHREALTIME), /proc/stat and chrt (util-linux).
#
#   phase NAME CMD...         runs CMD, timed as NAME; returns CMD's status
#   lane [--idle] KEY CMD...  runs CMD (a command or a function that runs
#                             phases) in the background, its output kept
#                             apart; --idle: at SCHED_IDLE, on what CPU time
#                             the other phases leave unused
#   lane_await KEY            waits (from any process) until lane KEY ended;
#                             returns its status
#   lane_wait KEY             waits for lane KEY, prints its output; returns
#                             its status
#   phase_table               one row a phase: NAME, when it started and how
#                             long it took (seconds from the start of the run),
#                             its share of the whole run, how busy the
#                             machine's CPUs were meanwhile, its own CPU
#                             time, its status
#
# The CPU share counts every process of the machine, not only the phase's:
# a phase far below 100 % leaves a core idle (waiting on a guest, a
# cluster, a timeout), a phase near it is bound by the CPU. Phases of a lane
# overlap others: their shares add up to more than the whole.
# A phase's own CPU time counts every process it started, daemons, qemu and
# containers included, where a cgroup v1 cpuacct hierarchy is writable (the
# phase runs in a cgroup of its own there); elsewhere it shows "-". A run
# bound by its CPU is as long as the sum of them over the number of CPUs.

# "BUSY TOTAL" jiffies of all CPUs since boot (idle and iowait are not busy)
phases_cpu() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9; exit }' /proc/stat; }

PHASES_STARTED=$EPOCHREALTIME
PHASES_CPU_STARTED=$(phases_cpu)
PHASES_DIR=$(mktemp -d "${TMPDIR:-/tmp}/rbdv-phases.XXXXXX")
PHASES_CPUACCT=/sys/fs/cgroup/cpuacct
[ -w "$PHASES_CPUACCT/cgroup.procs" ] || PHASES_CPUACCT=""
declare -A PHASES_LANE_PID=()

# Every lane still running, its whole process group, the phases' cgroups
# (one that a daemon keeps alive stays), then the scratch directory: at
# any exit, a failed build's or Ctrl-C's included.
phases_end() {
	local pid
	for pid in "${PHASES_LANE_PID[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
	[ -z "$PHASES_CPUACCT" ] || rmdir "$PHASES_CPUACCT"/rbdv-phase-$$-* 2>/dev/null || true
	rm -rf "$PHASES_DIR"
}
trap phases_end EXIT

phase() { # phase NAME CMD...
	local name=$1 started cpu rc=0 cg="" own=""
	shift
	printf '\n==== %s\n' "$name"
	started=$EPOCHREALTIME
	cpu=$(phases_cpu)
	if [ -n "$PHASES_CPUACCT" ] && cg=$PHASES_CPUACCT/rbdv-phase-$$-$SRANDOM && mkdir "$cg" 2>/dev/null; then
		(
			echo "$BASHPID" >"$cg/cgroup.procs" 2>/dev/null || true
			"$@"
		) || rc=$?
		read -r own <"$cg/cpuacct.usage" || own=""
		rmdir "$cg" 2>/dev/null || true # a daemon the phase left running keeps it
	else
		"$@" || rc=$?
	fi
	# one short line, appended at once: lanes write here too
	printf '%s|%s|%s|%s|%s|%s|%s\n' "$name" "$started" "$EPOCHREALTIME" "$cpu" "$(phases_cpu)" "$rc" "$own" \
		>>"$PHASES_DIR/rows"
	return $rc
}

lane() { # lane [--idle] KEY CMD...
	local idle=no key
	if [ "$1" = --idle ]; then
		idle=yes
		shift
	fi
	key=$1
	shift
	printf '\n==== lane %s: %s (in the background%s; its output when it ends)\n' "$key" "$*" \
		"$([ $idle = no ] || echo ', on idle CPU time')"
	set -m # a process group of its own, to be stopped whole
	(
		[ $idle = no ] || chrt --idle -p 0 "$BASHPID" >/dev/null
		rc=0
		"$@" >"$PHASES_DIR/$key.log" 2>&1 || rc=$?
		echo "$rc" >"$PHASES_DIR/$key.rc.tmp"
		mv "$PHASES_DIR/$key.rc.tmp" "$PHASES_DIR/$key.rc"
		exit "$rc"
	) &
	PHASES_LANE_PID[$key]=$!
	set +m
}

lane_await() { # lane_await KEY
	local rc
	until [ -e "$PHASES_DIR/$1.rc" ]; do sleep 1; done
	read -r rc <"$PHASES_DIR/$1.rc"
	return "$rc"
}

lane_wait() { # lane_wait KEY
	local rc=0
	wait "${PHASES_LANE_PID[$1]}" || rc=$?
	unset "PHASES_LANE_PID[$1]"
	printf '\n==== lane %s ended (%s)\n' "$1" "$([ $rc -eq 0 ] && echo ok || echo "failed, $rc")"
	cat "$PHASES_DIR/$1.log"
	return $rc
}

phase_table() {
	printf '\n==== phases\n'
	{
		sort -t'|' -k2,2n "$PHASES_DIR/rows" 2>/dev/null
		printf 'whole run|%s|%s|%s|%s||\n' "$PHASES_STARTED" "$EPOCHREALTIME" "$PHASES_CPU_STARTED" "$(phases_cpu)"
	} | awk -F'|' -v t0="$PHASES_STARTED" -v now="$EPOCHREALTIME" '
		function busy(a, b,    x, y) { split(a, x, " "); split(b, y, " ")
			return y[2] > x[2] ? sprintf("%3.0f %%", 100 * (y[1] - x[1]) / (y[2] - x[2])) : "  - %" }
		BEGIN { whole = now - t0; counted = 0; all = 0
		        printf "%-46s %6s %8s %7s %9s %6s  %s\n", "phase", "from", "seconds", "share", "CPU busy", "CPU-s", "status" }
		{ s = $3 - $2
		  status = $6 == "" ? "" : ($6 == 0 ? "ok" : "failed (" $6 ")")
		  if ($1 == "whole run") own = counted ? sprintf("%.0f", all) : "-"
		  else if ($7 == "") own = "-"
		  else { own = sprintf("%.0f", $7 / 1e9); all += $7 / 1e9; counted = 1 }
		  printf "%-46s %6.0f %8.0f %6.1f%% %9s %6s  %s\n", $1, $2 - t0, s, 100 * s / whole, busy($4, $5), own, status }'
}
