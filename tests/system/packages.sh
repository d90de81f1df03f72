#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# packages.sh: the Debian packages, installed and upgraded under a real
# systemd. Boots systemd 252 as PID 1 of a systemd-nspawn container over this
# machine's root (tests/system/lib.sh, as the system suite does), starts a
# throw-away Ceph cluster, installs the .debs that packaging/build-packages.sh
# made with dpkg -i (no `meson install`: the packages alone provide every
# file), brings up a volume with `systemctl start rbd-volume@demo`, then
# upgrades the packages to a newer version of the same build and checks that
# the daemon was restarted while the volume stayed up.
#
#   tests/system/packages.sh [DEB_DIR]     DEB_DIR defaults to $RBDV_DEBS_DIR
#
# DEB_DIR holds rbd-volume_*.deb and rbd-volume-csi_*.deb. Their runtime
# dependencies must be installed on this machine already (the container's
# root is this machine's; scripts/install-deps.sh installs them).
#
# Prints "ok - CASE" or "not ok - CASE: reason" per case (diagnostics on lines
# starting with '#'), then "N passed, N failed". Exit 0 when all passed, 1
# when one failed, 77 (meson's skip) when DEB_DIR is unset or has no packages,
# or this machine cannot run it (no root, systemd-nspawn, /dev/fuse, loop
# devices or Ceph tools); with RBDV_REQUIRE_PACKAGES=1 that is a failure (1).
# shellcheck disable=SC2016 # dpkg-query formats and sh -c scripts, single-quoted on purpose
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/system/lib.sh
. "$here/lib.sh"
# The system suite's helpers: fail, mounts_of, loops_of, ct_leftovers,
# assert_nothing_left, start_units, stop_units, expect_phase, image_file_sha256.
# shellcheck source=tests/system/cases.sh
. "$here/cases.sh"

CASES=(install start_volume upgrade_keeps_volume stop_volume purge)

# What the packages must provide, and where (Debian 12: units in /lib).
SYS_BINDIR=/usr/bin
SYS_SBINDIR=/usr/sbin
SYS_UNITDIR=/lib/systemd/system
PKG_DIR_IN_CT=/var/cache/rbdv-package-test
UPGRADE_SUFFIX=+pkgtest1
DEB_DIR=""
DEB_MAIN="" DEB_CSI="" DEB_VERSION=""

missing() { # what this machine lacks; empty: nothing
	local tool
	if [ "$(id -u)" -ne 0 ]; then echo "needs root"; return; fi
	for tool in systemd-nspawn nsenter setpriv python3 ss dpkg-deb ceph-mon ceph-osd rbd rbd-fuse e2fsck; do
		command -v "$tool" >/dev/null || {
			echo "$tool not found (scripts/install-deps.sh installs it)"
			return
		}
	done
	[ -c /dev/fuse ] || { echo "no /dev/fuse"; return; }
	[ -c /dev/loop-control ] || { echo "no /dev/loop-control"; return; }
}

find_debs() { # sets DEB_MAIN, DEB_CSI, DEB_VERSION; prints why not
	local debs
	[ -n "$DEB_DIR" ] || { echo "no package directory (DEB_DIR or RBDV_DEBS_DIR; packaging/build-packages.sh OUTDIR makes one)"; return; }
	[ -d "$DEB_DIR" ] || { echo "$DEB_DIR is not a directory"; return; }
	mapfile -t debs < <(find "$DEB_DIR" -maxdepth 1 -name 'rbd-volume_*.deb' | sort)
	[ ${#debs[@]} -eq 1 ] || { echo "expected one rbd-volume_*.deb in $DEB_DIR, found ${#debs[@]}"; return; }
	DEB_MAIN=${debs[0]}
	mapfile -t debs < <(find "$DEB_DIR" -maxdepth 1 -name 'rbd-volume-csi_*.deb' | sort)
	[ ${#debs[@]} -eq 1 ] || { echo "expected one rbd-volume-csi_*.deb in $DEB_DIR, found ${#debs[@]}"; return; }
	DEB_CSI=${debs[0]}
	DEB_VERSION=$(dpkg-deb -f "$DEB_MAIN" Version)
	[ "$(dpkg-deb -f "$DEB_CSI" Version)" = "$DEB_VERSION" ] ||
		echo "$DEB_MAIN and $DEB_CSI are of different versions"
}

# --- in the container ----------------------------------------------------------------

pkg_status() { in_ct dpkg-query -W -f='${Status} ${Version}' "$1" 2>/dev/null || true; }

# What could shadow the packages' files in the container, or keep their
# maintainer scripts from acting: the container's root is this machine's.
# Removed in the container only (its root is an overlay: this machine keeps
# them). Prints one line per thing removed.
clear_the_way() {
	local pkg path
	for pkg in rbd-volume-csi rbd-volume; do
		case $(pkg_status "$pkg") in
		"install ok installed"* | *" config-files "* | *" half-"* | *" unpacked "*)
			in_ct dpkg --purge "$pkg" >/dev/null 2>&1 || fail "cannot purge this machine's $pkg in the container"
			echo "package $pkg (installed on this machine)"
			;;
		esac
	done
	# Docker's images ship a policy-rc.d that answers 101 ("do not start"):
	# deb-systemd-invoke obeys it, and no maintainer script would start or
	# restart anything. A real host has none.
	if in_ct test -e /usr/sbin/policy-rc.d; then
		in_ct rm -f /usr/sbin/policy-rc.d
		echo "/usr/sbin/policy-rc.d"
	fi
	# A `meson install` of some build on this machine (prefix /usr/local by
	# default), or unit files an administrator put in /etc.
	for path in /usr/local/bin/rbd-volumectl /usr/local/sbin/rbd-volumed /usr/local/sbin/rbd-volume-csi \
		/usr/local/libexec/rbd-volume-fuse-helper /usr/local/libexec/rbd-volume-nbd-helper \
		/usr/local/lib/systemd/system/rbd-volumed.service /usr/local/lib/systemd/system/rbd-volume@.service \
		/usr/local/lib/systemd/system/rbd-fuse@.service /usr/local/lib/systemd/system/rbd-nbd@.service \
		/usr/local/lib/systemd/system/rbd-volume-csi.service \
		/etc/systemd/system/rbd-volumed.service /etc/systemd/system/rbd-volume@.service \
		/etc/systemd/system/rbd-fuse@.service /etc/systemd/system/rbd-nbd@.service \
		/etc/systemd/system/rbd-volume-csi.service \
		/usr/local/share/dbus-1/system.d/org.rbdvolume1.conf \
		/usr/local/share/dbus-1/system-services/org.rbdvolume1.service \
		/etc/dbus-1/system.d/org.rbdvolume1.conf; do
		if in_ct test -e "$path" -o -L "$path"; then
			in_ct rm -f "$path"
			echo "$path"
		fi
	done
	in_ct systemctl daemon-reload
}

# Copies DEB... into the container and installs them with dpkg -i.
dpkg_install() { # dpkg_install LOG DEB...
	local log=$1 deb names=() out
	shift
	mkdir -p "$SYS_ROOT$PKG_DIR_IN_CT"
	for deb in "$@"; do
		cp "$deb" "$SYS_ROOT$PKG_DIR_IN_CT/"
		names+=("$PKG_DIR_IN_CT/$(basename "$deb")")
	done
	if ! in_ct dpkg -i "${names[@]}" </dev/null >"$log" 2>&1; then
		out=$(grep -oE 'Package [^ ]+ is not installed' "$log" | awk '{print $2}' | sort -u | tr '\n' ' ' || true)
		[ -z "$out" ] || fail "dpkg -i: missing dependencies: ${out% } (scripts/install-deps.sh installs them)"
		out=$(grep -E 'depends on' "$log" | sed 's/^ *//' | sort -u | tr '\n' ' ' || true)
		[ -z "$out" ] || fail "dpkg -i: dependency problems: $out"
		fail "dpkg -i failed: $(tail -n 3 "$log" | tr '\n' ' ')"
	fi
	sed 's/^/#   /' "$log"
}

# "MOUNT-ID TARGET MAJ:MIN" of every mount of volume demo, the fuse driver's
# own FUSE mount included.
demo_mounts() {
	# shellcheck disable=SC2016 # awk's fields
	in_ct awk '$5 ~ /^(\/srv\/demo|\/run\/rbd-volume\/staging\/demo|\/run\/rbd-volume\/fuse\/demo)$/ {print $1, $5, $3}' \
		/proc/self/mountinfo | sort
}

save() { printf '%s\n' "$2" >"$SYS_WORK/state.$1"; } # save KEY VALUE: across cases
load() { cat "$SYS_WORK/state.$1" 2>/dev/null; }

daemon_is_new() { # daemon_is_new OLD-PID: rbd-volumed active under another main PID
	local pid
	in_ct systemctl -q is-active rbd-volumed.service || return 1
	pid=$(unit_prop rbd-volumed.service MainPID)
	[ "$pid" != 0 ] && [ "$pid" != "$1" ]
}

# --- the cases ---------------------------------------------------------------------------

# dpkg -i of both packages: every file where the units expect it and nothing
# else shadowing it, the daemon enabled and started by postinst, the shim's
# unit neither, the bus policy in force, conffiles declared.
case_install() {
	local removed path out started
	removed=$(clear_the_way)
	[ -z "$removed" ] || sys_log "removed in the container (this machine keeps them): $(echo "$removed" | tr '\n' ' ')"
	in_ct systemctl -q is-active rbd-volumed.service && fail "rbd-volumed runs before the packages are installed"
	started=$(sys_now_ms)
	dpkg_install "$SYS_WORK/dpkg-install.log" "$DEB_MAIN" "$DEB_CSI"
	sys_log "dpkg -i took $(elapsed_s "$started") s"
	for out in rbd-volume rbd-volume-csi; do
		[ "$(pkg_status $out)" = "install ok installed $DEB_VERSION" ] || fail "$out is '$(pkg_status $out)'"
	done
	# Found on PATH, and owned by the packages.
	for path in rbd-volumectl rbd-volumed rbd-volume-csi; do
		out=$(in_ct sh -c 'command -v "$1"' sh "$path") || fail "$path is not on PATH in the container"
		case $out in /usr/bin/* | /usr/sbin/*) ;; *) fail "$path is $out, not the packaged one" ;; esac
		in_ct dpkg -S "$out" >/dev/null 2>&1 || fail "$out belongs to no package"
	done
	for path in rbd-volumed.service rbd-volume@.service rbd-fuse@.service rbd-nbd@.service rbd-volume-csi.service \
		rbd-volume-metrics.service rbd-volume-metrics.timer; do
		out=$(unit_prop "${path/@/@x}" FragmentPath)
		[ "$out" = "$SYS_UNITDIR/$path" ] || fail "${path/@/@x} is loaded from '$out', not $SYS_UNITDIR/$path"
	done
	in_ct dpkg --verify rbd-volume rbd-volume-csi >/dev/null || fail "dpkg --verify: $(in_ct dpkg --verify rbd-volume rbd-volume-csi)"
	out=$(unit_prop rbd-volume@x.service ExecStart)
	[[ $out == *"path=/usr/bin/rbd-volumectl "* ]] || fail "rbd-volume@x runs: $out"
	# postinst: enabled and started; the bus name owned.
	[ "$(in_ct systemctl is-enabled rbd-volumed.service)" = enabled ] ||
		fail "rbd-volumed.service is $(in_ct systemctl is-enabled rbd-volumed.service), not enabled"
	wait_for 30 in_ct systemctl -q is-active rbd-volumed.service ||
		fail "postinst did not start rbd-volumed.service ($(unit_prop rbd-volumed.service ActiveState))"
	# The metrics timer is for hosts with node_exporter: installed, not enabled.
	out=$(in_ct systemctl is-enabled rbd-volume-metrics.timer || true)
	[ "$out" = disabled ] || fail "rbd-volume-metrics.timer is $out, expected disabled"
	# The shim's unit is installed, not enabled, not started.
	out=$(in_ct systemctl is-enabled rbd-volume-csi.service || true)
	[ "$out" = disabled ] || fail "rbd-volume-csi.service is $out, expected disabled"
	out=$(unit_prop rbd-volume-csi.service ActiveState)
	[ "$out" = inactive ] || fail "rbd-volume-csi.service is $out, expected inactive"
	# tmpfiles.d applied by postinst.
	for path in /run/rbd-volume /run/rbd-volume/volumes /etc/rbd-volume/volumes; do
		[ "$(in_ct stat -c %a "$path" 2>/dev/null)" = 755 ] || fail "$path is missing or not 0755"
	done
	# The bus policy in force: anyone may read, nobody but root may change.
	out=$(as_nobody /usr/bin/rbd-volumectl list 2>&1) || fail "rbd-volumectl list as nobody: $out"
	out=$(as_nobody busctl --system call org.rbdvolume1 /org/rbdvolume1 org.rbdvolume1.Manager Up sb x false 2>&1) &&
		fail "nobody may call Up: $out"
	[[ $out == *"Access denied"* ]] || fail "Up as nobody: expected a denial by the bus policy, got: $out"
	# bash completion of rbd-volumectl: installed, registered, completing a verb
	out=$(in_ct bash -c '. /usr/share/bash-completion/completions/rbd-volumectl && complete -p rbd-volumectl')
	[ "$out" = "complete -F _rbd_volumectl rbd-volumectl" ] || fail "bash completion: $out"
	[ "$(completion rbd-volumectl recon)" = reconcile ] || fail "'recon' completes to '$(completion rbd-volumectl recon)'"
	[ "$(completion rbd-volumectl up --no)" = --no-wait ] || fail "'up --no' completes to '$(completion rbd-volumectl up --no)'"
	in_ct test -s /usr/share/zsh/vendor-completions/_rbd-volumectl || fail "no zsh completion"
	# The journal's catalog, read by postinst's journalctl --update-catalog:
	# every entry of units/rbd-volume.catalog.
	local entries
	entries=$(grep -c '^-- [0-9a-f]\{32\}$' "$SYS_SRC/units/rbd-volume.catalog")
	out=$(in_ct journalctl --list-catalog 2>/dev/null | grep -c '^[0-9a-f]\{32\} rbd-volume: ' || true)
	[ "$out" = "$entries" ] || fail "journalctl --list-catalog shows $out rbd-volume entries, not $entries"
	# Conffiles: everything under /etc.
	out=$(in_ct dpkg-query -W -f='${Conffiles}' rbd-volume)
	[[ $out == *"/etc/rbd-volume/rbd-volumed.toml "* ]] || fail "rbd-volume's conffiles: $out"
	out=$(in_ct dpkg-query -W -f='${Conffiles}' rbd-volume-csi)
	[[ $out == *"/etc/default/rbd-volume-csi "* ]] || fail "rbd-volume-csi's conffiles: $out"
	out=$(in_ct dpkg -L rbd-volume rbd-volume-csi | grep '^/etc/.' | while read -r path; do
		[ -d "$SYS_ROOT$path" ] || echo "$path"; done)
	for path in $out; do
		in_ct dpkg-query -W -f='${Conffiles}\n' rbd-volume rbd-volume-csi | grep -q "^ $path " ||
			fail "$path is under /etc but no conffile"
	done
}

# completion WORD...: what bash completes the last WORD to, as a user's TAB would
completion() {
	in_ct bash -c '. /usr/share/bash-completion/completions/rbd-volumectl
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _rbd_volumectl; echo "${COMPREPLY[*]}"' completion "$@"
}

case_start_volume() {
	local mounts loops volume_id fuse_id pid out
	write_spec demo
	ctl check /etc/rbd-volume/volumes/demo.toml >/dev/null ||
		fail "the spec is invalid: $(ctl check /etc/rbd-volume/volumes/demo.toml | head -n 1)"
	# a volume's name completes from its spec file, the daemon never asked
	[ "$(completion rbd-volumectl up de)" = demo ] || fail "'up de' completes to '$(completion rbd-volumectl up de)'"
	wait_for 10 ctl status demo || fail "rbd-volumed did not pick up the spec within 10 s"
	start_units rbd-volume@demo.service
	expect_phase demo up
	in_ct mountpoint -q /srv/demo || fail "/srv/demo is not mounted"
	in_ct sh -c 'head -c 4M /dev/urandom >/srv/demo/before-upgrade && sync /srv/demo/before-upgrade'
	save sum "$(in_ct sha256sum /srv/demo/before-upgrade | cut -d' ' -f1)"
	mounts=$(demo_mounts)
	[ "$(echo "$mounts" | wc -l)" -eq 3 ] || fail "expected 3 mounts of demo (fuse, staging, /srv/demo), found: $mounts"
	save mounts "$mounts"
	loops=$(loops_of demo)
	volume_id=$(unit_prop rbd-volume@demo.service InvocationID)
	fuse_id=$(unit_prop rbd-fuse@demo.service InvocationID)
	pid=$(unit_prop rbd-volumed.service MainPID)
	[ -n "$loops" ] || fail "no loop device of demo"
	if [ -z "$volume_id" ] || [ -z "$fuse_id" ]; then fail "rbd-volume@demo or rbd-fuse@demo has no InvocationID"; fi
	[ "$pid" != 0 ] || fail "rbd-volumed has no main process"
	# what an operator reads: the completion of its name, the unit's status,
	# the format in the journal with the catalog's explanation
	[ "$(completion rbd-volumectl status de)" = demo ] || fail "'status de' completes to '$(completion rbd-volumectl status de)'"
	[[ $(in_ct systemctl status --no-pager rbd-volume@demo.service || true) == *"Status: \"up: /dev/loop"* ]] ||
		fail "systemctl status rbd-volume@demo shows no phase: $(in_ct systemctl status --no-pager rbd-volume@demo.service | head -n 8)"
	# the metrics node_exporter would read, as the timer's service writes them
	in_ct mkdir -p /var/lib/prometheus/node-exporter
	in_ct systemctl start rbd-volume-metrics.service || fail "rbd-volume-metrics.service failed"
	out=$(in_ct cat /var/lib/prometheus/node-exporter/rbd-volume.prom 2>&1) || fail "no metrics file: $out"
	[[ $out == *'rbdvolume_volume_phase{volume="demo",phase="up"} 1'* ]] || fail "the metrics show demo not up: $out"
	in_ct rm -rf /var/lib/prometheus
	out=$(in_ct journalctl --no-pager -q -x MESSAGE_ID=d6b77c6b471548edb4a874ffd0f7f0bb)
	[[ $out == *"rbd-volume formatted /dev/loop"*"for volume demo"* ]] || fail "journalctl -x shows no catalog text: $out"
	save loops "$loops"
	save fuse_invocation "$fuse_id"
	save daemon_pid "$pid"
	save volume_invocation "$volume_id" # last: the later cases look for it
}

# The same build under a higher version: dpkg-deb -R, Version bumped (and the
# shim's dependency on it), dpkg-deb -b; then dpkg -i, as an upgrade.
repack() { # repack DEB OUTDIR NEW-VERSION
	local dir
	dir=$SYS_WORK/repack/$(basename "$1" .deb)
	rm -rf "$dir"
	mkdir -p "$dir" "$2"
	dpkg-deb -R "$1" "$dir"
	sed -i -e "s/^Version: .*/Version: $3/" \
		-e "s/rbd-volume (= $DEB_VERSION)/rbd-volume (= $3)/" "$dir/DEBIAN/control"
	dpkg-deb --root-owner-group -Zgzip -b "$dir" "$2/" >/dev/null
	rm -rf "$dir"
}

case_upgrade_keeps_volume() {
	local new=$DEB_VERSION$UPGRADE_SUFFIX out pkg started mounts
	dpkg --compare-versions "$new" gt "$DEB_VERSION" || fail "$new is not newer than $DEB_VERSION"
	rm -rf "$SYS_WORK/debs-new"
	repack "$DEB_MAIN" "$SYS_WORK/debs-new" "$new"
	repack "$DEB_CSI" "$SYS_WORK/debs-new" "$new"
	[ "$(load volume_invocation)" != "" ] || fail "no volume is up (start_volume failed)"
	started=$(sys_now_ms)
	dpkg_install "$SYS_WORK/dpkg-upgrade.log" "$SYS_WORK"/debs-new/rbd-volume_*.deb "$SYS_WORK"/debs-new/rbd-volume-csi_*.deb
	sys_log "dpkg -i (upgrade to $new) took $(elapsed_s "$started") s"
	for pkg in rbd-volume rbd-volume-csi; do
		[ "$(pkg_status $pkg)" = "install ok installed $new" ] || fail "$pkg is '$(pkg_status $pkg)' after the upgrade"
	done
	# The daemon: restarted by postinst (a new main process), still enabled.
	wait_for 30 daemon_is_new "$(load daemon_pid)" ||
		fail "rbd-volumed was not restarted by the upgrade (MainPID $(unit_prop rbd-volumed.service MainPID), was $(load daemon_pid); $(unit_prop rbd-volumed.service ActiveState))"
	[ "$(in_ct systemctl is-enabled rbd-volumed.service)" = enabled ] || fail "rbd-volumed.service is no longer enabled"
	# The volume and its mapper: never stopped, never restarted.
	out=$(unit_prop rbd-volume@demo.service ActiveState)
	[ "$out" = active ] || fail "rbd-volume@demo is $out after the upgrade"
	[ "$(unit_prop rbd-volume@demo.service InvocationID)" = "$(load volume_invocation)" ] ||
		fail "rbd-volume@demo was restarted by the upgrade (new InvocationID)"
	[ "$(unit_prop rbd-fuse@demo.service InvocationID)" = "$(load fuse_invocation)" ] ||
		fail "rbd-fuse@demo was restarted by the upgrade (new InvocationID)"
	mounts=$(demo_mounts)
	[ "$mounts" = "$(load mounts)" ] || fail "mounts changed: before: $(load mounts | tr '\n' ';') after: $(echo "$mounts" | tr '\n' ';')"
	[ "$(loops_of demo)" = "$(load loops)" ] || fail "loop device changed: before: $(load loops); after: $(loops_of demo)"
	out=$(in_ct sha256sum /srv/demo/before-upgrade | cut -d' ' -f1) || fail "cannot read /srv/demo/before-upgrade"
	[ "$out" = "$(load sum)" ] || fail "/srv/demo/before-upgrade changed across the upgrade"
	# The new daemon found the volume as it was, and I/O goes on.
	wait_for 60 vol_phase_is demo up || fail "the new daemon reports demo as $(vol_field demo phase 2>/dev/null)"
	in_ct sh -c 'head -c 1M /dev/urandom >/srv/demo/after-upgrade && sync /srv/demo/after-upgrade' ||
		fail "cannot write to /srv/demo after the upgrade"
	save sum_after "$(in_ct sha256sum /srv/demo/after-upgrade | cut -d' ' -f1)"
}

case_stop_volume() {
	local out
	[ -n "$(load volume_invocation)" ] || fail "no volume is up (start_volume failed)"
	stop_units rbd-volume@demo.service
	assert_nothing_left
	out=$(unit_prop rbd-fuse@demo.service ActiveState)
	[ "$out" = inactive ] || fail "rbd-fuse@demo is $out"
	# What was written before and after the upgrade is in the image.
	out=$(image_file_sha256 demo before-upgrade)
	[ "$out" = "$(load sum)" ] || fail "the file written before the upgrade differs in the image"
	if [ -n "$(load sum_after)" ]; then
		out=$(image_file_sha256 demo after-upgrade)
		[ "$out" = "$(load sum_after)" ] || fail "the file written after the upgrade differs in the image"
	fi
	in_ct rm -f /etc/rbd-volume/volumes/demo.toml
}

# dpkg --purge: the daemon stopped, every file gone, the enablement links and
# the conffiles too.
case_purge() {
	local path out
	in_ct dpkg --purge rbd-volume-csi rbd-volume </dev/null >"$SYS_WORK/dpkg-purge.log" 2>&1 ||
		fail "dpkg --purge failed: $(tail -n 3 "$SYS_WORK/dpkg-purge.log" | tr '\n' ' ')"
	for path in rbd-volume rbd-volume-csi; do
		out=$(pkg_status $path)
		case $out in "" | *" not-installed "*) ;; *) fail "$path is '$out' after the purge" ;; esac
	done
	out=$(unit_prop rbd-volumed.service ActiveState)
	[ "$out" = inactive ] || fail "rbd-volumed.service is $out after the purge"
	in_ct pgrep -x rbd-volumed >/dev/null && fail "an rbd-volumed process is left"
	for path in /usr/sbin/rbd-volumed /usr/bin/rbd-volumectl /usr/sbin/rbd-volume-csi \
		/lib/systemd/system/rbd-volumed.service /lib/systemd/system/rbd-volume@.service \
		/usr/share/dbus-1/system.d/org.rbdvolume1.conf /etc/rbd-volume /etc/default/rbd-volume-csi \
		/etc/systemd/system/multi-user.target.wants/rbd-volumed.service; do
		if in_ct test -e "$path" -o -L "$path"; then fail "$path is left after the purge"; fi
	done
}

# --- running them ------------------------------------------------------------------------

run_case() { # run_case NAME: as run.sh runs the system suite's; its status is the case's
	local name=$1 started
	started=$(sys_now_ms)
	sys_run_case "$name"
	[ "$SYS_CASE_RC" -eq 0 ] || case_diagnostics
	sys_log "$name took $(elapsed_s "$started") s"
	sys_report "$name" "$SYS_CASE_RC" "$SYS_CASE_REASON"
	return "$SYS_CASE_RC"
}

main() {
	local started name
	DEB_DIR=${1:-${RBDV_DEBS_DIR:-}}
	sys_skip_if_missing packages RBDV_REQUIRE_PACKAGES "$(missing)"
	sys_skip_if_missing packages RBDV_REQUIRE_PACKAGES "$(find_debs)"
	find_debs >/dev/null # again, in this shell: the variables
	echo "# $(basename "$DEB_MAIN") and $(basename "$DEB_CSI") from $DEB_DIR"

	started=$(sys_now_ms)
	mkdir -p /var/lib/rbd-volume-tests # short: Ceph's admin socket paths
	SYS_WORK=$(mktemp -d /var/lib/rbd-volume-tests/packages.XXXXXX)
	sys_trap_teardown
	sys_loop_devices >"$SYS_WORK/loops-before"
	sys_start_guardian
	sys_start_cluster
	sys_start_sandbox
	# Loop devices are global: those of our volumes attached from now on.
	# shellcheck disable=SC2034 # read by cases.sh's ct_new_loops
	SYS_CASE_LOOPS=$(ct_loops)
	# Without the packages installed nothing else means anything (files that
	# dpkg unpacked but did not configure could still pass).
	local installed=1
	for name in "${CASES[@]}"; do
		if [ $installed = 0 ]; then
			sys_report "$name" 1 "not run: the install failed"
		elif ! run_case "$name" && [ "$name" = install ]; then
			installed=0
		fi
	done
	sys_report_teardown
	sys_log "packages test took $(elapsed_s "$started") s"
	sys_summary
}

main "$@"
