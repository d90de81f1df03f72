# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# krbd_cases.sh: the kernel suite's krbd cases (see cases.sh).

KG_CASES+=(krbd_stage_publish krbd_options_noudev krbd_busy_unmap krbd_online_grow
	krbd_safety_matrix)

# --- krbd --------------------------------------------------------------------------------

# An ext4 and an xfs volume through their units: mapped by the kernel (through
# rbd-volumed's own write to /sys/bus/rbd), udev's links, found again by a
# restarted daemon, data across down/up, one mapping; the ext4 one, blanked
# by hand, is never formatted again (formatted_stays_formatted).
case_krbd_stage_publish() {
	local v sum_e sum_x before config uuid
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
		# mapped by rbd-volumed's own add line, keyed by name: no rbd process, no secret kept
		config=$(in_guest cat "/sys/bus/rbd/devices/$(device_of $v | sed 's|^/dev/rbd||')/config_info")
		[[ $config != *secret=* ]] || fail "the kernel keeps $v's secret in its config_info"
		[[ $config == *",key=rbd-volume."* ]] || fail "$v was not mapped by rbd-volumed's own add line"
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
	uuid=$(in_guest blkid -s UUID -o value "$(device_of ke)")
	stop_units rbd-volume@ke.service rbd-volume@kx.service
	formatted_stays_formatted ke "$uuid"
}

# blank_by_hand NAME: every block of NAME's image discarded by the cluster's
# admin, on this machine (natively: no map in the guest): it reads zeroes
blank_by_hand() {
	on_cluster /usr/bin/python3 -c '
import os, sys, rados, rbd
with rados.Rados(conffile=os.environ["CEPH_CONF"]) as cluster:
    with cluster.open_ioctx(sys.argv[1]) as ioctx:
        with rbd.Image(ioctx, sys.argv[2]) as image:
            image.discard(0, image.size())' "$CEPH_POOL" "$1" || fail "cannot discard image $1"
}

# refused_blank NAME TEXT: NAME's image reads zeroes, no extent written;
# `up NAME` fails, a condition of NAME holds TEXT, nothing is mounted, and
# after `down` the image still has no extent: nothing was written to it
refused_blank() {
	[ "$(on_cluster rbd diff --format json "$CEPH_POOL/$1")" = "[]" ] || fail "image $1 has data"
	! ctl up "$1" >/dev/null 2>&1 || fail "$1 came up over a lost filesystem"
	vol_field "$1" conditions | grep -qF -- "$2" ||
		fail "$1's conditions do not say '$2': $(vol_field "$1" conditions)"
	sys_log "$1: $(vol_field "$1" conditions | cut -c1-240)"
	[ -z "$(mounts_of "$1")" ] || fail "something of $1 was mounted: $(mounts_of "$1")"
	ctl down "$1" >/dev/null || fail "down $1 failed"
	[ "$(on_cluster rbd diff --format json "$CEPH_POOL/$1")" = "[]" ] ||
		fail "image $1 was written: $(on_cluster rbd diff "$CEPH_POOL/$1" | head -n 3)"
}

# formatted_stays_formatted NAME UUID: NAME, down, was formatted by
# rbd-volume with ext4 UUID: its image's metadata says so. With this host's
# own record of the format gone (it lives in /run: a reboot, or another
# host) and every block discarded, the up is refused by the image's record
# and nothing is written. (A first MiB zeroed by hand is refused before:
# ext4's backup superblocks are data to the probe, as in krbd_safety_matrix.)
formatted_stays_formatted() {
	local made
	made=$(on_cluster rbd image-meta get "$CEPH_POOL/$1" rbd-volume.formatted) ||
		fail "$1's image keeps no rbd-volume.formatted"
	[[ $made == "ext4 uuid=$2 host="*" time="* ]] || fail "$1's record: '$made' (its ext4's UUID: $2)"
	in_guest rm -f "/run/rbd-volume/owned/$1"
	blank_by_hand "$1"
	refused_blank "$1" "(metadata rbd-volume.formatted) on $CEPH_POOL/$1, but /dev/rbd"
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
