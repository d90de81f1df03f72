# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# cases.sh: what the kernel suite's cases share; the cases themselves are in
# krbd_cases.sh, crypt_cases.sh, nbd_cases.sh, csi_cases.sh, life_cases.sh
# and figures.sh, which tests/kernel/run.sh sources in that order after this
# file, each adding its case names to KG_CASES: the cases run in that order,
# one function case_NAME each. A case runs in a subshell with errexit: fail REASON, or any
# command that fails, ends it. After each case every volume is stopped and its
# spec removed; whatever is still mapped, mounted or running then fails the
# case (and is cleaned up by force for the next one). Every image is the
# case's own: no case depends on another.

# Every case the suite runs, in order; the cases run only when named (each
# longer than CI's time budget affords: docs/testing.md); and the figures,
# run only when named.
# shellcheck disable=SC2034 # run.sh reads them
KG_CASES=()
KG_NAMED_CASES=()
KG_FIGURES=()

# Written in the clear through an encrypted volume: never to be found in its image.
KG_MARKER=RBDV-PLAINTEXT-MARKER-7f3a

# ceph-csi's data key wrapping, written apart from ours
KG_CSI_KEY=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/ceph_csi_key.py

# --- what the guest shows -----------------------------------------------------------

# What the guest shows, as shell to run there: one item a line.
# shellcheck disable=SC2016 # expanded in the guest
KG_SH_KRBD='for d in /sys/bus/rbd/devices/*; do [ -e "$d/name" ] || continue
	echo "rbd${d##*/} $(cat "$d/pool")/$(cat "$d/name")"; done' # "rbdN POOL/IMAGE"
# shellcheck disable=SC2016
KG_SH_NBD='for d in /sys/block/nbd*; do [ -e "$d/pid" ] || continue
	echo "${d##*/} $(cat "$d/backend" 2>/dev/null)"; done' # "nbdN COOKIE" of connected devices
# Sorted: two volumes opened at once take their dm-N numbers in either order.
# shellcheck disable=SC2016
KG_SH_CRYPT='for d in /sys/block/dm-*/dm/name; do [ -e "$d" ] && cat "$d"; done | grep "^rbdv-" | sort || true'

krbd_mappings() { in_guest sh -c "$KG_SH_KRBD"; }
nbd_mappings() { in_guest sh -c "$KG_SH_NBD"; }
crypt_mappings() { in_guest sh -c "$KG_SH_CRYPT"; } # what is open in dm-crypt under our prefix

device_of() { vol_field "$1" device; } # device_of NAME: as rbd-volumectl status shows it

# Everything of ours still mapped, mounted or running; a line a kind. One
# guest call: after every case, each costs.
kg_leftovers() {
	# shellcheck disable=SC2016 # expanded in the guest
	in_guest sh -c 'items() { label=$1; set -- $(cat); [ $# -eq 0 ] || echo "$label: $*"; }
		findmnt -rn -o TARGET | grep -E "^(/srv/|/run/rbd-volume/|/var/lib/kubelet/)" | items mounts
		{ '"$KG_SH_CRYPT"'; } | items "LUKS mappings"
		{ '"$KG_SH_KRBD"'; } | items "krbd mappings"
		{ '"$KG_SH_NBD"'; } | items "nbd devices"
		losetup -l -n -O NAME,BACK-FILE | grep -F /run/rbd-volume/ | items "loop devices"
		systemctl list-units --plain --no-legend --state=active,activating,deactivating,reloading \
			"rbd-nbd@*" "rbd-fuse@*" "rbd-volume@*" "rbdv-*" | while read -r unit _; do echo "$unit"; done |
			items units' || echo "the guest does not answer"
}

# After every case: its volumes stopped and forgotten; what stays is reported
# (the case fails), then removed by force so the next case starts clean.
kg_case_cleanup() {
	local left restarted
	rm -f "$SYS_WORK/vm/guest/link-down" # before a guest that must start again does
	# no quota on the pool (life_pool_full), or every later write would fail
	if [ -e "$SYS_WORK/vm/pool-quota" ]; then
		pool_quota 0 || true
		rm -f "$SYS_WORK/vm/pool-quota"
	fi
	restarted=$(kg_ensure_guest) || true
	# the link up again (a case may fail while it is down); a reload only when
	# a case left a drop-in, a unit of its own or a volume enabled for boot:
	# under emulation it takes seconds
	# shellcheck disable=SC2016 # expanded inside
	in_guest sh -c 'ip link set eth0 up; systemctl stop "rbdv-*" >/dev/null 2>&1; rm -f /run/rbdv-*
		set --
		for p in /run/systemd/system/rbd-nbd@*.service.d /etc/systemd/system/rbd-volume@*.service.d \
			/etc/systemd/system/rbdv-* \
			/etc/systemd/system/*.wants/rbd-volume@* /etc/systemd/system/*.wants/rbdv-*; do
			[ ! -e "$p" ] && [ ! -L "$p" ] || set -- "$@" "$p"
		done
		[ $# -eq 0 ] || { rm -rf "$@" && systemctl daemon-reload; }' || true
	sys_stop_volumes >/dev/null 2>&1 || true
	in_guest sh -c 'rm -f /etc/rbd-volume/volumes/*.toml'
	left=$(kg_leftovers)
	left=${restarted:+$restarted${left:+$'\n'}}$left
	in_guest systemctl reset-failed >/dev/null 2>&1 || true
	[ -n "$left" ] || return 0
	echo "$left"
	# shellcheck disable=SC2016 # expanded inside
	in_guest timeout 120 sh -c 'systemctl kill --signal=KILL "rbd-volume@*" "rbdv-*" 2>/dev/null
		findmnt -rn -o TARGET | grep -E "^(/srv/|/run/rbd-volume/|/var/lib/kubelet/)" | sort -r |
			xargs -r -n1 umount -l
		for d in /sys/block/dm-*/dm/name; do
			case $(cat "$d") in rbdv-*) cryptsetup close "$(cat "$d")" ;; esac
		done
		for d in /sys/bus/rbd/devices/*; do [ -e "$d/name" ] && rbd device unmap -o force "/dev/rbd${d##*/}"; done
		for d in /sys/block/nbd*; do [ -e "$d/pid" ] && rbd-nbd unmap "/dev/${d##*/}"; done
		systemctl stop "rbd-nbd@*" "rbd-fuse@*"; systemctl reset-failed' >/dev/null 2>&1 || true
	return 1
}

# wait_up SECONDS NAME...: every NAME reaches phase up
wait_up() {
	local seconds=$1
	shift
	wait_for "$seconds" all_phases_are up "$@" || fail "not up after $seconds s: $(not_in_phase up "$@")"
}

# A file of random bytes written through NAME's publish path, and its sum.
write_data() { # write_data NAME FILE
	in_guest sh -c "head -c 4M /dev/urandom >/srv/$1/$2 && sync -f /srv/$1/$2 && sha256sum </srv/$1/$2"
}
read_sum() { in_guest sh -c "sha256sum </srv/$1/$2"; } # read_sum NAME FILE

# The sha256 of an image's whole content, read by the cluster's admin.
image_sum() { on_cluster rbd export --no-progress "$CEPH_POOL/$1" - | sha256sum | cut -d' ' -f1; }

# How long `rbd-volumectl ARGS` takes, in ms, timed inside the guest.
ctl_ms() {
	# shellcheck disable=SC2016 # expanded inside
	in_guest sh -c 's=$(date +%s%N); "$@" >/dev/null 2>&1; echo $((($(date +%s%N) - s) / 1000000))' \
		ctl_ms "$SYS_BINDIR/rbd-volumectl" "$@"
}

# --- images of the guest's making ----------------------------------------------------

df_kib() { in_guest df -k --output=size "/srv/$1" | tail -n 1 | tr -d ' '; }

# make_image NAME KIND: a 64 MiB image (xfs: 320) holding KIND, made in the guest and imported
make_image() {
	# shellcheck disable=SC2016 # expanded inside
	in_guest sh -ec 'f=/tmp/$1.img; rm -f "$f"; truncate -s 64M "$f"
		[ "$2" != xfs ] || truncate -s 320M "$f"
		case $2 in
		ext4) mkfs.ext4 -q -F "$f" ;;
		xfs) mkfs.xfs -q "$f" ;;
		luks2) echo secret | cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 \
			--pbkdf-force-iterations 1000 "$f" - ;;
		gpt) echo "label: gpt
,100M" | sfdisk -q "$f" ;;
		dos) echo "label: dos
,100M" | sfdisk -q "$f" ;;
		random0) head -c 4096 /dev/urandom | dd of="$f" conv=notrunc status=none ;;
		random64k) head -c 4096 /dev/urandom | dd of="$f" bs=4096 seek=16 conv=notrunc status=none ;;
		esac
		rbd import --no-progress --id "$3" --keyring "$4" "$f" "$5/$1"
		rm -f "$f"' make_image "$1" "$2" "$CEPH_TEST_ID" "$CEPH_TEST_KEYRING" "$CEPH_POOL" ||
		fail "cannot make image $1 ($2)"
}

# --- writers -------------------------------------------------------------------------------

# start_writer NAME: synchronous 64 KiB writes to NAME's publish path, in
# rbdv-writer-NAME.service, until stop_writer; every failed write is counted.
start_writer() {
	# shellcheck disable=SC2016 # expanded inside
	in_guest systemd-run --quiet --unit="rbdv-writer-$1" -p RemainAfterExit=yes /bin/bash -c '
		i=0 errors=0
		while [ ! -e "/run/rbdv-writer-$1.stop" ]; do
			[ $SECONDS -lt 1800 ] || break
			dd if=/dev/urandom of="/srv/$1/w$((i % 4))" bs=64k count=1 oflag=sync \
				status=none || { errors=$((errors + 1)) && sleep 1; } # a failing fs: no busy loop
			i=$((i + 1))
			echo "$i $errors" >"/run/rbdv-writer-$1.count"
		done
		echo "$i writes, $errors errors"' writer "$1"
	wait_for 30 in_guest test -s "/run/rbdv-writer-$1.count" || fail "the writer of $1 did not start writing"
}

# writes_of NAME: "WRITES ERRORS" so far
writes_of() { in_guest cat "/run/rbdv-writer-$1.count"; }

# stop_writer NAME: ends the writer; fails the case if a write failed
stop_writer() {
	local result
	in_guest touch "/run/rbdv-writer-$1.stop"
	wait_for 120 unit_in_state "rbdv-writer-$1.service" exited || fail "the writer of $1 did not finish"
	result=$(in_guest journalctl --no-pager -q -o cat -u "rbdv-writer-$1.service" | grep ' writes, ' | tail -n 1)
	in_guest systemctl stop "rbdv-writer-$1.service"
	in_guest rm -f "/run/rbdv-writer-$1.stop" "/run/rbdv-writer-$1.count"
	sys_log "writer of $1: $result"
	case $result in
	*" writes, 0 errors") ;;
	*) fail "the writer of $1: ${result:-no result}" ;;
	esac
}
