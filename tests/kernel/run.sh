#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# run.sh: the kernel suite. Boots a real Linux 6.1 kernel with systemd as
# PID 1 (tests/kernel/guest.sh), starts a throw-away Ceph cluster it reaches
# over a tap device, installs BUILD_DIR into it, and runs the cases in
# tests/kernel/*_cases.sh (cases.sh says what they share): krbd, rbd-nbd and
# dm-crypt through `systemctl start rbd-volume@NAME`, `rbd-volumectl` and the
# CSI shim, as on a host.
#
#   tests/kernel/run.sh BUILD_DIR [CASE...]     every case, or the ones named
#
# A case of KG_NAMED_CASES (life_cases.sh: life_shutdown_cluster_stopped,
# life_network_cut_long) and a figure (KG_FIGURES in figures.sh:
# stage_times, many_volumes; in side_by_side.sh: beside ceph-csi's node
# plugin) run only when named.
#
# Prints "ok - CASE" or "not ok - CASE: reason" per case (diagnostics on lines
# starting with '#'), then "N passed, N failed". Exit 0 when all passed, 1 when
# one failed, 2 on a usage error, 77 (meson's skip) when this machine cannot
# run it (see kg_missing in lib.sh); with RBDV_REQUIRE_KERNEL=1 that is a
# failure (1). The guest, the cluster and the network namespace are gone when
# it exits, Ctrl-C and a SIGKILL of this script included.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/system/lib.sh
. "$here/../system/lib.sh"
# shellcheck source=tests/kernel/lib.sh
. "$here/lib.sh"
# shellcheck source=tests/kernel/cases.sh
. "$here/cases.sh"
# shellcheck source=tests/kernel/krbd_cases.sh
. "$here/krbd_cases.sh"
# shellcheck source=tests/kernel/crypt_cases.sh
. "$here/crypt_cases.sh"
# shellcheck source=tests/kernel/nbd_cases.sh
. "$here/nbd_cases.sh"
# shellcheck source=tests/kernel/csi_cases.sh
. "$here/csi_cases.sh" "${1:-}"
# shellcheck source=tests/kernel/life_cases.sh
. "$here/life_cases.sh"
# shellcheck source=tests/kernel/figures.sh
. "$here/figures.sh"
# shellcheck source=tests/kernel/side_by_side.sh
. "$here/side_by_side.sh"
CSI_DRIVER_ARGS="" # the volume context's mounter decides
# shellcheck source=tests/system/csi_lib.sh
. "$here/../system/csi_lib.sh"
csi_rbd() { on_cluster rbd "$@"; }

usage() {
	echo "usage: tests/kernel/run.sh BUILD_DIR [CASE...]" >&2
	echo "cases: ${KG_CASES[*]}" >&2
	echo "cases run only when named: ${KG_NAMED_CASES[*]}" >&2
	echo "figures, run only when named: ${KG_FIGURES[*]}" >&2
	exit 2
}

run_case() { # run_case NAME
	local name=$1 started=$SECONDS leftovers
	sys_run_case "$name"
	[ "$SYS_CASE_RC" -eq 0 ] || kg_diagnostics
	leftovers=$(kg_case_cleanup 2>&1) || {
		SYS_CASE_REASON+="${SYS_CASE_REASON:+; and }left behind: $leftovers"
		SYS_CASE_RC=1
	}
	sys_log "$name took $((SECONDS - started)) s"
	sys_report "$name" "$SYS_CASE_RC" "$SYS_CASE_REASON"
}

finish() {
	local rc=$?
	kg_down
	exit $rc
}

main() {
	[ $# -ge 1 ] || usage
	local build=$1 name cases=()
	shift
	[ -d "$build" ] || usage
	for name in "$@"; do
		printf '%s\n' "${KG_CASES[@]}" "${KG_NAMED_CASES[@]}" "${KG_FIGURES[@]}" | grep -qxF -- "$name" || {
			echo "run.sh: no case '$name'" >&2
			usage
		}
		cases+=("$name")
	done
	[ ${#cases[@]} -gt 0 ] || cases=("${KG_CASES[@]}")

	sys_skip_if_missing "kernel suite" RBDV_REQUIRE_KERNEL "$(kg_missing "$build")"

	trap finish EXIT
	trap sys_interrupted INT TERM
	kg_up "$build"
	for name in "${cases[@]}"; do run_case "$name"; done
	kg_down # before the summary: it says what the guest cost
	sys_log "the kernel suite took $SECONDS s in all"
	sys_summary
}

main "$@"
