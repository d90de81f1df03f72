#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The README's first command: install what is needed, build, and run
# rbd-volume for real, the way a host runs it, without touching this host:
# systemd booted in a container over this machine's root, the build
# installed in it, a throw-away Ceph cluster, and `systemctl start
# rbd-volume@demo` on a fuse-mapped ext4 volume. Everything is torn down at
# the end, Ctrl-C included. It uses the system suite's harness
# (tests/system/lib.sh). Needs root. RBDV_DEMO_BUILD=DIR builds in DIR, not build/.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=tests/system/lib.sh
. tests/system/lib.sh

BUILD=${RBDV_DEMO_BUILD:-build}

# Builds what `meson install` installs, and nothing else (not the tests).
build() {
	scripts/install-deps.sh
	[ -d "$BUILD" ] || meson setup "$BUILD" >/dev/null
	local targets
	targets=$(meson introspect --targets "$BUILD" | python3 -c '
import json, sys
print(" ".join(t["name"] for t in json.load(sys.stdin) if t["installed"]))')
	# shellcheck disable=SC2086 # one target name per word
	meson compile -C "$BUILD" $targets
}

# show 'COMMAND': prints it, then runs it in the container's shell.
show() {
	printf '\n$ %s\n' "$1"
	in_ct bash -c "$1"
}

# Without the daemon (no Ceph in this build) only the offline check is left.
offline_demo() {
	echo "demo: $1; showing the offline spec check only" >&2
	printf '\n$ rbd-volumectl check conf/example.toml\n'
	"$BUILD/src/cli/rbd-volumectl" check conf/example.toml
}

demo() {
	echo
	echo "== a throw-away Ceph cluster, systemd in a container, this build installed in it"
	sys_up "$BUILD"
	write_spec demo 256M
	show 'cat /etc/rbd-volume/volumes/demo.toml'
	# The daemon notices a new spec file within a moment.
	wait_for 10 ctl status demo || true
	show 'systemctl start rbd-volume@demo.service'
	show 'echo "hello from rbd-volume" >/srv/demo/hello.txt && sync'
	show 'ls -l /srv/demo'
	show 'findmnt --target /srv/demo'
	show 'rbd-volumectl status'
	show 'rbd-volumectl status demo'
	show 'systemctl stop rbd-volume@demo.service'
	show 'rbd-volumectl list'
	echo
	echo "== up again: the file is in the RBD image"
	show 'systemctl start rbd-volume@demo.service && cat /srv/demo/hello.txt'
	show 'systemctl stop rbd-volume@demo.service'
	echo
	echo "== tearing down"
	sys_down
	if [ -n "$SYS_DOWN_LEFTOVERS" ]; then
		echo "demo: the teardown left: $SYS_DOWN_LEFTOVERS" >&2
		return 1
	fi
	echo "demo: done; the container, the cluster, their mounts and loop devices are gone"
}

main() {
	build
	local missing
	missing=$(sys_missing "$BUILD")
	if [ -n "$missing" ]; then
		offline_demo "$missing"
		return
	fi
	trap sys_down EXIT
	trap 'exit 130' INT TERM
	demo
}

main "$@"
