# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# csi_lib.sh: playing kubelet against the installed rbd-volume-csi.service,
# for the system suite's csi cases (csi_cases.sh) and the kernel suite's.
# rbdv-csi-call (from the build) calls the real socket. Sourced after the
# suite's lib.sh (on_node, put_file, ctl, fail, wait_for, the CEPH_* values).
#
#   CSI_DRIVER_ARGS   the shim's driver option ("--driver fuse"; empty: the
#                     volume context's mounter decides)
#   CSI_MOUNTER       the context's mounter ("rbd-nbd" or "rbd")
#   csi_rbd ARGS...   rbd as the cluster's admin, where the cluster is

CSI_SOCK=/var/lib/kubelet/plugins/rbd.volume.csi/csi.sock
CSI_REG_SOCK=/var/lib/kubelet/plugins_registry/rbd.volume.csi-reg.sock
CSI_KEY=""
CSI_DRIVER_ARGS=${CSI_DRIVER_ARGS---driver fuse}
CSI_MOUNTER=${CSI_MOUNTER:-rbd-nbd}

csi_rbd() { rbd --conf "$CEPH_CONF" --id admin --keyring "$CEPH_ADMIN_KEYRING" "$@"; }

csi_call() { # csi_call METHOD JSON: the response on stdout; fails on an RPC error
	on_node "$SYS_BUILD/tests/csi/rbdv-csi-call" --timeout 150 "$CSI_SOCK" "$@"
}

json_get() { # json_get EXPR: python expression over `r`, the JSON on stdin
	python3 -c 'import json, sys; r = json.load(sys.stdin); print('"$1"')'
}

# What a failed csi case left: its volumes down, its runtime files gone.
csi_force_clean() {
	local spec name
	for spec in $(on_node sh -c 'ls /run/rbd-volume/volumes/csi_*.toml 2>/dev/null' || true); do
		name=${spec##*/}
		name=${name%.toml}
		on_node timeout 120 "$SYS_BINDIR/rbd-volumectl" down "$name" >/dev/null 2>&1 || true
	done
	on_node sh -c 'rm -f /run/rbd-volume/volumes/csi_*.toml /run/rbd-volume/csi/*' || true
}

# The cluster map, the unit's arguments, and the shim started.
csi_setup() {
	local monitor
	csi_force_clean
	monitor=$(ceph-conf -c "$CEPH_CONF" --lookup mon_host | sed -n 's/.*\(v2:[0-9.]*:[0-9]*\).*/\1/p')
	[ -n "$monitor" ] || fail "no v2 monitor address in $CEPH_CONF"
	CSI_KEY=$(ceph-authtool -p -n "client.$CEPH_TEST_ID" "$CEPH_TEST_KEYRING")
	[ -n "$CSI_KEY" ] || fail "no key for client.$CEPH_TEST_ID"
	# ceph-csi's own format, as its ConfigMap holds it.
	put_file /etc/ceph-csi-config/config.json <<EOF2
[{"clusterID": "test-cluster", "monitors": ["$monitor"],
  "rbd": {"netNamespaceFilePath": ""}, "cephFS": {"subvolumeGroup": "csi"}}]
EOF2
	put_file /etc/default/rbd-volume-csi <<EOF2
RBD_VOLUME_CSI_ARGS=$CSI_DRIVER_ARGS --node-id node-a --cluster-map /etc/ceph-csi-config/config.json --log-level debug
EOF2
	on_node systemctl restart rbd-volume-csi.service || fail "rbd-volume-csi did not start: $(csi_journal)"
	wait_for 20 on_node test -S "$CSI_SOCK" || fail "no CSI socket: $(csi_journal)"
	[ "$(csi_call Identity.Probe | json_get 'r["ready"]')" = True ] || fail "Probe: not ready"
	[ "$(on_node "$SYS_BUILD/tests/csi/rbdv-csi-call" "$CSI_REG_SOCK" Registration.GetInfo |
		json_get 'r["type"] + " " + r["name"] + " " + r["endpoint"]')" = "CSIPlugin rbd.volume.csi $CSI_SOCK" ] ||
		fail "kubelet registration does not describe the plugin"
}

csi_journal() { on_node journalctl --no-pager -q -o cat -n 5 -u rbd-volume-csi.service | tr '\n' ' '; }

csi_image() { # csi_image NAME SIZE: a fresh image, as ceph-csi's provisioner makes it
	csi_rbd rm "$CEPH_POOL/$1" >/dev/null 2>&1 || true
	csi_rbd create "$CEPH_POOL/$1" --size "$2" ||
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
   "journalPool": "$CEPH_POOL", "imageFeatures": "layering", "mounter": "$CSI_MOUNTER",
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
	found=$(on_node grep -rlF -- "$CSI_KEY" /run/rbd-volume /etc/rbd-volume /etc/default \
		/var/lib/kubelet 2>/dev/null || true)
	[ "$found" = "$1" ] || fail "the key was found in: ${found:-nowhere}; expected only in ${1:-nowhere}"
	if [ -n "$1" ]; then
		[ "$(on_node stat -c %a "$1")" = 600 ] || fail "$1 has mode $(on_node stat -c %a "$1")"
	fi
	# every field of every entry, not only the messages
	if on_node journalctl --no-pager -q -o export | grep -aqF -- "$CSI_KEY"; then
		fail "the key is in a journal field"
	fi
	if ctl status --json | grep -qF -- "$CSI_KEY"; then fail "the key is in the status"; fi
	# The harness's own logs of this run (not the cluster's keyrings, nor the container's root).
	if grep -lF -- "$CSI_KEY" "$SYS_WORK"/*.log 2>/dev/null | grep -q .; then
		fail "the key is in $(grep -lF -- "$CSI_KEY" "$SYS_WORK"/*.log | tr '\n' ' ')"
	fi
}

csi_files() { on_node sh -c 'ls /run/rbd-volume/volumes/csi_* /run/rbd-volume/csi/* /run/rbd-volume/intent/csi_* 2>/dev/null' || true; }
csi_no_files() { [ -z "$(csi_files)" ]; }

csi_assert_clean() { # csi_assert_clean: no CSI volume's mounts, loops, processes or files
	local left
	left=$(on_node findmnt -rn -o TARGET | grep -E '^/var/lib/kubelet/' || true)
	[ -z "$left" ] || fail "mounts left: $(echo "$left" | tr '\n' ' ')"
	left=$(on_node losetup -l -n -O NAME,BACK-FILE | grep -F /run/rbd-volume/fuse/csi_ || true)
	[ -z "$left" ] || fail "loop devices left: $(echo "$left" | tr '\n' ' ')"
	# The daemon forgets a volume (and its intent) once it saw the spec go: inotify, 100 ms.
	wait_for 10 csi_no_files || true
	left=$(csi_files)
	[ -z "$left" ] || fail "files left: $(echo "$left" | tr '\n' ' '); status: $(ctl status --json | tr '\n' ' ')"
	left=$(on_node systemctl list-units --plain --no-legend --state=active,activating 'rbd-fuse@csi_*' 'rbd-nbd@csi_*' | awk '{print $1}')
	[ -z "$left" ] || fail "units left: $left"
}

csi_teardown() { # csi_teardown ID STAGING TARGET...
	local id=$1 staging=$2 target
	shift 2
	for target in "$@"; do
		csi_call Node.NodeUnpublishVolume "{\"volume_id\": \"$id\", \"target_path\": \"$target\"}" >/dev/null ||
			fail "unpublish $target failed"
		! on_node test -e "$target" || fail "$target was not removed"
	done
	csi_call Node.NodeUnstageVolume "{\"volume_id\": \"$id\", \"staging_target_path\": \"$staging\"}" >/dev/null ||
		fail "unstage failed"
	# Idempotent: the same calls again succeed and change nothing.
	csi_call Node.NodeUnstageVolume "{\"volume_id\": \"$id\", \"staging_target_path\": \"$staging\"}" >/dev/null ||
		fail "a repeated unstage failed"
}

# csi_stage_and_publish ID IMAGE STAGING TARGET ext4|xfs: as kubelet does, once
csi_stage_and_publish() {
	on_node mkdir -p "$3" "${4%/*}"
	csi_call Node.NodeStageVolume "$(csi_stage_json "$1" "$2" "$3" "$5")" >/dev/null ||
		fail "$5 stage failed: $(csi_journal)"
	csi_call Node.NodePublishVolume "$(csi_publish_json "$1" "$3" "$4" "$5")" >/dev/null ||
		fail "publish failed: $(csi_journal)"
}

# csi_code EXPECTED METHOD JSON: the call fails with gRPC code EXPECTED (rbdv-csi-call exits 10 + code)
csi_code() {
	local rc=0
	csi_call "$2" "$3" >/dev/null 2>&1 || rc=$?
	[ $rc -eq $((10 + $1)) ] || fail "$2 $3: exit $rc, expected $((10 + $1)) (gRPC code $1)"
}

csi_abnormal() { # csi_abnormal ID PATH
	csi_call Node.NodeGetVolumeStats "{\"volume_id\": \"$1\", \"volume_path\": \"$2\"}" |
		json_get 'r.get("volume_condition", {}).get("abnormal", False)' | grep -qx True
}
