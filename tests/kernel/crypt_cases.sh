# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# crypt_cases.sh: the kernel suite's LUKS2 cases on dm-crypt (see cases.sh); its
# key helpers serve csi_cases.sh too.

KG_CASES+=(crypt_round_trip crypt_refuses_a_filesystem crypt_crash_windows crypt_image_metadata)

# --- LUKS2 (dm-crypt) ------------------------------------------------------------------

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
	in_guest sh -c "yes $KG_MARKER | head -c 8M >/srv/kc/plain && sync -f /srv/kc/plain"
	sum=$(write_data kc data)
	stop_units rbd-volume@kc.service
	[ -z "$(crypt_mappings)" ] || fail "down left $(crypt_mappings) open"
	[ -z "$(krbd_mappings)" ] || fail "down left krbd mappings: $(krbd_mappings)"

	! on_cluster rbd export --no-progress "$CEPH_POOL/kc" - | grep -aqF "$KG_MARKER" ||
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
	out=$(ctl rotate-key kc --new-keyfile /etc/rbd-volume/keys/kc-new.key 2>&1) || fail "rotate-key failed: $out"
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
	out=$(ctl rotate-key kc --new-keyfile /etc/rbd-volume/keys/kc-next.key 2>&1) || fail "the rerun failed: $out"
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
	in_guest sh -c "yes $KG_MARKER | head -c 8M >/srv/kcm/plain && sync -f /srv/kcm/plain"
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
	! on_cluster rbd export --no-progress "$CEPH_POOL/kcm" - | grep -aqF "$KG_MARKER" ||
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
