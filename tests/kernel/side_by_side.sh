# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# side_by_side.sh: a figure run by name (see cases.sh), never in CI: it needs
# ceph-csi's own node plugin, built from ceph-csi's source by
# tests/kernel/build-cephcsi.sh. NodeStageVolume and NodeUnstageVolume of a
# fresh 256 MiB ext4 volume through rbd-volume-csi, through ceph-csi's
# `cephcsi`, and by hand (the floor: `rbd device map`, a blkid probe, mkfs.ext4
# with ceph-csi's options, mount; umount, `rbd device unmap`), the three ways
# taken in turn round by round, their order rotated, in the same guest against
# the same cluster, with the same volume context and secrets. Each volume is a
# dynamic one as ceph-csi's provisioner leaves it: the image and the omap
# journal entries its node plugin reads.
#
#   RBDV_CEPHCSI_DIR=DIR tests/kernel/run.sh BUILD cephcsi_side_by_side_krbd cephcsi_side_by_side_nbd
#
# DIR is build-cephcsi.sh's output (bin/cephcsi, its config root beside it);
# RBDV_SBS_ROUNDS rounds after a first one that is not counted (5).

KG_FIGURES+=(cephcsi_side_by_side_krbd cephcsi_side_by_side_nbd)
case_cephcsi_side_by_side_krbd() { sbs_figure rbd; }
case_cephcsi_side_by_side_nbd() { sbs_figure rbd-nbd; }

SBS_SOCK=/run/cephcsi/csi.sock
SBS_STAGING=/var/lib/kubelet/plugins/kubernetes.io/csi

# sbs_timed SCRIPT ARGS...: SCRIPT run by sh in the guest; its time in ms on
# stdout, its output in the guest's /run/sbs.out; fails as SCRIPT does.
sbs_timed() {
	local script=$1
	shift
	# shellcheck disable=SC2016 # expanded in the guest
	in_guest sh -c 's=$(date +%s%N); sh -c "$0" "$@" >/run/sbs.out 2>&1; rc=$?
		echo $((($(date +%s%N) - s) / 1000000)); exit $rc' "$script" "$@"
}

sbs_call() { # sbs_call SOCKET METHOD JSON: ms
	# shellcheck disable=SC2016 # expanded in the guest
	sbs_timed 'exec "$0" --timeout 300 "$@"' "$SYS_BUILD/tests/csi/rbdv-csi-call" "$@"
}

sbs_stage_json() { # sbs_stage_json VOLUME-ID IMAGE STAGING MOUNTER
	cat <<EOF2
{"volume_id": "$1", "staging_target_path": "$3",
 "volume_capability": {"mount": {"fs_type": "ext4"}, "access_mode": {"mode": "SINGLE_NODE_WRITER"}},
 "secrets": {"userID": "$CEPH_TEST_ID", "userKey": "$CSI_KEY"},
 "volume_context": {"clusterID": "test-cluster", "pool": "$CEPH_POOL", "imageName": "$2",
   "journalPool": "$CEPH_POOL", "imageFeatures": "layering", "mounter": "$4",
   "csi.storage.k8s.io/pv/name": "pvc-$2"}}
EOF2
}

# The floor's stage and unstage: what any plugin has to do, done by hand.
# shellcheck disable=SC2016 # expanded in the guest
SBS_FLOOR_STAGE='set -e; type=krbd; [ "$4" = rbd ] || type=nbd
	dev=$(rbd --id "$2" --keyring "$3" device map -t "$type" "$0")
	echo "$dev" >/run/sbs.dev
	blkid -p "$dev" || true
	mkfs.ext4 -q -m0 -E nodiscard,lazy_itable_init=1,lazy_journal_init=1 "$dev"
	mkdir -p "$1"; mount "$dev" "$1"'
# shellcheck disable=SC2016 # expanded in the guest
SBS_FLOOR_UNSTAGE='set -e; type=krbd; [ "$1" = rbd ] || type=nbd
	umount "$0"; rbd device unmap -t "$type" "$(cat /run/sbs.dev)"'

# sbs_volume POOL-ID: a fresh dynamic volume as ceph-csi's provisioner makes
# one; prints "VOLUME-ID IMAGE". Its volume ID: "0001", the cluster ID's
# length in 4 hex digits, the cluster ID, the pool ID in 16, the UUID.
sbs_volume() {
	local uuid image
	uuid=$(cat /proc/sys/kernel/random/uuid)
	image=csi-vol-$uuid
	on_cluster rbd create --size 256M --image-feature layering "$CEPH_POOL/$image" || return 1
	on_cluster rados -p "$CEPH_POOL" setomapval csi.volumes.default "csi.volume.pvc-$uuid" "$uuid" &&
		on_cluster rados -p "$CEPH_POOL" setomapval "csi.volume.$uuid" csi.imagename "$image" &&
		on_cluster rados -p "$CEPH_POOL" setomapval "csi.volume.$uuid" csi.volname "pvc-$uuid" || return 1
	echo "0001-000c-test-cluster-$(printf %016x "$1")-$uuid $image"
}

sbs_start_cephcsi() {
	local dir=$1 monitor
	# ceph-csi maps with krbd's default ms_mode: the msgr1 address
	monitor=$(ceph-conf -c "$CEPH_CONF" --lookup mon_host | sed -n 's/.*v1:\([0-9.]*:[0-9]*\).*/\1/p')
	[ -n "$monitor" ] || fail "no v1 monitor address in $CEPH_CONF"
	put_file "$dir/ceph-csi-config/config.json" <<EOF2
[{"clusterID": "test-cluster", "monitors": ["$monitor"], "rbd": {"netNamespaceFilePath": ""}}]
EOF2
	# /tmp/csi/keys: where its image keeps the keys it passes to rbd
	in_guest mkdir -p /tmp/csi/keys "$dir/etc-ceph" /run/cephcsi "$SBS_STAGING/rbd.csi.ceph.com"
	in_guest systemctl stop cephcsi.service >/dev/null 2>&1 || true
	in_guest systemctl reset-failed cephcsi.service >/dev/null 2>&1 || true
	in_guest systemd-run --unit=cephcsi --collect "$dir/bin/cephcsi" --type=rbd \
		--drivername=rbd.csi.ceph.com --nodeserver=true --nodeid=node-a \
		--endpoint="unix://$SBS_SOCK" --csi-addons-endpoint=unix:///run/cephcsi/addons.sock \
		--stagingpath="$SBS_STAGING/" --metricsport=0 --v=2 --logtostderr >/dev/null
	wait_for 60 in_guest test -S "$SBS_SOCK" ||
		fail "cephcsi did not start: $(in_guest journalctl -q --no-pager -n 20 -u cephcsi | tr '\n' ' ')"
}

# sbs_way WAY MOUNTER POOL-ID: one stage and unstage; prints "STAGE-MS UNSTAGE-MS".
sbs_way() {
	local way=$1 mounter=$2 volume id image staging mounted sock stage unstage
	volume=$(sbs_volume "$3") || fail "cannot make a volume"
	id=${volume% *} image=${volume#* }
	if [ "$way" = floor ]; then
		staging=/var/lib/sbs-floor/${id: -36}
		stage=$(sbs_timed "$SBS_FLOOR_STAGE" "$CEPH_POOL/$image" "$staging" "$CEPH_TEST_ID" \
			"$CEPH_TEST_KEYRING" "$mounter") || fail "the floor's stage failed: $(in_guest tail -n 3 /run/sbs.out)"
		unstage=$(sbs_timed "$SBS_FLOOR_UNSTAGE" "$staging" "$mounter") ||
			fail "the floor's unstage failed: $(in_guest tail -n 3 /run/sbs.out)"
		echo "$stage $unstage"
		return
	fi
	# ceph-csi mounts at STAGING/VOLUME-ID, rbd-volume-csi at STAGING
	if [ "$way" = ours ]; then
		sock=$CSI_SOCK staging=$SBS_STAGING/rbd.volume.csi/${id: -36}/globalmount mounted=$staging
	else
		sock=$SBS_SOCK staging=$SBS_STAGING/rbd.csi.ceph.com/${id: -36}/globalmount mounted=$staging/$id
	fi
	in_guest mkdir -p "$staging"
	stage=$(sbs_call "$sock" Node.NodeStageVolume "$(sbs_stage_json "$id" "$image" "$staging" "$mounter")") ||
		fail "$way: NodeStageVolume failed: $(in_guest tail -n 3 /run/sbs.out)"
	in_guest sh -c "echo hello >'$mounted/probe' && sync -f '$mounted/probe'" || fail "$way: cannot write to $mounted"
	unstage=$(sbs_call "$sock" Node.NodeUnstageVolume "{\"volume_id\": \"$id\", \"staging_target_path\": \"$staging\"}") ||
		fail "$way: NodeUnstageVolume failed: $(in_guest tail -n 3 /run/sbs.out)"
	! in_guest findmnt -n "$mounted" >/dev/null || fail "$way: $mounted is still mounted"
	echo "$stage $unstage"
}

sbs_figure() {
	local mounter=$1 dir=${RBDV_CEPHCSI_DIR:-} rounds=${RBDV_SBS_ROUNDS:-5} round way ways pool times
	[ -x "$dir/bin/cephcsi" ] || fail "RBDV_CEPHCSI_DIR names no bin/cephcsi (tests/kernel/build-cephcsi.sh builds it)"
	in_guest modprobe rbd
	in_guest modprobe nbd
	csi_setup
	sbs_start_cephcsi "$dir"
	pool=$(on_cluster ceph osd pool ls detail | awk -v p="'$CEPH_POOL'" '$3 == p {print $2}')
	[ -n "$pool" ] || fail "no pool ID for $CEPH_POOL"
	: >"$SYS_WORK/sbs.times"
	for ((round = 0; round <= rounds; round++)); do
		case $((round % 3)) in
		0) ways=(ours cephcsi floor) ;;
		1) ways=(cephcsi floor ours) ;;
		*) ways=(floor ours cephcsi) ;;
		esac
		for way in "${ways[@]}"; do
			times=$(sbs_way "$way" "$mounter" "$pool")
			sys_log "round $round, $way: stage and unstage $times ms"
			[ "$round" = 0 ] || echo "$way $times" >>"$SYS_WORK/sbs.times"
		done
	done
	in_guest systemctl stop cephcsi.service || true
	sys_log "$mounter: $(python3 "$SYS_SRC/tests/kernel/side_by_side_table.py" "$SYS_WORK/sbs.times")"
}
