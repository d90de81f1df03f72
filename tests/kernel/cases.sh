# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# cases.sh: the kernel suite's cases, one function case_NAME each, run in this
# order by tests/kernel/run.sh. A case runs in a subshell with errexit: fail
# REASON, or any command that fails, ends it. After each case every volume
# is stopped and its spec removed; whatever is still mapped, mounted or
# running then fails the case (and is cleaned up by force for the next one).
# Every image is the case's own: no case depends on another.

# shellcheck disable=SC2034 # run.sh reads it
KG_CASES=(
	krbd_stage_publish
	krbd_options_noudev
	krbd_busy_unmap
	krbd_online_grow
	krbd_safety_matrix
	crypt_round_trip
	crypt_refuses_a_filesystem
	crypt_crash_windows
	crypt_image_metadata
	auto_driver
	nbd_heal
	daemon_restart_keeps_io
	nbd_dead_mapper
	nbd_dead_inflight
)

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
	local left
	# a reload only when a case left a drop-in: under emulation it takes seconds
	# shellcheck disable=SC2016 # expanded inside
	in_guest sh -c 'systemctl stop "rbdv-*" >/dev/null 2>&1; rm -f /run/rbdv-*
		set -- /run/systemd/system/rbd-nbd@*.service.d
		[ ! -e "$1" ] || { rm -rf "$@" && systemctl daemon-reload; }' || true
	sys_stop_volumes >/dev/null 2>&1 || true
	in_guest sh -c 'rm -f /etc/rbd-volume/volumes/*.toml'
	left=$(kg_leftovers)
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

# --- krbd --------------------------------------------------------------------------------

# An ext4 and an xfs volume through their units: mapped by the kernel, udev's
# links, found again by a restarted daemon, data across down/up, one mapping.
case_krbd_stage_publish() {
	local v sum_e sum_x before
	in_guest modprobe rbd
	kspec ke krbd ext4
	kspec kx krbd xfs size=320M # mkfs.xfs needs more than 300 MB
	start_units rbd-volume@ke.service rbd-volume@kx.service
	expect_phase ke up
	expect_phase kx up
	for v in ke kx; do
		[[ $(device_of $v) == /dev/rbd* ]] || fail "$v is on '$(device_of $v)', not a krbd device"
		in_guest test -L "/dev/rbd/$CEPH_POOL/$v" || fail "udev made no /dev/rbd/$CEPH_POOL/$v"
		[ "$(in_guest readlink -f "/dev/rbd/$CEPH_POOL/$v")" = "$(device_of $v)" ] ||
			fail "/dev/rbd/$CEPH_POOL/$v does not lead to $(device_of $v)"
	done
	[ "$(in_guest findmnt -n -o FSTYPE /srv/ke)" = ext4 ] || fail "/srv/ke is not ext4"
	[ "$(in_guest findmnt -n -o FSTYPE /srv/kx)" = xfs ] || fail "/srv/kx is not xfs"
	sum_e=$(write_data ke data)
	sum_x=$(write_data kx data)

	# a restarted daemon finds the mappings in sysfs and changes nothing
	before="$(krbd_mappings) $(mounts_of ke kx)"
	in_guest systemctl restart rbd-volumed.service
	wait_up 60 ke kx
	[ "$(krbd_mappings) $(mounts_of ke kx)" = "$before" ] ||
		fail "a daemon restart changed mappings or mounts: $before -> $(krbd_mappings) $(mounts_of ke kx)"
	# a second up maps nothing twice
	ctl up ke >/dev/null
	ctl up kx >/dev/null
	[ "$(krbd_mappings | grep -c " $CEPH_POOL/k[ex]$")" = 2 ] || fail "mapped twice: $(krbd_mappings)"

	stop_units rbd-volume@ke.service rbd-volume@kx.service
	[ -z "$(krbd_mappings)" ] || fail "down left krbd mappings: $(krbd_mappings)"
	[ -z "$(mounts_of ke kx)" ] || fail "down left mounts: $(mounts_of ke kx)"
	in_guest test ! -e "/dev/rbd/$CEPH_POOL/ke" || fail "udev kept /dev/rbd/$CEPH_POOL/ke after the unmap"

	start_units rbd-volume@ke.service rbd-volume@kx.service
	[ "$(read_sum ke data)" = "$sum_e" ] || fail "ext4 data changed across down/up"
	[ "$(read_sum kx data)" = "$sum_x" ] || fail "xfs data changed across down/up"
}

# map.krbd.options reach the kernel (sysfs config_info); with noudev the map
# returns with udevd stopped (rbd device map would wait for it forever).
case_krbd_options_noudev() {
	local id
	in_guest modprobe rbd
	kspec ko krbd ext4 'krbd="noudev","queue_depth=64","alloc_size=131072"'
	in_guest systemctl stop systemd-udevd.service systemd-udevd-control.socket systemd-udevd-kernel.socket
	in_guest timeout 120 systemctl start rbd-volume@ko.service || {
		in_guest systemctl start systemd-udevd.service
		fail "rbd-volume@ko did not start without udev: $(failed_starts rbd-volume@ko.service)"
	}
	in_guest systemctl start systemd-udevd.service
	expect_phase ko up
	id=$(device_of ko)
	id=${id#/dev/rbd}
	in_guest grep -q 'queue_depth=64' "/sys/bus/rbd/devices/$id/config_info" ||
		fail "queue_depth=64 is not in config_info: $(in_guest cat "/sys/bus/rbd/devices/$id/config_info" | sed 's/key=[^ ,]*/key=.../')"
	in_guest grep -q 'alloc_size=131072' "/sys/bus/rbd/devices/$id/config_info" || fail "alloc_size is not in config_info"
	[ "$(in_guest cat "/sys/block/rbd$id/queue/nr_requests")" = 64 ] ||
		fail "nr_requests is $(in_guest cat "/sys/block/rbd$id/queue/nr_requests"), not the queue_depth 64"
	stop_units rbd-volume@ko.service
	[ -z "$(krbd_mappings)" ] || fail "down left $(krbd_mappings)"
}

# A device something else holds open is not unmapped, and the error names the
# holder; once it lets go, the down completes.
case_krbd_busy_unmap() {
	local dev said
	in_guest modprobe rbd
	kspec kb krbd ext4
	start_units rbd-volume@kb.service
	dev=$(device_of kb)
	in_guest systemd-run --quiet --unit=rbdv-holder /bin/sh -c "exec 3<$dev; exec sleep 600"
	wait_for 10 in_guest sh -c "ls -l /proc/\$(systemctl show -P MainPID rbdv-holder)/fd | grep -q '$dev\$'" ||
		fail "the holder did not open $dev"
	# ExecStop= fails: the unit ends failed, the mapping stays
	in_guest timeout 120 systemctl stop rbd-volume@kb.service || true
	[ "$(unit_prop rbd-volume@kb.service ActiveState)" = failed ] ||
		fail "rbd-volume@kb is $(unit_prop rbd-volume@kb.service ActiveState) after a stop with $dev held, not failed"
	[ "$(krbd_mappings)" = "${dev#/dev/} $CEPH_POOL/kb" ] || fail "$dev was unmapped while held open: $(krbd_mappings)"
	said=$(in_guest journalctl --no-pager -q -o cat -u rbd-volume@kb.service | grep 'rbd-volumectl: down' | tail -n 1)
	[[ $said == *"open by pid "*" (sleep); not forcing it"* ]] ||
		fail "the unit's error does not name the holder: ${said:-nothing}"
	sys_log "$said"
	vol_condition kb Failed "(sleep)" || fail "the status does not name the holder: $(vol_field kb conditions)"
	in_guest systemctl stop rbdv-holder.service
	ctl down kb >/dev/null || fail "down after the holder let go failed: $(vol_field kb conditions)"
	[ -z "$(krbd_mappings)" ] || fail "still mapped after down: $(krbd_mappings)"
}

# rbd resize of a staged ext4 volume: the next pass grows it online.
case_krbd_online_grow() {
	local before after
	in_guest modprobe rbd
	kspec kg krbd ext4 size=256M
	start_units rbd-volume@kg.service
	before=$(df_kib kg)
	on_cluster rbd resize --no-progress --size 512M "$CEPH_POOL/kg"
	ctl reconcile kg >/dev/null || fail "the pass after the resize failed: $(vol_field kg conditions)"
	after=$(df_kib kg)
	[ "$after" -gt $((before + 200000)) ] || fail "/srv/kg did not grow: $before KiB -> $after KiB"
	# The ring buffer has the line before resize2fs returns; journald reads it later.
	in_guest dmesg | grep -q 'EXT4-fs (rbd[0-9]*): resized filesystem' ||
		fail "the kernel did not log an online resize"
	sys_log "df: $before KiB -> $after KiB, online"
	stop_units rbd-volume@kg.service
}
df_kib() { in_guest df -k --output=size "/srv/$1" | tail -n 1 | tr -d ' '; }

# Images that hold something, mapped through krbd on /dev/rbdN: never
# formatted, never mounted, not one byte changed.
case_krbd_safety_matrix() {
	local kind units=() before=() i
	local kinds=(ext4 xfs luks2 gpt dos random0 random64k)
	in_guest modprobe rbd
	for kind in "${kinds[@]}"; do
		make_image "sm_$kind" "$kind"
		# the spec's filesystem is never the one on the image: a mount would change it
		if [ "$kind" = ext4 ]; then kspec "sm_$kind" krbd xfs size=none; else kspec "sm_$kind" krbd ext4 size=none; fi
		units+=("rbd-volume@sm_$kind.service")
	done
	for kind in "${kinds[@]}"; do before+=("$(image_sum "sm_$kind")"); done
	if in_guest timeout 300 systemctl start "${units[@]}" 2>/dev/null; then
		fail "volumes over foreign data started"
	fi
	for kind in "${kinds[@]}"; do
		[[ $(device_of "sm_$kind") == /dev/rbd* ]] ||
			fail "sm_$kind was not mapped through krbd: '$(device_of "sm_$kind")' ($(vol_field "sm_$kind" conditions))"
		vol_condition "sm_$kind" Conflict || fail "sm_$kind shows no conflict: $(vol_field "sm_$kind" conditions)"
		sys_log "sm_$kind: $(vol_field "sm_$kind" conditions | cut -c1-160)"
	done
	[ -z "$(mounts_of "${kinds[@]/#/sm_}")" ] || fail "something was mounted: $(mounts_of "${kinds[@]/#/sm_}")"
	in_guest timeout 300 systemctl stop "${units[@]}" || fail "the stop failed"
	for i in "${!kinds[@]}"; do
		[ "$(image_sum "sm_${kinds[$i]}")" = "${before[$i]}" ] || fail "image sm_${kinds[$i]} changed"
	done
}

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

# --- LUKS2 (dm-crypt) ------------------------------------------------------------------

Marker=RBDV-PLAINTEXT-MARKER-7f3a

# put_key NAME: a 0600 keyfile /etc/rbd-volume/keys/NAME.key of random printable bytes
put_key() {
	in_guest sh -ec "mkdir -p -m 0700 /etc/rbd-volume/keys
		umask 077; head -c 48 /dev/urandom | base64 -w0 >/etc/rbd-volume/keys/$1.key"
}
key_of() { in_guest cat "/etc/rbd-volume/keys/$1.key"; }
# shellcheck disable=SC2016 # expanded inside
set_key() { "$KG_GUEST" exec "$SYS_WORK/vm" -i sh -c 'umask 077; cat >"$1"' set_key "/etc/rbd-volume/keys/$1.key"; } # set_key NAME: stdin


# The key appears in no journal field, no unit's environment, no argv.
key_nowhere() { secret_nowhere "the key of $1" "$(key_of "$1")"; }
secret_nowhere() { # secret_nowhere WHAT SECRET
	! in_guest journalctl --no-pager -o export | grep -aqF -e "$2" || fail "$1 is in the journal"
	! in_guest sh -c 'cat /proc/[0-9]*/cmdline /proc/[0-9]*/environ 2>/dev/null' | grep -aqF -e "$2" ||
		fail "$1 is in a command line or an environment"
	! in_guest "$SYS_BINDIR/rbd-volumectl" status --json | grep -qF -e "$2" || fail "$1 is in a status"
}

# A fresh image with [encryption]: a LUKS2 header on the image, the filesystem
# on /dev/mapper/rbdv-NAME, data across down/up, no plaintext in the image.
# Then rotate-key: only the new key opens the header, and the volume with it.
case_crypt_round_trip() {
	local sum header old out rc device slot
	in_guest modprobe -a rbd dm_crypt
	put_key kc
	kspec kc krbd ext4 crypt=/etc/rbd-volume/keys/kc.key
	start_units rbd-volume@kc.service
	expect_phase kc up
	[ "$(crypt_mappings)" = rbdv-kc ] || fail "no rbdv-kc mapping: $(crypt_mappings)"
	[ "$(in_guest findmnt -n -o FSTYPE /srv/kc)" = ext4 ] || fail "/srv/kc is not ext4"
	[ "$(in_guest readlink -f "$(in_guest findmnt -n -o SOURCE /srv/kc)")" = "$(in_guest readlink -f /dev/mapper/rbdv-kc)" ] ||
		fail "/srv/kc is not on the mapping: $(in_guest findmnt -n -o SOURCE /srv/kc)"
	in_guest sh -c "yes $Marker | head -c 8M >/srv/kc/plain && sync -f /srv/kc/plain"
	sum=$(write_data kc data)
	stop_units rbd-volume@kc.service
	[ -z "$(crypt_mappings)" ] || fail "down left $(crypt_mappings) open"
	[ -z "$(krbd_mappings)" ] || fail "down left krbd mappings: $(krbd_mappings)"

	! on_cluster rbd export --no-progress "$CEPH_POOL/kc" - | grep -aqF "$Marker" ||
		fail "the plaintext is in the image"
	# head stops reading after the header: rbd's broken pipe is expected
	header=$(on_cluster sh -c "rbd export --no-progress $CEPH_POOL/kc - 2>/dev/null | head -c 16777216 >$SYS_WORK/kc.head &&
		cryptsetup luksDump $SYS_WORK/kc.head; rm -f $SYS_WORK/kc.head") || fail "no LUKS header on the image"
	grep -q '^Version:[[:space:]]*2' <<<"$header" || fail "not a LUKS2 header: $header"
	sys_log "header: $(grep -E 'cipher:|PBKDF:' <<<"$header" | tr -s ' \t\n' ' ' | cut -c1-120)"

	start_units rbd-volume@kc.service
	[ "$(read_sum kc data)" = "$sum" ] || fail "data changed across down/up"
	key_nowhere kc

	# rotate-key: the new key in the header and in the keyfile, the old one nowhere
	old=$(key_of kc)
	put_key kc-new
	# not while another spec names the same keyfile: it would be locked out
	kspec kcs krbd ext4 size=none crypt=/etc/rbd-volume/keys/kc.key
	! out=$(ctl rotate-key kc --new-keyfile /etc/rbd-volume/keys/kc-new.key 2>&1) ||
		fail "rotate-key rewrote a keyfile volume kcs shares"
	[[ $out == *"also the key of volume 'kcs'"* ]] || fail "the refusal does not name kcs: $out"
	in_guest rm -f /etc/rbd-volume/volumes/kcs.toml
	out=$(ctl rotate-key kc --new-keyfile /etc/rbd-volume/keys/kc-new.key) || fail "rotate-key failed: $out"
	sys_log "rotate-key: $(echo "$out" | tr '\n' ';')"
	[ "$(key_of kc)" = "$(key_of kc-new)" ] || fail "the keyfile does not hold the new key"
	[ "$(in_guest stat -c %a /etc/rbd-volume/keys/kc.key)" = 600 ] || fail "the keyfile's mode changed"
	[ "$(in_guest journalctl --no-pager -q -o cat RBDV_VOLUME=kc RBDV_STEP=rotate-key-remove-old | wc -l)" = 1 ] ||
		fail "no journal record of the old key's removal"
	stop_units rbd-volume@kc.service
	key_of kc >"$SYS_WORK/kc.newkey"
	printf %s "$old" >"$SYS_WORK/kc.oldkey"
	header_opens_with kc "$SYS_WORK/kc.newkey" || fail "the new key does not open the header"
	# cryptsetup's exit status 2: no key slot opens with it
	rc=0
	header_opens_with kc "$SYS_WORK/kc.oldkey" 2>/dev/null || rc=$?
	[ "$rc" = 2 ] || fail "the old key: cryptsetup exit $rc, expected 2 (no key available)"
	rm -f "$SYS_WORK/kc.newkey" "$SYS_WORK/kc.oldkey"
	start_units rbd-volume@kc.service
	[ "$(read_sum kc data)" = "$sum" ] || fail "data changed across the rotation"
	key_nowhere kc
	secret_nowhere "the old key of kc" "$old"

	# A rotation cut short after replace, as cryptsetup can leave it: the new
	# key in a slot and in the keyfile, the old slot recorded as retiring. The
	# volume comes up with the keyfile; the same rotate-key destroys that slot.
	old=$(key_of kc)
	put_key kc-next
	device=$(device_of kc)
	in_guest cryptsetup luksAddKey --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
		--key-file /etc/rbd-volume/keys/kc.key "$device" /etc/rbd-volume/keys/kc-next.key
	slot=$(in_guest cryptsetup open --test-passphrase -v --key-file /etc/rbd-volume/keys/kc.key "$device" |
		sed -n 's/^Key slot \([0-9]*\) unlocked.*/\1/p')
	[ -n "$slot" ] || fail "no key slot for the current key of kc"
	printf '{"type":"rbd-volume-rotation","keyslots":[],"retiring":"%s"}' "$slot" | put_file /run/kc-token.json
	in_guest cryptsetup token import --json-file /run/kc-token.json "$device"
	key_of kc-next | set_key kc
	stop_units rbd-volume@kc.service
	start_units rbd-volume@kc.service
	[ "$(read_sum kc data)" = "$sum" ] || fail "data changed across the cut-short rotation"
	device=$(device_of kc)
	out=$(ctl rotate-key kc --new-keyfile /etc/rbd-volume/keys/kc-next.key) || fail "the rerun failed: $out"
	[[ $out == *"remove-old: key slot $slot destroyed"* ]] || fail "the rerun did not finish: $out"
	! in_guest cryptsetup luksDump "$device" | grep -q rbd-volume-rotation || fail "the record is still in the header"
	rc=0
	printf %s "$old" | set_key kc-retired
	in_guest cryptsetup open --test-passphrase --key-file /etc/rbd-volume/keys/kc-retired.key "$device" 2>/dev/null || rc=$?
	[ "$rc" = 2 ] || fail "the retired key: cryptsetup exit $rc, expected 2"
	stop_units rbd-volume@kc.service
}

# An image that holds a filesystem, with [encryption] in its spec: refused,
# never encrypted over, not one byte changed.
case_crypt_refuses_a_filesystem() {
	local before
	in_guest modprobe -a rbd dm_crypt
	put_key kf
	make_image kf ext4
	kspec kf krbd ext4 size=none crypt=/etc/rbd-volume/keys/kf.key
	before=$(image_sum kf)
	if in_guest timeout 120 systemctl start rbd-volume@kf.service 2>/dev/null; then
		fail "an ext4 image was staged as an encrypted volume"
	fi
	vol_condition kf Conflict "never encrypted over" ||
		fail "no conflict naming the filesystem: $(vol_field kf conditions)"
	sys_log "kf: $(vol_field kf conditions | cut -c1-160)"
	[ -z "$(crypt_mappings)" ] || fail "opened: $(crypt_mappings)"
	in_guest timeout 120 systemctl stop rbd-volume@kf.service || fail "the stop failed"
	[ "$(image_sum kf)" = "$before" ] || fail "the image changed"
}

# The two crash windows as a kill -9 of rbd-volumed leaves them: the mapping
# open and nothing mounted (the daemon is kept from restarting until the
# mounts are gone). Up mounts without a second open; down closes, then unmaps.
# Then an online grow: the mapping first, then xfs (one format for both:
# argon2 under emulation is the slow part).
case_crypt_crash_windows() {
	local sum opens before after
	in_guest modprobe -a rbd dm_crypt
	put_key kw
	kspec kw krbd xfs size=320M crypt=/etc/rbd-volume/keys/kw.key
	start_units rbd-volume@kw.service
	sum=$(write_data kw data)
	opens=$(luks_opens kw)
	[ "$opens" -ge 1 ] || fail "the journal shows no luks-open step of kw"

	# between luks-open and mount
	kill_daemon_and_unmount kw
	ctl up kw >/dev/null || fail "up after the kill failed: $(vol_field kw conditions)"
	[ "$(read_sum kw data)" = "$sum" ] || fail "data changed"
	[ "$(crypt_mappings)" = rbdv-kw ] || fail "not open once: $(crypt_mappings)"
	[ "$(luks_opens kw)" = "$opens" ] || fail "opened again: $opens -> $(luks_opens kw) luks-open steps"

	# between unmount and luks-close
	kill_daemon_and_unmount kw
	stop_units rbd-volume@kw.service
	[ -z "$(crypt_mappings)" ] || fail "down left $(crypt_mappings) open"
	[ -z "$(krbd_mappings)" ] || fail "down left krbd mappings: $(krbd_mappings)"
	start_units rbd-volume@kw.service
	[ "$(read_sum kw data)" = "$sum" ] || fail "data changed across the crash windows"

	# rbd resize of the staged volume: the mapping grows, then xfs online
	before=$(df_kib kw)
	on_cluster rbd resize --no-progress --size 640M "$CEPH_POOL/kw"
	ctl reconcile kw >/dev/null || fail "the pass after the resize failed: $(vol_field kw conditions)"
	after=$(df_kib kw)
	[ "$after" -gt $((before + 250000)) ] || fail "/srv/kw did not grow: $before KiB -> $after KiB"
	sys_log "df: $before KiB -> $after KiB, through the mapping"
	[ "$(read_sum kw data)" = "$sum" ] || fail "data changed across the grow"
	stop_units rbd-volume@kw.service
}
luks_opens() { in_guest journalctl --no-pager -q -o cat RBDV_VOLUME="$1" RBDV_STEP=luks-open RBDV_RESULT=changed | wc -l; }
kill_daemon_and_unmount() { # kill_daemon_and_unmount NAME
	in_guest systemctl kill --signal=KILL rbd-volumed.service
	in_guest systemctl stop rbd-volumed.service
	in_guest umount "/srv/$1" "/run/rbd-volume/staging/$1" || fail "cannot unmount $1 by hand"
	[ "$(crypt_mappings)" = "rbdv-$1" ] || fail "the mapping went with the daemon: $(crypt_mappings)"
}

# ceph-csi's metadata KMS, against ceph_csi_key.py (written apart from our
# C++): an image as ceph-csi's provisioner leaves it (a data key wrapped for
# its volume handle, "encryptionPrepared") stages with that key; a fresh
# image's key, kept by rbd-volume, unwraps as ceph-csi unwraps it. A wrong
# passphrase is "permission denied", nothing opened; the right one opens the data.
case_crypt_image_metadata() {
	local id=0001-0024-kernel-suite-0000000000000001-6a1f0c3e json sum kek image
	in_guest modprobe -a rbd dm_crypt
	put_key kcm
	put_key kcn
	on_cluster rbd create --size 256M "$CEPH_POOL/kcm" || fail "cannot create kcm"
	json=$(key_of kcm | "$KG_CSI_KEY" wrap "$id" "$SYS_WORK/kcm.dek") || fail "cannot wrap a data key"
	on_cluster rbd image-meta set "$CEPH_POOL/kcm" rbd.csi.ceph.com/dek "$json"
	on_cluster rbd image-meta set "$CEPH_POOL/kcm" rbd.csi.ceph.com/encrypted encryptionPrepared
	kspec kcm krbd ext4 size=none "kek=/etc/rbd-volume/keys/kcm.key@$id"
	kspec kcn krbd ext4 kek=/etc/rbd-volume/keys/kcn.key
	start_units rbd-volume@kcm.service rbd-volume@kcn.service
	[ "$(crypt_mappings | tr '\n' ' ')" = "rbdv-kcm rbdv-kcn " ] || fail "not both open: $(crypt_mappings)"
	in_guest sh -c "yes $Marker | head -c 8M >/srv/kcm/plain && sync -f /srv/kcm/plain"
	sum=$(write_data kcm data)
	stop_units rbd-volume@kcm.service rbd-volume@kcn.service

	[ "$(meta_of kcm rbd.csi.ceph.com/dek)" = "$json" ] || fail "the provisioner's key was replaced"
	json=$(meta_of kcn rbd.csi.ceph.com/dek)
	[ -n "$json" ] || fail "no data key kept for kcn"
	key_of kcn | "$KG_CSI_KEY" unwrap kcn "$json" >"$SYS_WORK/kcn.dek" ||
		fail "kcn's key does not unwrap as ceph-csi unwraps it: $json"
	for image in kcm kcn; do
		[ "$(meta_of $image rbd.csi.ceph.com/encrypted)" = encrypted ] ||
			fail "$image: rbd.csi.ceph.com/encrypted is '$(meta_of $image rbd.csi.ceph.com/encrypted)'"
		header_opens_with $image "$SYS_WORK/$image.dek" || fail "$image's header does not open with its data key"
	done
	! on_cluster rbd export --no-progress "$CEPH_POOL/kcm" - | grep -aqF "$Marker" ||
		fail "the plaintext is in the image"

	kek=$(key_of kcm)
	put_key kcm
	if in_guest timeout 120 systemctl start rbd-volume@kcm.service 2>/dev/null; then
		fail "kcm staged with another passphrase"
	fi
	vol_condition kcm Failed "does not unwrap" || fail "no refusal naming the key: $(vol_field kcm conditions)"
	sys_log "kcm: $(vol_field kcm conditions | cut -c1-200)"
	[ -z "$(crypt_mappings)" ] || fail "opened with a wrong passphrase: $(crypt_mappings)"
	in_guest timeout 120 systemctl stop rbd-volume@kcm.service || fail "the stop failed"
	printf %s "$kek" | set_key kcm
	start_units rbd-volume@kcm.service
	[ "$(read_sum kcm data)" = "$sum" ] || fail "data changed"
	key_nowhere kcm
	key_nowhere kcn
	secret_nowhere "kcm's data key" "$(cat "$SYS_WORK/kcm.dek")"
	secret_nowhere "kcn's data key" "$(cat "$SYS_WORK/kcn.dek")"
	stop_units rbd-volume@kcm.service
	rm -f "$SYS_WORK/kcm.dek" "$SYS_WORK/kcn.dek"
}
meta_of() { on_cluster rbd image-meta get "$CEPH_POOL/$1" "$2" 2>/dev/null; }
header_opens_with() { # header_opens_with IMAGE KEYFILE: the image's LUKS header opens with the key
	# head stops reading after the header: rbd's broken pipe is expected
	on_cluster sh -c "rbd export --no-progress $CEPH_POOL/$1 - 2>/dev/null | head -c 16777216 >$SYS_WORK/$1.head &&
		cryptsetup open --test-passphrase --key-file '$2' $SYS_WORK/$1.head; rc=\$?; rm -f $SYS_WORK/$1.head; exit \$rc"
}

# driver = "auto": krbd when the rbd module is loaded, nbd when only nbd is;
# an image with a feature krbd cannot map: auto maps it with nbd, a spec
# that says krbd gets "unsupported by krbd".
case_auto_driver() {
	in_guest modprobe rbd
	in_guest modprobe nbd
	kspec aa auto ext4
	start_units rbd-volume@aa.service
	[[ $(device_of aa) == /dev/rbd* ]] || fail "auto mapped on '$(device_of aa)' with rbd loaded, not krbd"
	stop_units rbd-volume@aa.service
	in_guest rmmod rbd || fail "cannot unload rbd: $(in_guest lsmod | grep '^rbd')"
	start_units rbd-volume@aa.service
	[[ $(device_of aa) == /dev/nbd* ]] || fail "auto mapped on '$(device_of aa)' with only nbd loaded, not nbd"
	stop_units rbd-volume@aa.service
	in_guest modprobe rbd

	on_cluster rbd rm --no-progress "$CEPH_POOL/aj" >/dev/null 2>&1 || true
	on_cluster rbd create --size 64M --image-feature layering,exclusive-lock,journaling "$CEPH_POOL/aj"
	kspec aj krbd ext4 size=none
	if in_guest timeout 120 systemctl start rbd-volume@aj.service 2>/dev/null; then
		fail "a journaling image was staged through krbd"
	fi
	vol_condition aj Failed "unsupported by krbd: this kernel's rbd cannot map $CEPH_POOL/aj's journaling" ||
		fail "no 'unsupported by krbd' naming journaling: $(vol_field aj conditions)"
	sys_log "krbd: $(vol_field aj conditions | cut -c1-200)"
	in_guest systemctl stop rbd-volume@aj.service
	kspec aj auto ext4 size=none
	start_units rbd-volume@aj.service
	[[ $(device_of aj) == /dev/nbd* ]] || fail "auto put the journaling image on '$(device_of aj)', not nbd"
	stop_units rbd-volume@aj.service
}

# --- nbd -------------------------------------------------------------------------------------

# kill -9 of rbd-nbd under a synchronous writer, ten times: systemd restarts
# rbd-nbd@NAME, which attaches to the device the kernel kept; no write fails,
# the device and the mounts stay, and a pass in the gap sees no fault.
# rbd-nbd@.service gives up after 5 starts within 60 s (StartLimitBurst): the
# kills would have to be 14 s apart. Not what this case is about: a drop-in
# lifts the limit for nh alone, and each kill follows as soon as the writes
# have resumed.
case_nbd_heal() {
	local i pid device mounts count heals="" started
	in_guest modprobe nbd
	kspec nh nbd ext4
	printf '[Unit]\nStartLimitBurst=20\n' | put_file /run/systemd/system/rbd-nbd@nh.service.d/start-limit.conf
	in_guest systemctl daemon-reload
	start_units rbd-volume@nh.service
	device=$(device_of nh)
	mounts=$(mounts_of nh)
	start_writer nh
	for i in 1 2 3 4 5 6 7 8 9 10; do
		pid=$(unit_prop rbd-nbd@nh.service MainPID)
		[ "$pid" -gt 0 ] || fail "rbd-nbd@nh has no main process (round $i)"
		count=$(writes_of nh)
		started=$(sys_now_ms)
		in_guest kill -KILL "$pid"
		# a pass while nothing serves the device must leave it be
		ctl reconcile nh >/dev/null || fail "a pass during the re-attach failed (round $i): $(vol_field nh conditions)"
		! vol_condition nh MapperLost || fail "MapperLost while systemd re-attached (round $i)"
		wait_for 60 writes_past nh "${count%% *}" 3 ||
			fail "no write went through within 60 s of kill -9 (round $i): $(writes_of nh)"
		heals+="$(elapsed_s "$started") "
		[ "$(unit_prop rbd-nbd@nh.service MainPID)" != "$pid" ] || fail "the writes went on through the killed $pid?"
	done
	sys_log "writes resumed after each kill -9 in: ${heals}s"
	[ "$(device_of nh)" = "$device" ] || fail "the device changed: $device -> $(device_of nh)"
	[ "$(mounts_of nh)" = "$mounts" ] || fail "the mounts changed: $mounts -> $(mounts_of nh)"
	expect_phase nh up
	[ "$(unit_prop rbd-nbd@nh.service NRestarts)" -ge 10 ] ||
		fail "rbd-nbd@nh restarted $(unit_prop rbd-nbd@nh.service NRestarts) times, not 10"
	[ "$(nbd_mappings | wc -l)" = 1 ] || fail "more than one nbd device: $(nbd_mappings)"
	stop_writer nh
	stop_units rbd-volume@nh.service
}

# writes_past NAME COUNT N: NAME's writer is N writes past COUNT
writes_past() { local now; now=$(writes_of "$1"); [ "${now%% *}" -gt $(($2 + $3)) ]; }

# Restarting rbd-volumed, and kill -9 of it, under writers on a krbd and an
# nbd volume: no write fails, devices and mount IDs stay.
case_daemon_restart_keeps_io() {
	local before pid
	in_guest modprobe rbd
	in_guest modprobe nbd
	kspec dk krbd ext4
	kspec dn nbd xfs size=320M
	start_units rbd-volume@dk.service rbd-volume@dn.service
	start_writer dk
	start_writer dn
	before="$(device_of dk) $(device_of dn) $(mounts_of dk dn)"
	pid=$(unit_prop rbd-volumed.service MainPID)
	in_guest systemctl restart rbd-volumed.service
	[ "$(unit_prop rbd-volumed.service MainPID)" != "$pid" ] || fail "restart kept MainPID $pid"
	wait_up 60 dk dn
	pid=$(unit_prop rbd-volumed.service MainPID)
	in_guest kill -KILL "$pid"
	wait_for 30 daemon_replaced "$pid" || fail "systemd did not restart rbd-volumed after kill -9 of $pid"
	wait_up 60 dk dn
	[ "$(device_of dk) $(device_of dn) $(mounts_of dk dn)" = "$before" ] ||
		fail "devices or mounts changed: $before -> $(device_of dk) $(device_of dn) $(mounts_of dk dn)"
	writes_past dk 0 10 || fail "the krbd writer made no progress: $(writes_of dk)"
	writes_past dn 0 10 || fail "the nbd writer made no progress: $(writes_of dn)"
	stop_writer dk
	stop_writer dn
	stop_units rbd-volume@dk.service rbd-volume@dn.service
}

# rbd-nbd stopped for good: the volume turns degraded with what to do, the
# daemon serves the others and answers at once, and down completes once the
# kernel gives up on the device (map.nbd's reattach-timeout, 20 s here).
case_nbd_dead_mapper() {
	local started ms worst=0 i
	in_guest modprobe rbd
	in_guest modprobe nbd
	kspec nd nbd ext4 'nbd="reattach-timeout=20"'
	kspec na krbd ext4
	start_units rbd-volume@nd.service
	start_writer nd
	in_guest systemctl stop rbd-nbd@nd.service # a stop detaches: the kernel keeps the device
	started=$(sys_now_ms)
	# no event says so: the resync pass (every 15 s here, kg_install) finds it
	wait_for 75 vol_condition nd MapperLost "systemctl start rbd-nbd@nd.service" ||
		fail "no MapperLost naming the way out: $(vol_field nd phase) $(vol_field nd conditions)"
	expect_phase nd degraded
	sys_log "degraded after $(elapsed_s "$started") s: $(vol_field nd conditions | cut -c1-240)"
	# A status that waited on the dead device would take its reattach timeout
	# (20 s) or longer. Under emulation one run of rbd-volumectl, from exec to
	# exit, took 313 ms to 2.3 s (a CI machine busy with the other lanes):
	# the bound tells a wait from a slow CPU, not one speed from another.
	for i in 1 2 3 4 5; do
		ms=$(ctl_ms status)
		[ "$ms" -le "$worst" ] || worst=$ms
	done
	[ "$worst" -lt 10000 ] || fail "rbd-volumectl status took $worst ms: it waited on the dead device"
	started=$(sys_now_ms)
	start_units rbd-volume@na.service
	expect_phase na up
	stop_units rbd-volume@na.service
	sys_log "status at most $worst ms; another volume up and down in $(elapsed_s "$started") s"
	# past the reattach timeout the kernel fails the held writes: the writer ends with errors
	in_guest touch /run/rbdv-writer-nd.stop
	wait_for 90 unit_in_state rbdv-writer-nd.service exited || fail "the writer of nd is still blocked"
	started=$(sys_now_ms)
	in_guest timeout 120 systemctl stop rbd-volume@nd.service || fail "the stop of nd failed"
	[ "$(unit_prop rbd-volume@nd.service ActiveState)" = inactive ] ||
		fail "rbd-volume@nd is $(unit_prop rbd-volume@nd.service ActiveState) after its stop: $(vol_field nd conditions)"
	sys_log "down of the dead volume took $(elapsed_s "$started") s"
	[ -z "$(nbd_mappings)" ] || fail "down left $(nbd_mappings)"
}

# rbd-nbd killed for good while a write is in flight (sent to it, never
# answered): once its unit has stopped, that write fails after the reattach
# timeout (10 s here) instead of waiting for a server for ever, and the dead
# volume comes down. SIGSTOP holds the write in flight; a drop-in keeps
# systemd from restarting the server.
case_nbd_dead_inflight() {
	local pid device started result
	in_guest modprobe nbd
	kspec ni nbd ext4 'nbd="reattach-timeout=10"'
	start_units rbd-volume@ni.service
	device=$(device_of ni)
	in_guest dd if=/dev/urandom of=/srv/ni/held bs=4k count=1 oflag=direct status=none
	printf '[Service]\nRestart=no\n' | put_file /run/systemd/system/rbd-nbd@ni.service.d/no-restart.conf
	in_guest systemctl daemon-reload
	pid=$(unit_prop rbd-nbd@ni.service MainPID)
	[ "$pid" -gt 0 ] || fail "rbd-nbd@ni has no main process"
	in_guest kill -STOP "$pid"
	# shellcheck disable=SC2016 # expanded inside
	in_guest systemd-run --quiet --unit=rbdv-held-ni sh -c 'dd if=/dev/zero of=/srv/ni/held bs=4k \
		count=1 oflag=direct conv=notrunc status=none; echo $? >/run/rbdv-held-ni.status'
	wait_for 30 inflight_on "$device" || fail "no request in flight on $device"
	in_guest kill -KILL "$pid"
	started=$(sys_now_ms)
	wait_for 90 in_guest test -s /run/rbdv-held-ni.status ||
		fail "the write in flight on $device is still blocked $(elapsed_s "$started") s after kill -9"
	result=$(in_guest cat /run/rbdv-held-ni.status)
	sys_log "the held write ended $(elapsed_s "$started") s after kill -9 (dd exit status $result)"
	[ "$result" != 0 ] || fail "the held write succeeded with no server to take it"
	in_guest journalctl --no-pager -q -o cat -u rbd-nbd@ni.service | grep -qF "nothing serves $device" ||
		fail "rbd-nbd@ni's stop did not say that $device's requests now fail"
	in_guest rm -rf /run/systemd/system/rbd-nbd@ni.service.d
	in_guest systemctl daemon-reload
	in_guest timeout 120 systemctl stop rbd-volume@ni.service || fail "the stop of ni failed"
	[ -z "$(nbd_mappings)" ] || fail "down left $(nbd_mappings)"
}

# inflight_on DEVICE: the block layer has a request of DEVICE's in its driver
inflight_on() {
	local counts
	counts=$(in_guest cat "/sys/block/${1#/dev/}/inflight") || return 1
	[ "$(echo "$counts" | awk '{ print $1 + $2 }')" -gt 0 ]
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
				status=none || errors=$((errors + 1))
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

# --- CSI -------------------------------------------------------------------------------------

# Through rbd-volume-csi, as kubelet calls it, with ceph-csi's volume context:
# `mounter: rbd` maps with krbd, `mounter: rbd-nbd` with rbd-nbd. Stage,
# publish, write, unpublish, unstage; staged again, the data is there.
if [ -x "${1:-/nonexistent}/src/csi/rbd-volume-csi" ]; then
	KG_CASES+=(csi_krbd csi_nbd csi_crypt)
elif [ "${RBDV_REQUIRE_KERNEL:-0}" = 1 ]; then
	KG_CASES+=(csi_unavailable) # required: a build without the shim is no quiet pass
fi

case_csi_unavailable() { fail "this build has no rbd-volume-csi (meson -Dcsi=enabled needs gRPC)"; }
case_csi_krbd() { kg_csi rbd /dev/rbd; }
case_csi_nbd() { kg_csi rbd-nbd /dev/nbd; }

kg_csi() { # kg_csi MOUNTER DEVICE-PREFIX
	local id image staging target name sum round
	CSI_MOUNTER=$1
	id=0001-0012-test-cluster-0000000000000001-kernel-$1
	image=csi_${1//-/_}
	staging=$(csi_staging "k$1")
	target=$(csi_target "k$1" pod-1)
	in_guest modprobe rbd
	in_guest modprobe nbd
	csi_setup
	csi_image "$image" 256M
	for round in 1 2; do
		csi_stage_and_publish "$id" "$image" "$staging" "$target" ext4
		name=$(ctl list | awk '/^csi_/ {print $1}')
		[[ $(device_of "$name") == "$2"* ]] ||
			fail "mounter $1 staged on '$(device_of "$name")', not $2*"
		if [ "$round" = 1 ]; then
			sum=$(in_guest sh -c "head -c 4M /dev/urandom >'$target/data' && sync -f '$target/data' &&
				sha256sum <'$target/data'")
		else
			[ "$(in_guest sh -c "sha256sum <'$target/data'")" = "$sum" ] || fail "the data changed across unstage and stage"
		fi
		csi_teardown "$id" "$staging" "$target"
		csi_assert_clean
	done
	csi_key_only_in ""
}

# ceph-csi's encrypted volumes through rbd-volume-csi: an image as its
# provisioner makes one for the metadata KMS (a data key wrapped for the
# volume ID by ceph_csi_key.py, "encryptionPrepared") stages with
# encrypted=true and the stage secret's passphrase. A wrong passphrase is
# PERMISSION_DENIED with nothing left open, mapped or written; the right one
# stages; NodeExpandVolume grows through the mapping; the passphrase and the
# data key are nowhere.
case_csi_crypt() {
	local id=0001-0012-test-cluster-0000000000000001-kernel-crypt image=csi_crypt
	local staging target name passphrase json sum before after
	CSI_MOUNTER=rbd
	staging=$(csi_staging kcrypt)
	target=$(csi_target kcrypt pod-1)
	in_guest modprobe -a rbd dm_crypt
	csi_setup
	put_file /etc/ceph-csi-encryption-kms-config/config.json <<<'{"secrets-metadata": {"encryptionKMSType": "metadata"}}'
	csi_image "$image" 256M
	passphrase=$(head -c 24 /dev/urandom | base64 -w0)
	json=$(printf %s "$passphrase" | "$KG_CSI_KEY" wrap "$id" "$SYS_WORK/$image.dek") || fail "cannot wrap a data key"
	csi_rbd image-meta set "$CEPH_POOL/$image" rbd.csi.ceph.com/dek "$json"
	csi_rbd image-meta set "$CEPH_POOL/$image" rbd.csi.ceph.com/encrypted encryptionPrepared
	in_guest mkdir -p "$staging" "${target%/*}"

	csi_code 7 Node.NodeStageVolume "$(csi_crypt_stage_json "$id" "$image" "$staging" "not-$passphrase")"
	[ -z "$(crypt_mappings)" ] || fail "a wrong passphrase left $(crypt_mappings) open"
	[ -z "$(krbd_mappings)" ] || fail "a wrong passphrase left $(krbd_mappings) mapped"
	csi_no_files || fail "a wrong passphrase left $(csi_files)"
	[ "$(meta_of "$image" rbd.csi.ceph.com/encrypted)" = encryptionPrepared ] || fail "the image was marked"

	csi_call Node.NodeStageVolume "$(csi_crypt_stage_json "$id" "$image" "$staging" "$passphrase")" >/dev/null ||
		fail "the encrypted stage failed: $(csi_journal)"
	csi_call Node.NodePublishVolume "$(csi_publish_json "$id" "$staging" "$target" ext4)" >/dev/null ||
		fail "publish failed: $(csi_journal)"
	name=$(ctl list | awk '/^csi_/ {print $1}')
	[ "$(crypt_mappings)" = "rbdv-$name" ] || fail "not open as rbdv-$name: $(crypt_mappings)"
	in_guest sh -c "yes $Marker | head -c 8M >'$target/plain' && sync -f '$target/plain'"
	sum=$(in_guest sh -c "head -c 4M /dev/urandom >'$target/data' && sync -f '$target/data' && sha256sum <'$target/data'")

	before=$(in_guest df -k --output=size "$target" | tail -n 1 | tr -d ' ')
	csi_rbd resize --no-progress --size 512M "$CEPH_POOL/$image"
	csi_call Node.NodeExpandVolume "{\"volume_id\": \"$id\", \"volume_path\": \"$target\",
		\"capacity_range\": {\"required_bytes\": 536870912}}" >/dev/null || fail "expand failed: $(csi_journal)"
	after=$(in_guest df -k --output=size "$target" | tail -n 1 | tr -d ' ')
	[ "$after" -gt $((before + 200000)) ] || fail "$target did not grow: $before KiB -> $after KiB"
	sys_log "expand: $before KiB -> $after KiB, through the mapping"
	[ "$(in_guest sh -c "sha256sum <'$target/data'")" = "$sum" ] || fail "data changed"

	csi_teardown "$id" "$staging" "$target"
	csi_assert_clean
	[ -z "$(crypt_mappings)" ] || fail "unstage left $(crypt_mappings) open"
	[ "$(meta_of "$image" rbd.csi.ceph.com/encrypted)" = encrypted ] ||
		fail "rbd.csi.ceph.com/encrypted is '$(meta_of "$image" rbd.csi.ceph.com/encrypted)'"
	header_opens_with "$image" "$SYS_WORK/$image.dek" || fail "the header does not open with the provisioner's key"
	! on_cluster rbd export --no-progress "$CEPH_POOL/$image" - | grep -aqF "$Marker" ||
		fail "the plaintext is in the image"
	secret_nowhere "the encryption passphrase" "$passphrase"
	secret_nowhere "the data key" "$(cat "$SYS_WORK/$image.dek")"
	! in_guest grep -rlF -- "$passphrase" /run/rbd-volume /etc /var/lib/kubelet 2>/dev/null | grep -q . ||
		fail "the passphrase is in $(in_guest grep -rlF -- "$passphrase" /run/rbd-volume /etc /var/lib/kubelet 2>/dev/null | tr '\n' ' ')"
	csi_key_only_in ""
	rm -f "$SYS_WORK/$image.dek"
}

# csi_crypt_stage_json ID IMAGE STAGING PASSPHRASE: ceph-csi's stage of a metadata-KMS volume
csi_crypt_stage_json() {
	csi_stage_json "$1" "$2" "$3" ext4 | python3 -c 'import json, sys
r = json.load(sys.stdin)
r["secrets"]["encryptionPassphrase"] = sys.argv[1]
r["volume_context"].update(encrypted="true", encryptionType="block", encryptionKMSID="secrets-metadata")
print(json.dumps(r))' "$4"
}

# --- figures ---------------------------------------------------------------------------------

# Stage (`systemctl start rbd-volume@NAME`: map, fsck-free mount, bind) and
# unstage (stop) per driver, the drivers taken in turn round by round so the
# machine's load falls on all alike; after one round that creates and formats.
# Figures of an emulated CPU (qemu TCG): compare drivers, not hosts.
KG_CASES+=(stage_times)
case_stage_times() {
	local driver round started staged rounds=${RBDV_KERNEL_ROUNDS:-5}
	local drivers=(krbd nbd fuse)
	in_guest modprobe rbd
	in_guest modprobe nbd
	for driver in "${drivers[@]}"; do
		kspec "t_$driver" "$driver" ext4
		: >"$SYS_WORK/times.$driver"
	done
	for ((round = 0; round <= rounds; round++)); do
		for driver in "${drivers[@]}"; do
			started=$(sys_now_ms)
			start_units "rbd-volume@t_$driver.service"
			staged=$(($(sys_now_ms) - started))
			started=$(sys_now_ms)
			stop_units "rbd-volume@t_$driver.service"
			[ "$round" = 0 ] || echo "$staged $(($(sys_now_ms) - started))" >>"$SYS_WORK/times.$driver"
		done
	done
	for driver in "${drivers[@]}"; do
		sys_log "$driver: $(python3 -c '
import statistics, sys
rows = [tuple(map(int, line.split())) for line in open(sys.argv[1])]
def show(values):
    return "median %d ms (%d-%d)" % (statistics.median(values), min(values), max(values))
print("stage %s, unstage %s, %d rounds" % (show([r[0] for r in rows]), show([r[1] for r in rows]), len(rows)))' \
			"$SYS_WORK/times.$driver")"
	done
}

# --- figures run by name only ----------------------------------------------------------------

# Too long for every run of the suite: `tests/kernel/run.sh BUILD many_volumes`.
# shellcheck disable=SC2034 # run.sh reads it
KG_FIGURES=(many_volumes)

# many_specs PREFIX DRIVER COUNT: COUNT fresh 64 MiB ext4 volumes PREFIX00...,
# their specs put in place with one guest call (a call per spec would take
# longer than the maps); their units in MANY_UNITS
many_specs() {
	local prefix=$1 driver=$2 count=$3 n name dir
	dir=$(mktemp -d "$SYS_WORK/specs.XXXXXX")
	MANY_UNITS=()
	for ((n = 0; n < count; n++)); do
		printf -v name '%s%02d' "$prefix" "$n"
		MANY_UNITS+=("rbd-volume@$name.service")
		KSPEC_TO="$dir/$name.toml" kspec "$name" "$driver" ext4 size=64M
	done
	tar -C "$dir" -cf - . | put_file /run/rbdv-specs.tar
	rm -rf "$dir"
	# shellcheck disable=SC2016 # expanded inside
	in_guest sh -c 'd=/etc/rbd-volume/.many && mkdir -p "$d" && tar -xf /run/rbdv-specs.tar -C "$d" &&
		mv "$d"/*.toml /etc/rbd-volume/volumes/ && rmdir "$d" && rm -f /run/rbdv-specs.tar'
}

# The fifty-volume comparison of the system suite (tests/system/cases.sh) with
# krbd and rbd-nbd on the real kernel: per driver, RBDV_KERNEL_VOLUMES (50)
# fresh volumes started one `systemctl start` after another and stopped the
# same way, then as many others in one `systemctl start` and one `systemctl
# stop`, with the ratios, the guest's CPU busy share and the timeline. Fifty
# rbd-nbd servers need more than the guest's default memory:
# RBDV_KERNEL_MEM=8192M. RBDV_KERNEL_DRIVERS names fewer drivers. Figures of
# an emulated CPU: compare the ways, not hosts.
case_many_volumes() {
	local count=${RBDV_KERNEL_VOLUMES:-50} driver unit since started ticks
	local seq_up seq_down up down seq_up_busy seq_down_busy up_busy down_busy
	in_guest modprobe rbd
	in_guest modprobe nbd
	for driver in ${RBDV_KERNEL_DRIVERS:-krbd nbd}; do
		many_specs "s_$driver" "$driver" "$count"
		since=$(ct_now_ms) ticks=$(cpu_ticks) started=$(sys_now_ms)
		for unit in "${MANY_UNITS[@]}"; do start_units "$unit"; done
		seq_up=$(elapsed_s "$started") seq_up_busy=$(busy_since "$ticks")
		sys_log "$driver, one by one, up:"
		timeline_since "$since"
		since=$(ct_now_ms) ticks=$(cpu_ticks) started=$(sys_now_ms)
		for unit in "${MANY_UNITS[@]}"; do stop_units "$unit"; done
		seq_down=$(elapsed_s "$started") seq_down_busy=$(busy_since "$ticks")

		many_specs "c_$driver" "$driver" "$count"
		since=$(ct_now_ms) ticks=$(cpu_ticks) started=$(sys_now_ms)
		start_units "${MANY_UNITS[@]}"
		up=$(elapsed_s "$started") up_busy=$(busy_since "$ticks")
		sys_log "$driver, at once, up:"
		timeline_since "$since"
		since=$(ct_now_ms) ticks=$(cpu_ticks) started=$(sys_now_ms)
		stop_units "${MANY_UNITS[@]}"
		down=$(elapsed_s "$started") down_busy=$(busy_since "$ticks")
		[ -z "$(kg_leftovers)" ] || fail "$driver: left after the stop: $(kg_leftovers)"

		sys_log "$driver: $count volumes up: one by one $seq_up s, at once $up s, ratio $(ratio_of "$up" "$seq_up")"
		sys_log "$driver: $count volumes down: one by one $seq_down s, at once $down s, ratio $(ratio_of "$down" "$seq_down")"
		sys_log "$driver: guest CPUs busy up: one by one $seq_up_busy, at once $up_busy; down: one by one $seq_down_busy, at once $down_busy"
	done
}
