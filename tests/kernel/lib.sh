# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# lib.sh: the kernel suite's harness (tests/kernel/run.sh), sourced after
# tests/system/lib.sh, whose case running, reporting, waiting and status
# helpers it shares: they run on the machine under test through on_node and
# put_file, which point here at the guest kernel (tests/kernel/guest.sh)
# instead of the container.
#
#   kg_missing BUILD_DIR   what this machine lacks to run it (empty: nothing)
#   kg_up BUILD_DIR        network namespace, cluster there, guest, install
#   kg_down                tear it all down; safe at any point, more than once
#   kg_boot, kg_wait_off SECONDS, kg_power_cut   the guest's life (below)
#   in_guest CMD...        CMD in the guest (guest.sh exec: a clean environment)
#   on_cluster CMD...      CMD here, in the guest's network namespace, as admin
#   kspec NAME DRIVER FS [KEY=VALUE...]   a spec for NAME (see below)

KG_GUEST=$SYS_SRC/tests/kernel/guest.sh
KG_CEPH_ADDR=10.99.0.1
KG_DOWN_DONE=0

kg_missing() {
	local tool
	if [ "$(id -u)" -ne 0 ]; then echo "needs root"; return; fi
	for tool in qemu-system-x86_64 modprobe depmod apt-get dpkg-deb ip meson python3 \
		ceph-mon ceph-osd rbd rbd-nbd; do
		command -v "$tool" >/dev/null || {
			echo "$tool not found (scripts/install-deps.sh installs it)"
			return
		}
	done
	[ -c /dev/net/tun ] || { echo "no /dev/net/tun (the guest's network is a tap device)"; return; }
	case $'\n'$(sys_installed_paths "$1")$'\n' in
	*/rbd-volumed$'\n'*) ;;
	*) echo "this build has no rbd-volumed (it needs the ceph feature)" ;;
	esac
}

in_guest() { "$KG_GUEST" exec "$SYS_WORK/vm" "$@"; } # the agent's environment is clean
on_node() { in_guest "$@"; }

# wait_for looks once a second, not five times: a look in the guest (a
# `rbd-volumectl status --json` read by python3) costs 0.3 to 0.5 CPU-seconds
# under emulation, so at 0.2 s a wait burnt most of a core, which the guest's
# own work had to share. What a case times through wait_for is to the second.
# shellcheck disable=SC2034 # wait_for (tests/system/lib.sh) reads it
SYS_POLL=1

put_file() { # put_file PATH: stdin to PATH in the guest, atomically
	# shellcheck disable=SC2016 # expanded inside
	"$KG_GUEST" exec "$SYS_WORK/vm" -i sh -c 'd=$(dirname "$1"); mkdir -p "$d" &&
		cat >"$d/.$(basename "$1").tmp" && mv -f "$d/.$(basename "$1").tmp" "$1"' put_file "$1"
}

on_cluster() {
	"$KG_GUEST" netns "$SYS_WORK/vm" env CEPH_CONF="$CEPH_CONF" "$@"
}

# The cluster, in the guest's network namespace, bound to the tap device.
# krbd pings its watches every 5 s: with the suites' own 5 s watch timeout
# (short, for quick crash tests) the guest's watches timed out over and over.
kg_start_cluster() {
	local key value
	while IFS='=' read -r key value; do
		case $key in
		CEPH_CONF | CEPH_POOL | CEPH_TEST_ID | CEPH_TEST_KEYRING | CEPH_ADMIN_KEYRING)
			printf -v "$key" '%s' "$value"
			;;
		esac
	done < <("$KG_GUEST" netns "$SYS_WORK/vm" env RBDV_CEPH_ADDR=$KG_CEPH_ADDR RBDV_CEPH_WATCH_TIMEOUT=10 \
		RBDV_CEPH_OSD_BYTES="${RBDV_CEPH_OSD_BYTES:-3221225472}" \
		"$SYS_CLUSTER" start "$SYS_WORK/ceph" 2>"$SYS_WORK/cluster.log")
	[ -n "$CEPH_CONF" ] && [ -n "$CEPH_TEST_KEYRING" ]
}

# The cluster's daemons stopped cleanly (memstore saves its data to its
# directory): kg_start_cluster starts them again, the data kept.
kg_stop_cluster() { "$SYS_CLUSTER" stop "$SYS_WORK/ceph" 2>>"$SYS_WORK/cluster.log"; }

# The build, installed into the guest's root (RAM), and the cluster's client
# configuration at /etc/ceph/ceph.conf (run dir and logs inside the guest).
kg_install() {
	local log=$SYS_WORK/install.log path
	# through the guest's own share: its view of this machine's root is cached
	rm -rf "$SYS_WORK/vm/dest"
	DESTDIR=$SYS_WORK/vm/dest meson install -C "$SYS_BUILD" --no-rebuild >"$log" 2>&1 ||
		sys_die "meson install failed (see $log)"
	# A build for /usr puts its units in /lib (Debian 12's systemd.pc): where
	# / has merged /usr, /lib is a link that cp cannot copy a directory over.
	for path in bin sbin lib lib64; do
		if [ -L "/$path" ] && [ -d "$SYS_WORK/vm/dest/$path" ] && [ ! -L "$SYS_WORK/vm/dest/$path" ]; then
			mkdir -p "$SYS_WORK/vm/dest/usr/$path"
			cp -a "$SYS_WORK/vm/dest/$path/." "$SYS_WORK/vm/dest/usr/$path/"
			rm -rf "${SYS_WORK:?}/vm/dest/$path"
		fi
	done
	in_guest cp -a "$SYS_WORK/vm/dest/." / || sys_die "cannot copy the build into the guest"
	mapfile -t SYS_INSTALLED < <(sys_installed_paths "$SYS_BUILD")
	for path in "${SYS_INSTALLED[@]}"; do
		# shellcheck disable=SC2034 # the cases use them
		case $path in
		*/bin/rbd-volumectl) SYS_BINDIR=${path%/*} ;;
		*/rbd-volumed) SYS_SBINDIR=${path%/*} ;;
		*/dbus-1/system.d/org.rbdvolume1.conf) sys_include_bus_policy "${path%/*}" ;;
		esac
	done
	sed -e 's|^run dir = .*|run dir = /run/ceph|' -e 's|^log file = .*/|log file = /var/log/ceph/|' \
		"$CEPH_CONF" | put_file /etc/ceph/ceph.conf
	in_guest mkdir -p /run/ceph /var/log/ceph
	# a journal on the root disk: the life cases read the boot before
	in_guest sh -c 'mkdir -p /var/log/journal && journalctl --flush'
	# A full pass every 15 s, not every minute: what only the resync finds (a
	# mapper stopped for good: nbd_dead_mapper) is found sooner; what an event
	# triggers is not changed.
	printf '[daemon]\nresync-interval = "15s"\n' | put_file /etc/rbd-volume/rbd-volumed.toml
	in_guest systemctl daemon-reload
	in_guest systemd-tmpfiles --create rbd-volume.conf
	# dbus-daemon reads its policies when it starts and on a reload
	in_guest systemctl try-reload-or-restart dbus.service
}

kg_start_guardian() { # tears down if the runner dies without doing it (a SIGKILL)
	# shellcheck disable=SC2016 # expanded by the guardian
	setsid bash -c 'trap "" INT TERM HUP PIPE
		while [ -d "$2" ] && [ ! -e "$2/released" ] && kill -0 "$1" 2>/dev/null; do sleep 1; done
		[ -d "$2" ] && [ ! -e "$2/released" ] || exit 0
		"$3" stop "$2/vm"
		"$4" purge "$2/ceph"' guardian "$$" "$SYS_WORK" "$KG_GUEST" "$SYS_CLUSTER" \
		</dev/null >>"$SYS_WORK/guardian.log" 2>&1 &
}

kg_up() { # kg_up BUILD_DIR
	local started=$SECONDS guest_pid
	SYS_BUILD=$(cd "$1" && pwd)
	mkdir -p /var/lib/rbd-volume-tests
	SYS_WORK=$(mktemp -d /var/lib/rbd-volume-tests/kernel.XXXXXX)
	kg_start_guardian
	mkdir -p "$SYS_WORK/vm"
	"$KG_GUEST" net "$SYS_WORK/vm"
	# the guest boots while the cluster starts
	"$KG_GUEST" start "$SYS_WORK/vm" 2>"$SYS_WORK/guest.log" &
	guest_pid=$!
	kg_start_cluster || {
		wait "$guest_pid" || true
		sys_die "the test cluster did not start: $(tail -n 3 "$SYS_WORK/cluster.log")"
	}
	wait "$guest_pid" || sys_die "the guest kernel did not start: $(tail -n 3 "$SYS_WORK/guest.log")"
	sys_log "$(tail -n 1 "$SYS_WORK/guest.log")"
	# its own, or systemd-tmpfiles would have emptied this machine's through 9p
	[ "$(in_guest findmnt -n -o FSTYPE /tmp)" = tmpfs ] || sys_die "the guest's /tmp is not a tmpfs of its own"
	sys_log "a guest command takes $(kg_round_trip_ms) ms there and back (the median of five 'true')"
	kg_install
	sys_log "cluster, guest and install ready in $((SECONDS - started)) s"
}

# --- the guest's life -----------------------------------------------------------------

# kg_wait_off SECONDS: the guest ended by itself (its poweroff) within
# SECONDS; prints "off after N s". Else fails, the guest left running.
kg_wait_off() { "$KG_GUEST" wait-off "$SYS_WORK/vm" "$1" 2>&1; }

kg_power_cut() { "$KG_GUEST" kill "$SYS_WORK/vm"; } # no shutdown at all

# kg_boot: the guest started again on its root disk (the cluster kept),
# once it runs commands; prints how long that took.
kg_boot() {
	"$KG_GUEST" start "$SYS_WORK/vm" 2>>"$SYS_WORK/guest.log" || return 1
	tail -n 1 "$SYS_WORK/guest.log"
}

# The console of every boot, one file: what a boot printed is what follows
# the size taken before it.
kg_console_size() { stat -c %s "$SYS_WORK/vm/guest/console.log"; }
kg_console_since() { tail -c +$(($1 + 1)) "$SYS_WORK/vm/guest/console.log"; } # kg_console_since SIZE

# After every case: a guest that answers. One a case left off or hung is
# started again, and that is reported.
kg_ensure_guest() {
	timeout 60 "$KG_GUEST" exec "$SYS_WORK/vm" true >/dev/null 2>&1 && return 0
	echo "the guest did not answer: started again"
	"$KG_GUEST" kill "$SYS_WORK/vm" 2>/dev/null || true
	"$KG_GUEST" start "$SYS_WORK/vm" 2>>"$SYS_WORK/guest.log" >&2 || echo "the guest did not start again"
	return 1
}

# What in_guest costs beyond the command itself: every case pays it many times.
kg_round_trip_ms() {
	local started times=()
	while [ ${#times[@]} -lt 5 ]; do
		started=$(sys_now_ms)
		in_guest true
		times+=($(($(sys_now_ms) - started)))
	done
	printf '%s\n' "${times[@]}" | sort -n | sed -n 3p
}

# A last look when a case failed: the journal of our units, the kernel's log.
kg_diagnostics() {
	in_guest journalctl -q --no-pager -n 40 -u 'rbd-volumed*' -u 'rbd-volume@*' -u 'rbd-nbd@*' 2>&1 |
		sed 's/^/#   /' || true
	# what rbd-volumectl run by a case itself recorded (rotate-key, down): not in a unit's log
	in_guest journalctl -q --no-pager -n 10 -t rbd-volumectl _SYSTEMD_UNIT=kernel-suite-agent.service 2>&1 |
		sed 's/^/#   /' || true
	in_guest dmesg 2>&1 | tail -n 15 | sed 's/^/#   kernel: /' || true
}

kg_down() {
	[ "$KG_DOWN_DONE" = 1 ] && return 0
	KG_DOWN_DONE=1
	[ -n "$SYS_WORK" ] || return 0
	"$KG_GUEST" stop "$SYS_WORK/vm" 2>>"$SYS_WORK/guest.log" || true
	sys_log "$(sed -n 's/^guest: the guest used/the guest used/p' "$SYS_WORK/guest.log")"
	if [ -d "$SYS_WORK/ceph" ]; then
		"$SYS_CLUSTER" purge "$SYS_WORK/ceph" 2>>"$SYS_WORK/cluster.log" || true
	fi
	touch "$SYS_WORK/released"
	rm -rf --one-file-system "$SYS_WORK"
}

# Under emulation an argon2 unlock benchmarked to cryptsetup's 2 s costs the
# guest 2 to 4 CPU-seconds, at every open, format and key rotation: the specs
# here ask for 100 ms. csi_crypt keeps the default (the shim's specs say 2s).
KG_PBKDF_TIME='pbkdf-time = "100ms"'

# kspec NAME DRIVER FS [KEY=VALUE...]: a volume spec for image NAME, mapped by
# DRIVER (krbd, nbd, auto), FS ext4, xfs or "block", published at /srv/NAME.
# KEY=VALUE: size=SIZE (none: the image exists, no [image.create]), krbd=OPTS
# and nbd=OPTS ("a","b" TOML array items), abort-on-full=false (krbd's writes
# wait on a full pool), crypt=KEYFILE (LUKS2 keyed by it),
# kek=KEYFILE[@VOLUME-ID] (LUKS2 keyed by a data key in the image's metadata,
# wrapped by KEYFILE for VOLUME-ID, as ceph-csi keeps it). With KSPEC_TO set,
# the spec goes to that file on this side instead of into the guest.
kspec() {
	local name=$1 driver=$2 fs=$3 size=256M krbd="" abort="" nbd="" crypt="" kek="" kv
	shift 3
	for kv in "$@"; do
		case $kv in
		size=*) size=${kv#size=} ;;
		krbd=*) krbd=${kv#krbd=} ;;
		abort-on-full=*) abort=${kv#abort-on-full=} ;;
		nbd=*) nbd=${kv#nbd=} ;;
		crypt=*) crypt=${kv#crypt=} ;;
		kek=*) kek=${kv#kek=} ;;
		*) sys_die "kspec: unknown $kv" ;;
		esac
	done
	{
		printf '# %s: written by the kernel suite\n' "$name"
		[ "$fs" != block ] || printf 'mode = "block"\n'
		printf '[image]\npool = "%s"\nname = "%s"\n\n' "$CEPH_POOL" "$name"
		[ "$size" = none ] || printf '[image.create]\nsize = "%s"\n\n' "$size"
		printf '[cluster]\nid = "%s"\nkeyring = "%s"\n\n' "$CEPH_TEST_ID" "$CEPH_TEST_KEYRING"
		printf '[map]\ndriver = "%s"\n\n' "$driver"
		[ -z "$krbd$abort" ] || printf '[map.krbd]\n'
		[ -z "$krbd" ] || printf 'options = [%s]\n' "$krbd"
		[ -z "$abort" ] || printf 'abort-on-full = %s\n' "$abort"
		[ -z "$krbd$abort" ] || printf '\n'
		[ -z "$nbd" ] || printf '[map.nbd]\noptions = [%s]\n\n' "$nbd"
		[ -z "$crypt" ] || printf '[encryption]\ntype = "luks2"\nkeyfile = "%s"\n%s\n' "$crypt" "$KG_PBKDF_TIME"
		[ -z "$kek" ] || printf '[encryption]\ntype = "luks2"\npassphrase = "image-metadata"\nkeyfile = "%s"\n%s\n' "${kek%%@*}" "$KG_PBKDF_TIME"
		[ -z "$kek" ] || [[ $kek != *@* ]] || printf 'volume-id = "%s"\n' "${kek#*@}"
		[ -z "$kek" ] || printf '\n'
		[ "$fs" = block ] || printf '[filesystem]\ntype = "%s"\n\n[[publish]]\npath = "/srv/%s"\n' "$fs" "$name"
	} | if [ -n "${KSPEC_TO:-}" ]; then cat >"$KSPEC_TO"; else put_file "/etc/rbd-volume/volumes/$name.toml"; fi
}
