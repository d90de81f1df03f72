# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# life_cases.sh: the kernel suite's cases of a host's life (see cases.sh):
# volumes enabled for boot, a poweroff with writers running, a power cut. The
# guest's root disk keeps /etc and /var across its reboots; /run does not.

KG_CASES+=(life_poweroff_power_cut life_network_cut life_shutdown_cut_off life_pool_full)
KG_NAMED_CASES+=(life_shutdown_cluster_stopped life_network_cut_long)

# life_volumes P: three volumes enabled for boot and started: Pk (krbd,
# ext4), Pn (nbd, xfs) and Pc (krbd, ext4 in LUKS2); and a service that
# keeps its data on Pk's publish path, ordered as the docs say.
life_volumes() {
	K=$1k N=$1n C=$1c
	LIFE_VOLUMES=("$K" "$N" "$C")
	LIFE_UNITS=("rbd-volume@$K.service" "rbd-volume@$N.service" "rbd-volume@$C.service")
	put_key "$C"
	kspec "$K" krbd ext4
	kspec "$N" nbd xfs size=320M # mkfs.xfs needs more than 300 MB
	kspec "$C" krbd ext4 "crypt=/etc/rbd-volume/keys/$C.key"
	put_file /etc/systemd/system/rbdv-consumer.service <<EOF
[Unit]
Description=an application that keeps its data on volume $K
After=remote-fs.target
RequiresMountsFor=/srv/$K
[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/sh -c 'findmnt -n -o FSTYPE --mountpoint /srv/$K >/run/rbdv-consumer.saw || echo none >/run/rbdv-consumer.saw'
[Install]
WantedBy=kernel-suite.target
EOF
	in_guest systemctl daemon-reload
	in_guest systemctl enable --quiet "${LIFE_UNITS[@]}" rbdv-consumer.service
	start_units "${LIFE_UNITS[@]}"
	wait_up 60 "${LIFE_VOLUMES[@]}"
}

# start_acked_writer NAME: an application's writes, ordered after the volume
# (After=remote-fs.target, so it stops before the volume does): 4 KiB records
# "seq N" at offset N * 4096 of /srv/NAME/acked, each with O_SYNC; every N
# whose write returned goes at once to DIR/acked-NAME on this machine (9p,
# no cache), where neither a poweroff nor a power cut can take it back.
start_acked_writer() {
	# shellcheck disable=SC2016 # expanded inside
	in_guest systemd-run --quiet --unit="rbdv-acked-$1" -p After=remote-fs.target \
		-p After="rbd-volume@$1.service" /bin/bash -c '
		i=0
		while :; do
			i=$((i + 1))
			printf "seq %-4091d\n" "$i" | dd of="/srv/$1/acked" bs=4096 seek="$i" \
				conv=notrunc oflag=sync iflag=fullblock status=none || exit 1
			echo "$i" >>"$2"
		done' writer "$1" "$SYS_WORK/vm/acked-$1"
	wait_for 30 test -s "$SYS_WORK/vm/acked-$1" || fail "the writer of $1 did not start writing"
}

acked_of() { tail -n 1 "$SYS_WORK/vm/acked-$1"; } # acked_of NAME: the last N acknowledged

# acked_present NAME: every record acknowledged is in /srv/NAME/acked
acked_present() {
	local n missing
	n=$(acked_of "$1")
	missing=$(in_guest python3 -c '
import sys
path, n = sys.argv[1], int(sys.argv[2])
with open(path, "rb") as f:
    missing = [k for k in range(1, n + 1)
               if not (f.seek(k * 4096) and f.read(4096).startswith(b"seq %d " % k))]
more = " and %d more" % (len(missing) - 5) if len(missing) > 5 else ""
print(" ".join(map(str, missing[:5])) + more)' "/srv/$1/acked" "$n") || fail "cannot read /srv/$1/acked"
	[ -z "$missing" ] || fail "$1 lost acknowledged writes: records $missing of 1..$n"
	sys_log "$1: all $n acknowledged writes are there"
}

# fs_clean_in_image NAME FS: the image's filesystem, read here by the
# cluster's admin, was unmounted cleanly: nothing for a journal to replay.
fs_clean_in_image() {
	local file=$SYS_WORK/$1.img out
	on_cluster rbd export --no-progress "$CEPH_POOL/$1" "$file" >/dev/null 2>&1 || fail "cannot export $1"
	case $2 in
	ext4)
		out=$(dumpe2fs -h "$file" 2>/dev/null)
		grep -q '^Filesystem state: *clean$' <<<"$out" ||
			fail "$1's ext4 is not clean: $(grep '^Filesystem state' <<<"$out")"
		! grep -q '^Filesystem features:.*needs_recovery' <<<"$out" || fail "$1's ext4 needs a journal replay"
		out=$(e2fsck -fn "$file" 2>&1) || fail "e2fsck -fn $1: $out"
		;;
	xfs)
		out=$(xfs_repair -n -f "$file" 2>&1) || fail "xfs_repair -n $1: $(tail -n 3 <<<"$out")"
		! grep -q 'metadata changes in a log' <<<"$out" || fail "$1's xfs log needs a replay"
		;;
	esac
	rm -f "$file"
}

# The boot after a poweroff or a power cut: every enabled volume comes up
# by itself, before remote-fs.target, and the consumer found Pk mounted.
life_after_boot() {
	local unit volume_at target_at booted v up_at=""
	booted=$(kg_boot) || fail "the guest did not boot again"
	sys_log "booted again: $booted"
	wait_for 300 in_guest systemctl is-active --quiet rbdv-consumer.service ||
		fail "rbdv-consumer did not start at boot: $(in_guest systemctl is-active "${LIFE_UNITS[@]}" rbdv-consumer.service | tr '\n' ' ')"
	for v in "${LIFE_VOLUMES[@]}"; do expect_phase "$v" up; done
	[ "$(in_guest cat /run/rbdv-consumer.saw)" = ext4 ] ||
		fail "rbdv-consumer started on /srv/$K as '$(in_guest cat /run/rbdv-consumer.saw)', not on the volume"
	target_at=$(in_guest systemctl show -P ActiveEnterTimestampMonotonic remote-fs.target)
	for unit in "${LIFE_UNITS[@]}"; do
		volume_at=$(in_guest systemctl show -P ActiveEnterTimestampMonotonic "$unit")
		((volume_at > 0 && volume_at <= target_at)) || fail "$unit was not up before remote-fs.target"
		up_at+="${unit#rbd-volume@} $((volume_at / 100000 / 10)).$((volume_at / 100000 % 10)) s; "
	done
	sys_log "up after the kernel started: $up_at"
}

# No mapping twice: one krbd device for Pk and Pc each, one nbd device.
life_one_mapping_each() {
	[ "$(krbd_mappings | grep -c -e " $CEPH_POOL/$K$" -e " $CEPH_POOL/$C$")" = 2 ] ||
		fail "krbd mappings: $(krbd_mappings)"
	[ "$(nbd_mappings | wc -l)" = 1 ] || fail "nbd devices: $(nbd_mappings)"
}

# fsck's verdict at this boot's check step of NAME (RBDV_DETAIL)
check_verdict() {
	in_guest journalctl -b -q -o export RBDV_VOLUME="$1" RBDV_STEP=check |
		sed -n 's/^RBDV_DETAIL=//p' | tail -n 1
}

# stopped_before_volume NAME: at the last poweroff, NAME's writer had ended
# before systemd unmounted /srv/NAME and before rbd-volume@NAME began to stop
# (systemd logs no "Stopping" for a transient unit: its end is the line).
stopped_before_volume() {
	local lines
	lines=$(in_guest journalctl -b -1 -q -o cat "UNIT=rbdv-acked-$1.service" \
		"UNIT=rbd-volume@$1.service" "UNIT=srv-$1.mount" |
		grep -E "^rbdv-acked-$1.service: (Deactivated|Failed)|^Stopping rbd-volume@$1|^Unmounting srv-$1" |
		sed -E 's/ -.*|: .*//' | tr '\n' ';')
	[[ $lines == "rbdv-acked-$1.service;"* ]] ||
		fail "at poweroff, in this order: $lines (the writer of $1 must end first)"
}

life_down() {
	in_guest systemctl disable --quiet "${LIFE_UNITS[@]}" rbdv-consumer.service
	stop_units rbdv-consumer.service "${LIFE_UNITS[@]}"
}

# systemctl poweroff with a synchronous writer on each volume: off within
# 60 s, no task blocked, the writers stopped before their volumes, each
# filesystem clean, and the next boot brings the volumes back with every
# acknowledged write. Then, on the same volumes, a power cut with the
# writers running again (each record new, none left from the first): the
# next boot brings them back as well, fsck and the logs' replays as the
# spec says, one mapping each, every acknowledged write there. One set of
# volumes for both saves a LUKS format and three images.
case_life_poweroff_power_cut() {
	local v console took
	life_volumes p
	for v in "${LIFE_VOLUMES[@]}"; do start_acked_writer "$v"; done
	sleep 3
	console=$(kg_console_size)
	in_guest systemctl poweroff --no-block
	took=$(kg_wait_off 60) || { kg_power_cut; fail "the guest was not off 60 s after systemctl poweroff"; }
	sys_log "systemctl poweroff with three writers: $took" \
		"(acknowledged: $(acked_of "$K"), $(acked_of "$N"), $(acked_of "$C"))"
	! kg_console_since "$console" | grep -E 'blocked for more than|hung_task' ||
		fail "a task blocked while powering off"
	fs_clean_in_image "$K" ext4
	fs_clean_in_image "$N" xfs

	life_after_boot
	for v in "${LIFE_VOLUMES[@]}"; do acked_present "$v"; done
	life_one_mapping_each
	[ "$(check_verdict "$C")" = clean ] || fail "$C's fsck at boot said '$(check_verdict "$C")', not clean"
	! in_guest dmesg | grep -E '(EXT4-fs|XFS) \((rbd|nbd|dm-).*(recovery complete|Starting recovery)' ||
		fail "a volume's filesystem was recovered at boot after a clean poweroff"
	for v in "${LIFE_VOLUMES[@]}"; do stopped_before_volume "$v"; done

	new_acked_writers "${LIFE_VOLUMES[@]}"
	sleep 3
	kg_power_cut
	sys_log "power cut with three writers" \
		"(acknowledged: $(acked_of "$K"), $(acked_of "$N"), $(acked_of "$C"))"
	life_after_boot
	for v in "${LIFE_VOLUMES[@]}"; do acked_present "$v"; done
	life_one_mapping_each
	sys_log "fsck at boot: $K $(check_verdict "$K"); $C $(check_verdict "$C");" \
		"kernel: $(in_guest dmesg | grep -E '(EXT4-fs|XFS) \((rbd|nbd|dm-)' | sed 's/^\[[^]]*\] //' | tr '\n' ';')"
	life_down
}

# unit_state UNIT: "ActiveState/SubState, exit ExecMainStatus, N restarts"
unit_state() {
	in_guest systemctl show -p ActiveState -p SubState -p ExecMainStatus -p NRestarts "$1" |
		awk -F= '{ v[$1] = $2 } END { printf "%s/%s, exit %s, %s restarts\n", v["ActiveState"],
			v["SubState"], v["ExecMainStatus"], v["NRestarts"] }'
}

# waits_to_restart UNIT: its try ended with 75 for want of the cluster, and
# its status says so (45 s: each try clears the status while it runs)
waits_to_restart() {
	local shown
	shown=$(in_guest systemctl show -p SubState -p ExecMainStatus -p StatusText "$1")
	grep -qx 'SubState=auto-restart' <<<"$shown" && grep -qx 'ExecMainStatus=75' <<<"$shown" &&
		grep -q '^StatusText=not up: cannot reach the cluster at' <<<"$shown"
}

# all_active UNIT...: every UNIT is active (is-active's own status says "any")
all_active() {
	local states
	states=$(in_guest systemctl is-active "$@") || true
	[ -n "$states" ] && ! grep -qvx active <<<"$states"
}

# needs_volume_service NAME: rbdv-needs-NAME, an application that must never
# run without volume NAME, ordered as docs/operations.md says (it requires
# NAME, and NAME's unit starts it).
needs_volume_service() {
	put_file "/etc/systemd/system/rbdv-needs-$1.service" <<EOF
[Unit]
Description=an application that must never run without volume $1
Requires=rbd-volume@$1.service
After=rbd-volume@$1.service
[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/sh -c 'findmnt -n -o FSTYPE --mountpoint /srv/$1 >/run/rbdv-needs-$1.saw || echo none >/run/rbdv-needs-$1.saw'
[Install]
WantedBy=kernel-suite.target
EOF
	printf '[Service]\nExecStartPost=-/usr/bin/systemctl start --no-block rbdv-needs-%s.service\n' "$1" |
		put_file "/etc/systemd/system/rbd-volume@$1.service.d/rbdv-needs-$1.conf"
}

# boot_without_cluster FIRST SECOND: the guest just booted with its link
# down, FIRST's and SECOND's units enabled, and rbdv-needs-FIRST: the boot
# ends without them, each unit waits to start again (status 75), each volume
# says why it is not up, and the service does not start on the empty
# directory. Once the link is up the volumes come up by themselves, their
# units are active, and the service starts, on its volume.
boot_without_cluster() {
	local v finish target_at tries_ended first last started took states=""
	wait_for 240 boot_finished ||
		fail "the boot did not end without the cluster: $(in_guest systemctl list-jobs --no-legend | tr '\n' ';')"
	finish=$(in_guest systemctl show -P FinishTimestampMonotonic)
	target_at=$(in_guest systemctl show -P ActiveEnterTimestampMonotonic remote-fs.target)
	# both tries waited on one connect: one timeout for the boot, not one each
	tries_ended=$(in_guest systemctl show -P ExecMainExitTimestampMonotonic "rbd-volume@$1.service" \
		"rbd-volume@$2.service" | sort -n | tr '\n' ' ')
	read -r first last <<<"$tries_ended"
	((last - first < 5000000)) ||
		fail "the first tries ended $(seconds_of "$first") and $(seconds_of "$last") s after the kernel started"
	# a boot here takes 15 to 40 s, one try at the cluster 10 s of it (ceph-connect)
	((target_at > 0 && target_at < 120000000)) ||
		fail "remote-fs.target was reached $(seconds_of "$target_at") s after the kernel started"
	for v in "$1" "$2"; do
		wait_for 60 vol_condition "$v" Failed "cannot reach the cluster at" ||
			fail "$v does not say why it is not up: $(vol_field "$v" phase) $(vol_field "$v" conditions)"
		wait_for 45 waits_to_restart "rbd-volume@$v.service" ||
			fail "rbd-volume@$v: $(unit_state "rbd-volume@$v.service");" \
				"$(in_guest systemctl show -P StatusText "rbd-volume@$v.service")"
		states+="rbd-volume@$v $(unit_state "rbd-volume@$v.service"); "
	done
	sys_log "the boot ended $(seconds_of "$finish") s after the kernel started" \
		"(remote-fs.target at $(seconds_of "$target_at") s, the units' first tries ended at" \
		"$(seconds_of "$first") and $(seconds_of "$last") s); $states $1: $(vol_field "$1" conditions)"
	! in_guest systemctl is-active --quiet "rbdv-needs-$1.service" || fail "rbdv-needs-$1 started without $1"
	! in_guest test -e "/run/rbdv-needs-$1.saw" || fail "rbdv-needs-$1 ran without $1"
	[ -z "$(in_guest findmnt -rn -o TARGET --mountpoint "/srv/$1")" ] || fail "/srv/$1 is mounted"

	in_guest ip link set eth0 up
	started=$SECONDS
	# within RestartSec (30 s) and one try, under emulation
	wait_for 120 all_active "rbd-volume@$1.service" "rbd-volume@$2.service" "rbdv-needs-$1.service" ||
		fail "not active 120 s after the link came back: $(unit_state "rbd-volume@$1.service");" \
			"$(unit_state "rbd-volume@$2.service"); rbdv-needs-$1 $(in_guest systemctl is-active "rbdv-needs-$1.service")"
	took=$((SECONDS - started))
	wait_up 30 "$1" "$2"
	[ "$(in_guest cat "/run/rbdv-needs-$1.saw")" = ext4 ] ||
		fail "rbdv-needs-$1 started on /srv/$1 as '$(in_guest cat "/run/rbdv-needs-$1.saw")', not on the volume"
	sys_log "the link up: the volumes, their units and rbdv-needs-$1 active within $took s;" \
		"$(unit_state "rbd-volume@$1.service"), $(unit_state "rbd-volume@$2.service")"
}

# The manager's startup is over (systemd's "Startup finished").
boot_finished() { [ "$(in_guest systemctl show -P FinishTimestampMonotonic)" -gt 0 ]; }
seconds_of() { echo "$(($1 / 1000000)).$(($1 / 100000 % 10))"; } # seconds_of USEC: "12.3"

# publish_mount_ids RE: the mount IDs of /srv/NAME for each NAME that RE matches
publish_mount_ids() { in_guest findmnt -rn -o ID,TARGET | grep -E " /srv/($1)\$" | sort | tr '\n' ' '; }

# What the block layer counts for a device (stat, and reads and writes in flight).
block_counters() {
	# shellcheck disable=SC2016 # expanded in the guest
	in_guest sh -c 'echo "$1: $(tr -s " " <"/sys/block/$1/stat") in flight: $(tr -s " " <"/sys/block/$1/inflight")"' \
		block_counters "$1"
}

# link_cut SECONDS PAUSE VOLUME...: the guest's link to the cluster down for
# SECONDS, rbd-volumectl status timed every PAUSE s or so (CUT_TIMES, ms);
# CUT_STALLED[V]: when VOLUME V first showed IoStalled ("no answer from the
# cluster since ..."); CUT_FAILED[V]: when V's writer first counted an error.
# The block layer's counters of each device 15 s into the cut are logged.
link_cut() {
	local seconds=$1 pause=$2 v started errors counted=0 counters
	shift 2
	CUT_TIMES=()
	declare -gA CUT_STALLED=() CUT_FAILED=()
	in_guest ip link set eth0 down
	started=$SECONDS
	while ((SECONDS - started < seconds)); do
		CUT_TIMES+=("$(ctl_ms status)")
		if ((counted == 0 && SECONDS - started >= 15)); then
			counted=1 counters=""
			for v in "$@"; do counters+="$(block_counters "$(basename "$(device_of "$v")")"); "; done
			sys_log "after 15 s: $counters"
		fi
		for v in "$@"; do
			[ -n "${CUT_STALLED[$v]:-}" ] ||
				! vol_condition "$v" IoStalled "no answer from the cluster since" ||
				CUT_STALLED[$v]=$((SECONDS - started))
			[ -z "${CUT_FAILED[$v]:-}" ] || continue
			errors=$(writes_of "$v" | cut -d' ' -f2)
			[ "$errors" = 0 ] || CUT_FAILED[$v]=$((SECONDS - started))
		done
		sleep "$pause"
	done
	in_guest ip link set eth0 up
}

# status_answered WHAT: every status call of the last cut within 2 s under
# emulation, their median within 1 s
status_answered() {
	local ms median
	sys_log "$1: status took $(printf '%s\n' "${CUT_TIMES[@]}" | sort -n | tr '\n' ' ')ms"
	median=$(printf '%s\n' "${CUT_TIMES[@]}" | sort -n | sed -n "$(((${#CUT_TIMES[@]} + 1) / 2))p")
	for ms in "${CUT_TIMES[@]}"; do
		((ms < 2000)) || fail "rbd-volumectl status took $ms ms while the link was down ($1)"
	done
	((median < 1000)) || fail "rbd-volumectl status took $median ms (the median) while the link was down ($1)"
}

# stalled_then_up NAME: the journal's record of NAME: up, then stalled
# (IoStalled's id), then up again (VolumeUp's)
stalled_then_up() {
	local lines
	lines=$(in_guest journalctl -q -o cat MESSAGE_ID=4e00908bc33c4ffdb1990302e2924d6a \
		MESSAGE_ID=7eb0d271a6b040a898fa189d82c9ab8e RBDV_VOLUME="$1" | sed -E 's/.*(is up|no answer).*/\1/' |
		tr '\n' ';')
	[ "$lines" = "is up;no answer;is up;" ] || fail "the journal's lines of $1: $lines"
}

# The guest's link to the cluster down for 30 s under a synchronous writer on
# a krbd and an nbd volume: status answers throughout (every call within 2 s
# under emulation, the median within 1 s); the krbd volume shows degraded
# (IoStalled, "no answer from the cluster since ...") while its I/O waits,
# and up again after; the writers saw no error, and nothing was remounted.
# The nbd volume's stall hides in a flush that rbd-nbd's librbd cache holds,
# which the block layer does not count in flight: what it showed is logged.
case_life_network_cut() {
	local v started ms mounts times=() counted=0 median
	local -A stalled_at=()
	in_guest modprobe rbd
	kspec wk krbd ext4
	kspec wn nbd ext4
	start_units rbd-volume@wk.service rbd-volume@wn.service
	wait_up 60 wk wn
	mounts=$(publish_mount_ids 'w[kn]')
	start_writer wk
	start_writer wn
	in_guest ip link set eth0 down
	started=$SECONDS
	while ((SECONDS - started < 30)); do
		times+=("$(ctl_ms status)")
		for v in wk wn; do
			[ -z "${stalled_at[$v]:-}" ] || continue
			! vol_condition "$v" IoStalled "no answer from the cluster since" ||
				stalled_at[$v]=$((SECONDS - started))
		done
		if ((counted == 0 && SECONDS - started >= 15)); then
			counted=1
			sys_log "after 15 s: $(block_counters rbd0); $(block_counters nbd0)"
		fi
		sleep 1
	done
	in_guest ip link set eth0 up
	sys_log "link down 30 s: status took $(printf '%s\n' "${times[@]}" | sort -n | tr '\n' ' ')ms;" \
		"degraded after ${stalled_at[wk]:-never} s (wk, krbd), ${stalled_at[wn]:-never} s (wn, nbd)"
	started=$SECONDS
	wait_up 120 wk wn
	sys_log "up again $((SECONDS - started)) s after the link came back"
	stop_writer wk
	stop_writer wn
	[ -n "${stalled_at[wk]:-}" ] || fail "wk (krbd) was not shown stalled while the link was down"
	median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((${#times[@]} + 1) / 2))p")
	for ms in "${times[@]}"; do
		((ms < 2000)) || fail "rbd-volumectl status took $ms ms while the link was down"
	done
	((median < 1000)) || fail "rbd-volumectl status took $median ms (the median) while the link was down"
	[ "$(publish_mount_ids 'w[kn]')" = "$mounts" ] ||
		fail "remounted behind the application's back: $mounts -> $(publish_mount_ids 'w[kn]')"
	stalled_then_up wk
	stop_units rbd-volume@wk.service rbd-volume@wn.service
}

# Run only when named (five minutes of waiting cost CI's budget): the
# guest's link to the cluster down for 5 minutes under a synchronous writer
# on a krbd and an nbd volume at their defaults, on a krbd volume mapped
# with osd_request_timeout=60 and on an nbd volume with io-timeout=60.
# status answers throughout (every call within 2 s under emulation, the
# median within 1 s) and the krbd volume at its defaults shows degraded
# (IoStalled) while its I/O waits. The kernel holds the defaults' I/O for as
# long as the cluster is away: both writers go on with no error once the
# link is back, nothing remounted. lt's first request in the cut fails 60 s
# after it began, and its ext4 shuts (FilesystemErrors); so do lo's writes,
# once the kernel dropped rbd-nbd's connection for want of an answer.
case_life_network_cut_long() {
	local v started mounts
	in_guest modprobe rbd
	kspec lk krbd ext4
	kspec ln nbd ext4
	kspec lt krbd ext4 krbd='"osd_request_timeout=60"'
	kspec lo nbd ext4 nbd='"io-timeout=60"'
	start_units rbd-volume@lk.service rbd-volume@ln.service rbd-volume@lt.service rbd-volume@lo.service
	wait_up 60 lk ln lt lo
	mounts=$(publish_mount_ids 'l[knto]')
	for v in lk ln lt lo; do start_writer "$v"; done
	link_cut 300 5 lk ln lt lo
	status_answered "link down 5 min"
	sys_log "link down 5 min: degraded after ${CUT_STALLED[lk]:-never} s (lk)," \
		"${CUT_STALLED[ln]:-never} s (ln), ${CUT_STALLED[lt]:-never} s (lt), ${CUT_STALLED[lo]:-never} s (lo);" \
		"writes failed after ${CUT_FAILED[lt]:-never} s (lt), ${CUT_FAILED[lo]:-never} s (lo)"
	sys_log "lo at the end of the cut: $(writes_of lo); $(vol_field lo phase) $(vol_field lo conditions);" \
		"rbd-nbd@lo $(unit_state rbd-nbd@lo.service); kernel: $(in_guest dmesg | grep -E 'nbd[0-9]' | tail -n 5 | tr '\n' ';')"
	[ -n "${CUT_STALLED[lk]:-}" ] || fail "lk (krbd) was not shown stalled in the cut"
	[ -z "${CUT_FAILED[lk]:-}${CUT_FAILED[ln]:-}" ] || fail "a writer at the defaults failed in the cut"
	# its first request in the cut fails 60 s after it began; seen within a pass or two
	((${CUT_FAILED[lt]:-0} >= 55 && ${CUT_FAILED[lt]:-0} <= 100)) ||
		fail "lt's writer (osd_request_timeout=60) first failed after ${CUT_FAILED[lt]:-never} s of the cut"
	started=$SECONDS
	wait_up 120 lk ln
	sys_log "up again $((SECONDS - started)) s after the link came back: $(writes_of lk), $(writes_of ln)"
	wait_for 60 vol_condition lt FilesystemErrors ||
		fail "lt after its failed writes: $(vol_field lt phase) $(vol_field lt conditions)"
	sys_log "lt: $(vol_field lt conditions | cut -c1-200)"
	# io-timeout: the kernel dropped rbd-nbd's connection 60 s into a request,
	# then failed the device's I/O; ext4 gave up as lt's did
	[ -n "${CUT_FAILED[lo]:-}" ] || fail "lo's writer (io-timeout=60) saw no error in the cut"
	wait_for 60 vol_condition lo FilesystemErrors ||
		fail "lo after its failed writes: $(vol_field lo phase) $(vol_field lo conditions)"
	sys_log "lo after the cut: $(writes_of lo); $(vol_field lo conditions | cut -c1-200);" \
		"rbd-nbd@lo $(unit_state rbd-nbd@lo.service)"
	stop_writer lk
	stop_writer ln
	for v in lt lo; do
		in_guest touch "/run/rbdv-writer-$v.stop"
		wait_for 120 unit_in_state "rbdv-writer-$v.service" exited || fail "the writer of $v did not finish"
		in_guest systemctl stop "rbdv-writer-$v.service"
		in_guest rm -f "/run/rbdv-writer-$v.stop" "/run/rbdv-writer-$v.count"
	done
	[ "$(publish_mount_ids 'l[knto]')" = "$mounts" ] ||
		fail "remounted behind the application's back: $mounts -> $(publish_mount_ids 'l[knto]')"
	stalled_then_up lk
	stop_units rbd-volume@lk.service rbd-volume@ln.service rbd-volume@lt.service rbd-volume@lo.service
}

# shutdown_record FIRST SECOND: the journal of the boot before this one says
# that rbd-volumed was told of the shutdown, that the nbd device's requests
# were bounded, and what became of each volume (down, or abandoned)
shutdown_record() {
	local v lines abandoned
	lines=$(in_guest journalctl -b -1 -q -o cat SYSLOG_IDENTIFIER=rbd-volumed |
		grep -E 'shutting down|fail after shutdown-io|abandoned|is down|failed' | tr '\n' ';')
	abandoned=$(in_guest journalctl -b -1 -q -o cat MESSAGE_ID=4d0fa4fa68f54920b2f5edb50a2ae1c4 | tr '\n' ';')
	sys_log "rbd-volumed at that shutdown: $lines"
	grep -q 'the host is shutting down' <<<"$lines" || fail "rbd-volumed was not told of the shutdown"
	grep -q 'requests on /dev/nbd0 now fail after shutdown-io' <<<"$lines" ||
		fail "the nbd device's requests were not bounded at shutdown"
	for v in "$@"; do
		grep -q "volume '$v' is down" <<<"$lines" || grep -q "volume '$v'" <<<"$abandoned" ||
			fail "the journal does not say what became of $v at shutdown"
	done
}

# new_acked_writers NAME...: each NAME's records written anew, none left
# from a writer before
new_acked_writers() {
	local v
	for v in "$@"; do
		in_guest rm -f "/srv/$v/acked"
		rm -f "$SYS_WORK/vm/acked-$v"
		start_acked_writer "$v"
	done
}

# The guest's link to the cluster cut 5 s before systemctl poweroff, a
# synchronous writer on a krbd volume mapped with osd_request_timeout and on
# an nbd volume (io-timeout 0: it would wait for ever), both enabled for
# boot, and a service that requires the first: the guest is off within
# 180 s and the journal says what became of each volume. The guest boots
# again with its link still down (boot_without_cluster); once the link is
# up, every write acknowledged before the cut is there.
case_life_shutdown_cut_off() {
	local v took
	in_guest modprobe rbd
	kspec sk krbd ext4 krbd='"osd_request_timeout=20"'
	kspec sn nbd ext4
	needs_volume_service sk
	in_guest systemctl daemon-reload
	in_guest systemctl enable --quiet rbd-volume@sk.service rbd-volume@sn.service rbdv-needs-sk.service
	start_units rbd-volume@sk.service rbd-volume@sn.service
	wait_up 60 sk sn
	for v in sk sn; do start_acked_writer "$v"; done
	sleep 3
	in_guest ip link set eth0 down
	sleep 5
	touch "$SYS_WORK/vm/guest/link-down" # still down when the guest boots again
	in_guest systemctl poweroff --no-block
	took=$(kg_wait_off 180) || { kg_power_cut; fail "the guest was not off 180 s after systemctl poweroff"; }
	sys_log "systemctl poweroff, the cluster cut off 5 s before: $took" \
		"(acknowledged: $(acked_of sk), $(acked_of sn))"
	kg_boot >/dev/null || fail "the guest did not boot again"
	shutdown_record sk sn
	boot_without_cluster sk sn
	for v in sk sn; do acked_present "$v"; done
	in_guest systemctl disable --quiet rbd-volume@sk.service rbd-volume@sn.service rbdv-needs-sk.service
	stop_units rbdv-needs-sk.service rbd-volume@sk.service rbd-volume@sn.service
}

# Run only when named (its poweroff and boot cost CI's budget): the cluster's
# daemons stopped 5 s before systemctl poweroff, the guest's link up, so that
# where life_shutdown_cut_off's cut link was silent the cluster's address
# now refuses every connection; a synchronous writer on a krbd volume
# mapped with osd_request_timeout and on an nbd volume at its defaults,
# both enabled for boot. The guest is off within 180 s and the journal says
# what became of each volume; the daemons started again, the next boot
# brings both volumes up with every write acknowledged before the stop.
case_life_shutdown_cluster_stopped() {
	local v took
	in_guest modprobe rbd
	kspec xk krbd ext4 krbd='"osd_request_timeout=20"'
	kspec xn nbd ext4
	in_guest systemctl enable --quiet rbd-volume@xk.service rbd-volume@xn.service
	start_units rbd-volume@xk.service rbd-volume@xn.service
	wait_up 60 xk xn
	new_acked_writers xk xn
	sleep 3
	kg_stop_cluster
	sleep 5
	in_guest systemctl poweroff --no-block
	took=$(kg_wait_off 180) || took=""
	[ -n "$took" ] || kg_power_cut
	# the cluster back before any verdict: the cases after this one need it
	kg_start_cluster || fail "the test cluster did not start again: $(tail -n 3 "$SYS_WORK/cluster.log")"
	[ -n "$took" ] || fail "the guest was not off 180 s after systemctl poweroff, the cluster stopped"
	sys_log "systemctl poweroff, the cluster's daemons stopped 5 s before: $took" \
		"(acknowledged: $(acked_of xk), $(acked_of xn))"
	kg_boot >/dev/null || fail "the guest did not boot again"
	shutdown_record xk xn
	wait_up 120 xk xn
	for v in xk xn; do acked_present "$v"; done
	in_guest systemctl disable --quiet rbd-volume@xk.service rbd-volume@xn.service
	stop_units rbd-volume@xk.service rbd-volume@xn.service
}

# pool_quota BYTES: the test pool's quota (0: none)
pool_quota() { on_cluster ceph osd pool set-quota "$CEPH_POOL" max_bytes "$1" >/dev/null 2>&1; }

# cluster_mgr: a ceph-mgr beside the suite's cluster, which a quota needs
cluster_mgr() {
	"$KG_GUEST" netns "$SYS_WORK/vm" "$SYS_CLUSTER" mgr "$SYS_WORK/ceph" 2>>"$SYS_WORK/cluster.log"
}

# start_filler NAME PATH OFLAG: 64 KiB writes of zeroes (dd oflag=OFLAG) to
# the first 100 MiB of PATH, round and round, until /run/rbdv-fill-NAME.stop;
# counts them, and keeps the first error dd printed in /run/rbdv-fill-NAME.error.
start_filler() {
	# shellcheck disable=SC2016 # expanded inside
	in_guest systemd-run --quiet --unit="rbdv-fill-$1" /bin/bash -c '
		i=0
		while [ ! -e "/run/rbdv-fill-$1.stop" ] && [ $SECONDS -lt 1800 ]; do
			if ! out=$(dd if=/dev/zero of="$2" bs=64k seek=$((i % 1600)) count=1 conv=notrunc \
				oflag="$3" status=none 2>&1); then
				[ -s "/run/rbdv-fill-$1.error" ] || echo "$out" >"/run/rbdv-fill-$1.error"
				sleep 1
				continue
			fi
			i=$((i + 1))
			echo "$i" >"/run/rbdv-fill-$1.count"
		done' filler "$@"
	wait_for 30 in_guest test -s "/run/rbdv-fill-$1.count" || fail "the filler of $1 did not start writing"
}
fill_count() { in_guest cat "/run/rbdv-fill-$1.count"; }
krbd_aborts() { # krbd_aborts NAME: yes when NAME's krbd mapping fails writes on a full pool
	# shellcheck disable=SC2016 # expanded inside
	in_guest sh -c 'grep -qw abort_on_full "/sys/bus/rbd/devices/${1#/dev/rbd}/config_info" && echo yes || echo no' \
		krbd_aborts "$(device_of "$1")"
}
fill_error() { in_guest cat "/run/rbdv-fill-$1.error" 2>/dev/null; }
fill_beyond() { [ "$(fill_count "$1")" -gt "$2" ]; } # fill_beyond NAME N: more than N written
not_pool_full() { ! vol_condition "$1" PoolFull; }
mount_id() { in_guest findmnt -rn -o ID --mountpoint "/srv/$1"; }
unit_gone() { ! in_guest systemctl is-active --quiet "$1"; }

# The pool reaches its quota under a writer on a krbd ext4, a krbd xfs, an
# nbd ext4 volume and two raw krbd block volumes, one of them with
# abort-on-full = false (a quota of 1 MiB, which the images' data passes at
# once; the mon enforces it from a ceph-mgr's figures, started for this
# case). Every volume is PoolFull, the quota named, while it lasts.
# krbd fails the writes with ENOSPC (abort_on_full): the raw writer gets
# that, the ext4 writer that or, once ext4's journal aborted, EROFS, never
# EIO, and the volume shows FilesystemErrors; the xfs shuts down on its
# failed log write, also FilesystemErrors; the writes of rbd-nbd and of
# krbd without abort_on_full wait. With room again no volume is PoolFull,
# the writers that waited and the raw writer go on, and the krbd volumes
# with a filesystem stay degraded until a down and an up check the ext4
# and mount the xfs again. Nothing is remounted behind the applications.
case_life_pool_full() {
	local v before=() started full_at=() count mounts
	in_guest modprobe rbd
	kspec fk krbd ext4
	kspec fx krbd xfs size=320M
	kspec fn nbd ext4
	kspec fb krbd block
	kspec fw krbd block abort-on-full=false
	start_units rbd-volume@fk.service rbd-volume@fx.service rbd-volume@fn.service \
		rbd-volume@fb.service rbd-volume@fw.service
	wait_up 60 fk fx fn fb fw
	[ "$(krbd_aborts fk)" = yes ] || fail "krbd mapped fk without abort_on_full"
	[ "$(krbd_aborts fw)" = no ] || fail "krbd mapped fw with abort_on_full"
	mounts=$(mount_id fk)
	cluster_mgr || fail "no ceph-mgr: $(tail -n 3 "$SYS_WORK/cluster.log")"
	start_filler fk /srv/fk/fill direct
	start_filler fx /srv/fx/fill direct
	start_filler fn /srv/fn/fill direct,sync
	start_filler fb "$(device_of fb)" direct
	start_filler fw "$(device_of fw)" direct
	touch "$SYS_WORK/vm/pool-quota"
	pool_quota 1048576 || fail "cannot set the pool's quota"
	started=$SECONDS
	for v in fk fx fn fb fw; do
		wait_for 90 vol_condition "$v" PoolFull "the pool '$CEPH_POOL' is full: its quota of 1 MiB is reached" ||
			fail "$v is not PoolFull $((SECONDS - started)) s after the quota: $(vol_field "$v" conditions)"
		full_at+=("$v $((SECONDS - started)) s")
	done
	for v in fk fb; do
		wait_for 60 in_guest test -s "/run/rbdv-fill-$v.error" ||
			fail "$v's writes did not fail on the full pool: $(fill_count "$v") writes"
	done
	[[ $(fill_error fb) == *"No space left on device"* ]] ||
		fail "fb's raw write failed otherwise than with ENOSPC: $(fill_error fb)"
	sys_log "PoolFull after the quota was set: ${full_at[*]}; fk's first failed write: $(fill_error fk)"
	case $(fill_error fk) in
	*"No space left on device"* | *"Read-only file system"*) ;;
	*) fail "fk's write failed otherwise than with ENOSPC or EROFS: $(fill_error fk)" ;;
	esac
	wait_for 60 vol_condition fk FilesystemErrors "ext4 on /dev/rbd" ||
		fail "fk's ext4 errors are not shown: $(vol_field fk conditions)"
	wait_for 60 vol_condition fx FilesystemErrors "xfs on /dev/rbd" ||
		fail "fx's xfs is not shown shut down: $(vol_field fx conditions); $(fill_error fx)"
	sys_log "fx's first failed write: $(fill_error fx)"
	before=("$(fill_count fn)" "$(fill_count fw)" "$(fill_count fb)")
	sleep 5
	[ "$(fill_count fn)" = "${before[0]}" ] || fail "fn's writes went on on a full pool (${before[0]}, then $(fill_count fn))"
	[ "$(fill_count fw)" = "${before[1]}" ] || fail "fw's writes went on on a full pool (${before[1]}, then $(fill_count fw))"
	for v in fn fw; do
		! in_guest test -s "/run/rbdv-fill-$v.error" || fail "$v's writes failed: $(fill_error "$v")"
	done

	pool_quota 0 || fail "cannot lift the pool's quota"
	rm -f "$SYS_WORK/vm/pool-quota"
	started=$SECONDS
	wait_up 120 fn fw fb
	sys_log "fn, fw and fb up $((SECONDS - started)) s after the quota was lifted; fk: $(vol_field fk phase)"
	wait_for 60 fill_beyond fn "${before[0]}" || fail "fn's writes did not resume"
	wait_for 60 fill_beyond fw "${before[1]}" || fail "fw's writes did not resume"
	wait_for 60 fill_beyond fb "${before[2]}" || fail "fb's writes did not go on"
	for v in fk fx; do
		wait_for 30 not_pool_full "$v" || fail "$v is still PoolFull with room in the pool"
		# its filesystem still fails every write: degraded until the operator acts
		vol_condition "$v" FilesystemErrors || fail "$v's errors went unreported after the pool had room"
		expect_phase "$v" degraded
	done
	[ "$(mount_id fk)" = "$mounts" ] || fail "remounted behind the application's back"
	in_guest touch /run/rbdv-fill-{fk,fx,fn,fb,fw}.stop
	for v in fk fx fn fb fw; do
		wait_for 60 unit_gone "rbdv-fill-$v.service" || fail "$v's filler did not stop"
	done
	for v in fn fw; do
		! in_guest test -s "/run/rbdv-fill-$v.error" || fail "$v's writes failed: $(fill_error "$v")"
	done
	count=$(fill_count fn)
	for v in fk fx; do
		in_guest "$SYS_BINDIR/rbd-volumectl" down "$v" || fail "down $v failed"
		in_guest "$SYS_BINDIR/rbd-volumectl" up "$v" || fail "up $v failed: $(vol_field "$v" conditions)"
	done
	wait_up 60 fk fx
	! vol_condition fk FilesystemErrors || fail "fk's ext4 errors outlived its check"
	! vol_condition fx FilesystemErrors || fail "fx's xfs is still shut down after its mount"
	sys_log "fk up again after down and up; its check: $(in_guest journalctl -q -o cat RBDV_VOLUME=fk RBDV_STEP=check | tail -n 1); fn wrote $count blocks"
	for v in fk fx; do
		in_guest dd if=/dev/zero of="/srv/$v/after" bs=64k count=1 oflag=direct,sync status=none ||
			fail "$v takes no writes after its up"
	done
	stop_units rbd-volume@fk.service rbd-volume@fx.service rbd-volume@fn.service \
		rbd-volume@fb.service rbd-volume@fw.service
}
