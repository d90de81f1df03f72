# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# csi_cases.sh: rbd-volume-csi end to end, sourced by run.sh after cases.sh.
# The installed rbd-volume-csi.service runs in the container with the fuse
# driver; rbdv-csi-call (from the build) plays kubelet over the real socket:
# stage, publish to two targets, write, read, stats, restarts, unpublish,
# unstage, in filesystem and block mode; a killed rbd-fuse shows as an
# abnormal volume condition; an xfs volume grows after `rbd resize`. The
# stage secret's key must be found only in its 0600 file while staged, and
# nowhere after.

CSI_SOCK=/var/lib/kubelet/plugins/rbd.volume.csi/csi.sock
CSI_REG_SOCK=/var/lib/kubelet/plugins_registry/rbd.volume.csi-reg.sock
CSI_KEY=""

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

csi_call() { # csi_call METHOD JSON: the response on stdout; fails on an RPC error
	in_ct "$SYS_BUILD/tests/csi/rbdv-csi-call" --timeout 150 "$CSI_SOCK" "$@"
}

json_get() { # json_get EXPR: python expression over `r`, the JSON on stdin
	python3 -c 'import json, sys; r = json.load(sys.stdin); print('"$1"')'
}

# What a failed csi case left: its volumes down, its runtime files gone.
csi_force_clean() {
	local spec name
	for spec in $(in_ct sh -c 'ls /run/rbd-volume/volumes/csi_*.toml 2>/dev/null' || true); do
		name=${spec##*/}
		name=${name%.toml}
		in_ct timeout 120 "$SYS_BINDIR/rbd-volumectl" down "$name" >/dev/null 2>&1 || true
	done
	in_ct sh -c 'rm -f /run/rbd-volume/volumes/csi_*.toml /run/rbd-volume/csi/*' || true
}

# The cluster map, the unit's arguments, and the shim started.
csi_setup() {
	local port
	csi_force_clean
	port=$(ceph-conf -c "$CEPH_CONF" --lookup mon_host | sed -n 's/.*v2:127\.0\.0\.1:\([0-9]*\).*/\1/p')
	[ -n "$port" ] || fail "no v2 monitor address in $CEPH_CONF"
	CSI_KEY=$(ceph-authtool -p -n "client.$CEPH_TEST_ID" "$CEPH_TEST_KEYRING")
	[ -n "$CSI_KEY" ] || fail "no key for client.$CEPH_TEST_ID"
	# ceph-csi's own format, as its ConfigMap holds it.
	put_file /etc/ceph-csi-config/config.json <<EOF2
[{"clusterID": "test-cluster", "monitors": ["v2:127.0.0.1:$port"],
  "rbd": {"netNamespaceFilePath": ""}, "cephFS": {"subvolumeGroup": "csi"}}]
EOF2
	put_file /etc/default/rbd-volume-csi <<EOF2
RBD_VOLUME_CSI_ARGS=--driver fuse --node-id node-a --cluster-map /etc/ceph-csi-config/config.json --log-level debug
EOF2
	in_ct systemctl restart rbd-volume-csi.service || fail "rbd-volume-csi did not start: $(csi_journal)"
	wait_for 20 in_ct test -S "$CSI_SOCK" || fail "no CSI socket: $(csi_journal)"
	[ "$(csi_call Identity.Probe | json_get 'r["ready"]')" = True ] || fail "Probe: not ready"
	[ "$(in_ct "$SYS_BUILD/tests/csi/rbdv-csi-call" "$CSI_REG_SOCK" Registration.GetInfo |
		json_get 'r["type"] + " " + r["name"] + " " + r["endpoint"]')" = "CSIPlugin rbd.volume.csi $CSI_SOCK" ] ||
		fail "kubelet registration does not describe the plugin"
}

csi_journal() { in_ct journalctl --no-pager -q -o cat -n 5 -u rbd-volume-csi.service | tr '\n' ' '; }

csi_image() { # csi_image NAME SIZE: a fresh image, as ceph-csi's provisioner makes it
	rbd --conf "$CEPH_CONF" --id admin --keyring "$CEPH_ADMIN_KEYRING" rm "$CEPH_POOL/$1" >/dev/null 2>&1 || true
	rbd --conf "$CEPH_CONF" --id admin --keyring "$CEPH_ADMIN_KEYRING" create "$CEPH_POOL/$1" --size "$2" ||
		fail "cannot create image $1"
}

# csi_stage_json VOLUME-ID IMAGE STAGING block|ext4|xfs
csi_stage_json() {
	local capability
	case $4 in
	block) capability='"block": {}' ;;
	*) capability='"mount": {"fs_type": "'"$4"'", "mount_flags": ["noatime"]}' ;;
	esac
	cat <<EOF2
{"volume_id": "$1", "staging_target_path": "$3",
 "volume_capability": {$capability, "access_mode": {"mode": "SINGLE_NODE_WRITER"}},
 "secrets": {"userID": "$CEPH_TEST_ID", "userKey": "$CSI_KEY"},
 "volume_context": {"clusterID": "test-cluster", "pool": "$CEPH_POOL", "imageName": "$2",
   "journalPool": "$CEPH_POOL", "imageFeatures": "layering", "mounter": "rbd-nbd",
   "mapOptions": "krbd:lock_on_read;nbd:reattach-timeout=300", "unmapOptions": "krbd:force",
   "csi.storage.k8s.io/pv/name": "pvc-$2"}}
EOF2
}

# csi_publish_json VOLUME-ID STAGING TARGET block|ext4|xfs [readonly]
csi_publish_json() {
	local capability
	case $4 in
	block) capability='"block": {}' ;;
	*) capability='"mount": {"fs_type": "'"$4"'"}' ;;
	esac
	cat <<EOF2
{"volume_id": "$1", "staging_target_path": "$2", "target_path": "$3",
 "readonly": ${5:-false},
 "volume_capability": {$capability, "access_mode": {"mode": "SINGLE_NODE_WRITER"}}}
EOF2
}

csi_staging() { echo "/var/lib/kubelet/plugins/kubernetes.io/csi/rbd.volume.csi/$1/globalmount"; }
csi_target() { echo "/var/lib/kubelet/pods/$2/volumes/kubernetes.io~csi/pvc-$1/mount"; }

# Where the key may be: its own file while staged, nowhere else, ever.
csi_key_only_in() { # csi_key_only_in FILE|"": fails if the key shows up anywhere else
	local found
	found=$(in_ct grep -rlF -- "$CSI_KEY" /run/rbd-volume /etc/rbd-volume /etc/default \
		/var/lib/kubelet 2>/dev/null || true)
	[ "$found" = "$1" ] || fail "the key was found in: ${found:-nowhere}; expected only in ${1:-nowhere}"
	if [ -n "$1" ]; then
		[ "$(in_ct stat -c %a "$1")" = 600 ] || fail "$1 has mode $(in_ct stat -c %a "$1")"
	fi
	if in_ct journalctl --no-pager -q -o cat | grep -qF -- "$CSI_KEY"; then
		fail "the key is in the journal"
	fi
	if ctl status --json | grep -qF -- "$CSI_KEY"; then fail "the key is in the status"; fi
	# The harness's own logs of this run (not the cluster's keyrings, nor the container's root).
	if grep -lF -- "$CSI_KEY" "$SYS_WORK"/*.log 2>/dev/null | grep -q .; then
		fail "the key is in $(grep -lF -- "$CSI_KEY" "$SYS_WORK"/*.log | tr '\n' ' ')"
	fi
}

csi_files() { in_ct sh -c 'ls /run/rbd-volume/volumes/csi_* /run/rbd-volume/csi/* /run/rbd-volume/intent/csi_* 2>/dev/null' || true; }
csi_no_files() { [ -z "$(csi_files)" ]; }

csi_assert_clean() { # csi_assert_clean: no CSI volume's mounts, loops, processes or files
	local left
	left=$(in_ct findmnt -rn -o TARGET | grep -E '^/var/lib/kubelet/' || true)
	[ -z "$left" ] || fail "mounts left: $(echo "$left" | tr '\n' ' ')"
	left=$(in_ct losetup -l -n -O NAME,BACK-FILE | grep -F /run/rbd-volume/fuse/csi_ || true)
	[ -z "$left" ] || fail "loop devices left: $(echo "$left" | tr '\n' ' ')"
	# The daemon forgets a volume (and its intent) once it saw the spec go: inotify, 100 ms.
	wait_for 10 csi_no_files || true
	left=$(csi_files)
	[ -z "$left" ] || fail "files left: $(echo "$left" | tr '\n' ' '); status: $(ctl status --json | tr '\n' ' ')"
	left=$(in_ct systemctl list-units --plain --no-legend --state=active,activating 'rbd-fuse@csi_*' | awk '{print $1}')
	[ -z "$left" ] || fail "units left: $left"
}

csi_teardown() { # csi_teardown ID STAGING TARGET...
	local id=$1 staging=$2 target
	shift 2
	for target in "$@"; do
		csi_call Node.NodeUnpublishVolume "{\"volume_id\": \"$id\", \"target_path\": \"$target\"}" >/dev/null ||
			fail "unpublish $target failed"
		! in_ct test -e "$target" || fail "$target was not removed"
	done
	csi_call Node.NodeUnstageVolume "{\"volume_id\": \"$id\", \"staging_target_path\": \"$staging\"}" >/dev/null ||
		fail "unstage failed"
	# Idempotent: the same calls again succeed and change nothing.
	csi_call Node.NodeUnstageVolume "{\"volume_id\": \"$id\", \"staging_target_path\": \"$staging\"}" >/dev/null ||
		fail "a repeated unstage failed"
}

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

# csi_stage_and_publish ID IMAGE STAGING TARGET ext4|xfs: as kubelet does, once
csi_stage_and_publish() {
	in_ct mkdir -p "$3" "${4%/*}"
	csi_call Node.NodeStageVolume "$(csi_stage_json "$1" "$2" "$3" "$5")" >/dev/null ||
		fail "$5 stage failed: $(csi_journal)"
	csi_call Node.NodePublishVolume "$(csi_publish_json "$1" "$3" "$4" "$5")" >/dev/null ||
		fail "publish failed: $(csi_journal)"
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

# csi_code EXPECTED METHOD JSON: the call fails with gRPC code EXPECTED (rbdv-csi-call exits 10 + code)
csi_code() {
	local rc=0
	csi_call "$2" "$3" >/dev/null 2>&1 || rc=$?
	[ $rc -eq $((10 + $1)) ] || fail "$2 $3: exit $rc, expected $((10 + $1)) (gRPC code $1)"
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

csi_abnormal() { # csi_abnormal ID PATH
	csi_call Node.NodeGetVolumeStats "{\"volume_id\": \"$1\", \"volume_path\": \"$2\"}" |
		json_get 'r.get("volume_condition", {}).get("abnormal", False)' | grep -qx True
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
	rbd --conf "$CEPH_CONF" --id admin --keyring "$CEPH_ADMIN_KEYRING" resize "$CEPH_POOL/csi_xfs" --size 640M \
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
