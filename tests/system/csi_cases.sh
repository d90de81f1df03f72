# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# csi_cases.sh: rbd-volume-csi end to end, sourced by run.sh after cases.sh.
# The installed rbd-volume-csi.service runs in the container with the fuse
# driver; rbdv-csi-call (from the build) plays kubelet over the real socket
# (csi_lib.sh): stage, publish to two targets, write, read, stats, restarts,
# unpublish, unstage, in filesystem and block mode; a killed rbd-fuse shows
# as an abnormal volume condition; an xfs volume grows after `rbd resize`.
# The stage secret's key must be found only in its 0600 file while staged,
# and nowhere after.

# shellcheck source=tests/system/csi_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/csi_lib.sh"

# Asked of the build directory run.sh was given ($1): SYS_BUILD is set only
# later, by sys_up, and `meson introspect` can fail while another meson
# command holds the build directory, so the built binary is looked for too.
if [ -x "${1:-/nonexistent}/src/csi/rbd-volume-csi" ] ||
	sys_installed_paths "${1:-/nonexistent}" 2>/dev/null | grep -q '/rbd-volume-csi$'; then
	SYS_CASES+=(csi_filesystem csi_block csi_mapper_killed csi_expand_xfs csi_error_codes)
elif [ "${RBDV_REQUIRE_SYSTEM:-0}" = 1 ]; then
	# Required: a build without the shim is a failure, never a quiet pass.
	SYS_CASES+=(csi_unavailable)
else
	echo "# the csi cases are skipped: this build has no rbd-volume-csi (the csi feature)"
fi

case_csi_unavailable() { fail "this build has no rbd-volume-csi (meson -Dcsi=enabled needs gRPC)"; }

case_csi_filesystem() {
	local id=0001-0012-test-cluster-0000000000000001-7d3bd1a4-9e4b-11ee-8c90-0242ac120002
	local staging target1 target2 target name stats used started
	csi_setup
	csi_image csi_fs 256M
	staging=$(csi_staging fs1)
	target1=$(csi_target fs1 pod-1)
	target2=$(csi_target fs1 pod-2)
	in_ct mkdir -p "$staging" "${target1%/*}" "${target2%/*}" # as kubelet does
	started=$(sys_now_ms)
	csi_call Node.NodeStageVolume "$(csi_stage_json "$id" csi_fs "$staging" ext4)" >/dev/null ||
		fail "stage failed: $(csi_journal)"
	sys_log "NodeStageVolume (map, mkfs.ext4 of 256 MiB, mount) took $(($(sys_now_ms) - started)) ms"
	started=$(sys_now_ms)
	csi_call Node.NodeStageVolume "$(csi_stage_json "$id" csi_fs "$staging" ext4)" >/dev/null ||
		fail "a repeated stage failed"
	sys_log "a repeated NodeStageVolume took $(($(sys_now_ms) - started)) ms"
	in_ct mountpoint -q "$staging" || fail "$staging is not mounted"
	name=$(ctl list | awk '/^csi_/ {print $1}')
	[ -n "$name" ] || fail "rbd-volumectl list shows no csi_ volume"
	csi_key_only_in "/run/rbd-volume/csi/$name.key"

	# Restarting the shim and the daemon between stage and publish breaks nothing.
	in_ct systemctl restart rbd-volume-csi.service rbd-volumed.service
	wait_for 30 in_ct test -S "$CSI_SOCK" || fail "no CSI socket after the restart"
	for target in "$target1" "$target2"; do
		started=$(sys_now_ms)
		csi_call Node.NodePublishVolume "$(csi_publish_json "$id" "$staging" "$target" ext4)" >/dev/null ||
			fail "publish to $target failed: $(csi_journal)"
		sys_log "NodePublishVolume took $(($(sys_now_ms) - started)) ms"
	done
	csi_call Node.NodePublishVolume "$(csi_publish_json "$id" "$staging" "$target1" ext4)" >/dev/null ||
		fail "a repeated publish failed"
	in_ct dd if=/dev/urandom of="$target1/data" bs=1M count=8 status=none
	in_ct sync "$target1/data"
	[ "$(in_ct sh -c "sha256sum < '$target1/data'")" = "$(in_ct sh -c "sha256sum < '$target2/data'")" ] ||
		fail "the two targets differ"
	stats=$(csi_call Node.NodeGetVolumeStats "{\"volume_id\": \"$id\", \"volume_path\": \"$target1\"}") ||
		fail "stats failed"
	used=$(echo "$stats" | json_get '[u for u in r["usage"] if u["unit"] == "BYTES"][0]["used"]')
	[ "$used" -ge 8388608 ] || fail "stats report $used bytes used after writing 8 MiB: $stats"
	[ "$(echo "$stats" | json_get 'r["volume_condition"].get("abnormal", False)')" = False ] ||
		fail "a healthy volume is reported abnormal: $stats"
	sys_log "stats: $(echo "$stats" | json_get '[(u["unit"], u["used"], u["total"]) for u in r["usage"]]')"

	started=$(sys_now_ms)
	csi_teardown "$id" "$staging" "$target1" "$target2"
	sys_log "unpublish twice, unstage twice took $(($(sys_now_ms) - started)) ms"
	csi_assert_clean
	csi_key_only_in ""
}

case_csi_block() {
	local id=0001-0012-test-cluster-0000000000000001-block-0001
	local staging target sum
	csi_setup
	csi_image csi_blk 64M
	staging=$(csi_staging blk1)
	target=/var/lib/kubelet/plugins/kubernetes.io/csi/volumeDevices/publish/pvc-blk1/pod-1
	in_ct mkdir -p "$staging" "${target%/*}"
	csi_call Node.NodeStageVolume "$(csi_stage_json "$id" csi_blk "$staging" block)" >/dev/null ||
		fail "block stage failed: $(csi_journal)"
	csi_call Node.NodePublishVolume "$(csi_publish_json "$id" "$staging" "$target" block)" >/dev/null ||
		fail "block publish failed: $(csi_journal)"
	in_ct test -b "$target" || fail "$target is not a block device"
	in_ct dd if=/dev/urandom of=/run/rbdv-blk.pattern bs=1M count=4 status=none
	in_ct dd if=/run/rbdv-blk.pattern of="$target" bs=1M oflag=direct status=none
	sum=$(in_ct sh -c 'sha256sum < /run/rbdv-blk.pattern')
	[ "$(in_ct sh -c "head -c 4194304 '$staging/rbd-volume.block' | sha256sum")" = "$sum" ] ||
		fail "the staging device does not show what the target wrote"
	[ "$(csi_call Node.NodeGetVolumeStats "{\"volume_id\": \"$id\", \"volume_path\": \"$target\"}" |
		json_get 'r["usage"][0]["total"]')" = 67108864 ] || fail "block stats do not report 64 MiB"
	in_ct rm -f /run/rbdv-blk.pattern
	csi_teardown "$id" "$staging" "$target"
	! in_ct test -e "$staging/rbd-volume.block" || fail "the block staging file is left"
	csi_assert_clean
	csi_key_only_in ""
}

case_csi_mapper_killed() {
	local id=0001-0012-test-cluster-0000000000000001-killed-0001
	local staging target name pid stats
	csi_setup
	csi_image csi_kill 128M
	staging=$(csi_staging kill1)
	target=$(csi_target kill1 pod-1)
	csi_stage_and_publish "$id" csi_kill "$staging" "$target" ext4
	name=$(ctl list | awk '/^csi_/ {print $1}')
	pid=$(unit_prop "rbd-fuse@$name.service" MainPID)
	[ "$pid" -gt 0 ] || fail "rbd-fuse@$name is not running"
	in_ct kill -KILL "$pid"
	wait_for 60 csi_abnormal "$id" "$target" || fail "the volume never turned abnormal: $(csi_call Node.NodeGetVolumeStats "{\"volume_id\": \"$id\", \"volume_path\": \"$target\"}")"
	sys_log "condition: $(csi_call Node.NodeGetVolumeStats "{\"volume_id\": \"$id\", \"volume_path\": \"$target\"}" | json_get 'r["volume_condition"]["message"]')"
	csi_teardown "$id" "$staging" "$target"
	csi_assert_clean
}

# As conformance tools call: a missing required field is INVALID_ARGUMENT,
# whatever else is missing; a volume the node does not know is NOT_FOUND,
# before the form of its path is looked at.
case_csi_error_codes() {
	local id=0001-0012-test-cluster-0000000000000001-nowhere-0001
	csi_setup
	csi_code 3 Node.NodePublishVolume "{\"volume_id\": \"$id\", \"target_path\": \"$(csi_target nowhere pod-1)\"}"
	csi_code 5 Node.NodeGetVolumeStats "{\"volume_id\": \"$id\", \"volume_path\": \"relative/path\"}"
	csi_code 5 Node.NodeExpandVolume "{\"volume_id\": \"$id\", \"volume_path\": \"relative/path\"}"
	csi_assert_clean
}

case_csi_expand_xfs() {
	local id=0001-0012-test-cluster-0000000000000001-xfs-0001
	local staging target before after capacity
	csi_setup
	csi_image csi_xfs 320M
	staging=$(csi_staging xfs1)
	target=$(csi_target xfs1 pod-1)
	csi_stage_and_publish "$id" csi_xfs "$staging" "$target" xfs
	before=$(in_ct df -B1 --output=size "$target" | tail -n 1)
	csi_rbd resize "$CEPH_POOL/csi_xfs" --size 640M \
		>/dev/null 2>&1 || fail "rbd resize failed"
	capacity=$(csi_call Node.NodeExpandVolume "{\"volume_id\": \"$id\", \"volume_path\": \"$target\",
		\"capacity_range\": {\"required_bytes\": 671088640}}" | json_get 'r["capacity_bytes"]') ||
		fail "expand failed: $(csi_journal)"
	[ "$capacity" = 671088640 ] || fail "expand reports $capacity bytes, not 640 MiB"
	after=$(in_ct df -B1 --output=size "$target" | tail -n 1)
	[ "$after" -gt $((before + 268435456)) ] || fail "the filesystem did not grow: $before -> $after bytes"
	sys_log "xfs grew from $before to $after bytes"
	csi_teardown "$id" "$staging" "$target"
	csi_assert_clean
}
