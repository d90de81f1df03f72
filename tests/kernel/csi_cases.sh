# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# csi_cases.sh: the kernel suite's CSI cases (see cases.sh); run.sh passes it
# BUILD_DIR, whose rbd-volume-csi they need.

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
	local id image staging target name sum round format
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
			# made by `rbd create` and never written: librbd proves it reads as zeroes
			format=$(in_guest journalctl -q -o export RBDV_VOLUME="$name" RBDV_STEP=format-if-blank |
				sed -n 's/^RBDV_DETAIL=//p')
			[[ $format == *lazy_journal_init=1* ]] || fail "the provisioner's blank image was formatted as '$format'"
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
	# shellcheck disable=SC2034 # csi_lib.sh reads it
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
	in_guest sh -c "yes $KG_MARKER | head -c 8M >'$target/plain' && sync -f '$target/plain'"
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
	! on_cluster rbd export --no-progress "$CEPH_POOL/$image" - | grep -aqF "$KG_MARKER" ||
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
