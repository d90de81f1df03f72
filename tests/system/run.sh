#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# run.sh: the system suite. Boots systemd 252 as PID 1 of a systemd-nspawn
# container over this machine's root, installs BUILD_DIR into it, starts a
# throw-away Ceph cluster, and runs the cases in tests/system/cases.sh against
# the installed units: `systemctl start rbd-volume@NAME` and friends.
#
#   tests/system/run.sh BUILD_DIR [CASE...]     every case, or the ones named
#
# Prints "ok - CASE" or "not ok - CASE: reason" per case (diagnostics on lines
# starting with '#'), then "N passed, N failed". Exit 0 when all passed, 1 when
# one failed, 2 on a usage error, 77 (meson's skip) when this machine cannot
# run it (no root, systemd-nspawn, /dev/fuse, loop devices or Ceph tools, or
# the build has no daemon); with RBDV_REQUIRE_SYSTEM=1 that is a failure (1).
# The container, the cluster, and every mount and loop device they made are
# gone when it exits, Ctrl-C included.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/system/lib.sh
. "$here/lib.sh"
# shellcheck source=tests/system/cases.sh
. "$here/cases.sh"
# shellcheck source=tests/system/csi_cases.sh
. "$here/csi_cases.sh" "${1:-}"
# shellcheck source=tests/system/hostile_cases.sh
. "$here/hostile_cases.sh"
# shellcheck source=tests/system/record_cases.sh
. "$here/record_cases.sh"

usage() {
	echo "usage: tests/system/run.sh BUILD_DIR [CASE...]" >&2
	echo "cases: ${SYS_CASES[*]}" >&2
	exit 2
}

# A case ends clean or fails, whatever it left: what a failed one left is removed.
run_case() { # run_case NAME
	local name=$1 started reason
	started=$(sys_now_ms)
	SYS_CASE_LOOPS=$(ct_loops)
	sys_run_case "$name"
	sys_refresh_leader
	reason=$SYS_CASE_REASON
	[ "$SYS_CASE_RC" -eq 0 ] || case_diagnostics
	case_cleanup "$name" || {
		reason+="${reason:+; and }left behind after its volumes were stopped: $(cat "$SYS_WORK/leftovers")"
		SYS_CASE_RC=1
	}
	sys_log "$name took $((($(sys_now_ms) - started) / 1000)) s"
	sys_report "$name" "$SYS_CASE_RC" "$reason"
}

main() {
	[ $# -ge 1 ] || usage
	local build=$1 name cases=()
	shift
	[ -d "$build" ] || usage
	for name in "$@"; do
		printf '%s\n' "${SYS_CASES[@]}" | grep -qxF -- "$name" || {
			echo "run.sh: no case '$name'" >&2
			usage
		}
		cases+=("$name")
	done
	[ ${#cases[@]} -gt 0 ] || cases=("${SYS_CASES[@]}")

	sys_skip_if_missing "system suite" RBDV_REQUIRE_SYSTEM "$(sys_missing "$build")"

	sys_trap_teardown
	sys_up "$build"
	for name in "${cases[@]}"; do run_case "$name"; done
	sys_report_teardown
	sys_summary
}

main "$@"
