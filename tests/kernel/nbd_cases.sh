# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# nbd_cases.sh: the kernel suite's rbd-nbd cases, and driver = "auto" choosing
# between krbd and nbd (see cases.sh).

KG_CASES+=(auto_driver nbd_heal daemon_restart_keeps_io nbd_dead_mapper nbd_dead_inflight)

# --- choosing the driver ----------------------------------------------------------------

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

# kill -9 of rbd-nbd under a synchronous writer, three times: systemd
# restarts rbd-nbd@NAME, which attaches to the device the kernel kept; no
# write fails, the device and the mounts stay, and a pass in the gap sees no
# fault. rbd-nbd@.service gives up after 5 starts within 60 s
# (StartLimitBurst); a start that fails and is retried must not end the case
# early: a drop-in lifts the limit for nh alone, and each kill follows as
# soon as the writes have resumed. (Ten kills took 262 s beside CI's other
# lanes, their heals 5.6 to 34.1 s each; three prove the same.)
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
	for i in 1 2 3; do
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
	# a heal that took 30 s showed IoStalled: up within 5 s of the first
	# completed request (the next look at the counters), as documented
	wait_for 10 vol_phase_is nh up || expect_phase nh up
	[ "$(unit_prop rbd-nbd@nh.service NRestarts)" -ge 3 ] ||
		fail "rbd-nbd@nh restarted $(unit_prop rbd-nbd@nh.service NRestarts) times, not 3"
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
