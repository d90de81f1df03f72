# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# phases.sh: times the phases of scripts/test.sh and prints them as a
# table. Sourced; needs bash 5 ($EPOCHREALTIME) and /proc/stat.
#
#   phase NAME CMD...         runs CMD, timed as NAME; returns CMD's status
#   phase_table               one row a phase: NAME, when it started and how
#                             long it took (seconds from the start of the run),
#                             its share of the whole run, how busy the
#                             machine's CPUs were meanwhile, its status
#
# The CPU share counts every process of the machine, not only the phase's:
# a phase far below 100 % leaves a core idle (waiting on a guest, a
# cluster, a timeout), a phase near it is bound by the CPU.

# "BUSY TOTAL" jiffies of all CPUs since boot (idle and iowait are not busy)
phases_cpu() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9; exit }' /proc/stat; }

PHASES_STARTED=$EPOCHREALTIME
PHASES_CPU_STARTED=$(phases_cpu)
PHASES_DIR=$(mktemp -d "${TMPDIR:-/tmp}/rbdv-phases.XXXXXX")
# shellcheck disable=SC2064 # this directory, now
trap "rm -rf '$PHASES_DIR'" EXIT

phase() { # phase NAME CMD...
	local name=$1 started cpu rc=0
	shift
	printf '\n==== %s\n' "$name"
	started=$EPOCHREALTIME
	cpu=$(phases_cpu)
	"$@" || rc=$?
	printf '%s|%s|%s|%s|%s|%s\n' "$name" "$started" "$EPOCHREALTIME" "$cpu" "$(phases_cpu)" "$rc" \
		>>"$PHASES_DIR/rows"
	return $rc
}

phase_table() {
	printf '\n==== phases\n'
	{
		sort -t'|' -k2,2n "$PHASES_DIR/rows" 2>/dev/null
		printf 'whole run|%s|%s|%s|%s|\n' "$PHASES_STARTED" "$EPOCHREALTIME" "$PHASES_CPU_STARTED" "$(phases_cpu)"
	} | awk -F'|' -v t0="$PHASES_STARTED" -v now="$EPOCHREALTIME" '
		function busy(a, b,    x, y) { split(a, x, " "); split(b, y, " ")
			return y[2] > x[2] ? sprintf("%3.0f %%", 100 * (y[1] - x[1]) / (y[2] - x[2])) : "  - %" }
		BEGIN { whole = now - t0
		        printf "%-46s %6s %8s %7s %9s  %s\n", "phase", "from", "seconds", "share", "CPU busy", "status" }
		{ s = $3 - $2
		  status = $6 == "" ? "" : ($6 == 0 ? "ok" : "failed (" $6 ")")
		  printf "%-46s %6.0f %8.0f %6.1f%% %9s  %s\n", $1, $2 - t0, s, 100 * s / whole, busy($4, $5), status }'
}
