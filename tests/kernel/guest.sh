#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# guest.sh: a real Linux kernel for the kernel suite. Debian 12's own 6.1
# kernel (rbd, nbd, dm-crypt as modules) boots under qemu in software
# emulation (TCG: no KVM, no module of this machine's kernel), with systemd
# as PID 1, so rbd-volumed, its units, rbd-nbd@ and udev run as on a host.
#
#   guest.sh start DIR          boot the guest kept in DIR; returns when it
#                               runs commands (fails fast, saying why, if not);
#                               with a file DIR/guest/link-down (taken at boot)
#                               its link stays down: the cluster unreachable
#   guest.sh net DIR            make the guest's network namespace (start
#                               does too): a cluster can start there first
#   guest.sh exec DIR [-i] CMD...  run CMD (argv) as root in the guest, in /,
#                               with a clean environment (PATH, HOME, LANG;
#                               TERM=dumb, no pager, no colours); -i passes
#                               stdin, else it is /dev/null; its output
#                               streams back, its exit status is ours
#   guest.sh netns DIR CMD...   run CMD here, in the guest's network namespace
#                               (where its tap device and the cluster are)
#   guest.sh wait-off DIR SECS  wait until the guest ends by itself (its own
#                               poweroff or reboot); 1 if it still runs after SECS
#   guest.sh kill DIR           pull its plug: qemu killed, no shutdown at all
#   guest.sh stop DIR           power it off (or kill it), delete the namespace;
#                               always safe to run again
#
# The guest's root is this machine's /, read-only over virtio-9p, under an
# overlay whose upper layer is a disk of its own (DIR/guest/root.img, ext4):
# it has every program installed here, writes nothing back, and keeps what it
# wrote to /etc and /var across its reboots; /run and /tmp are RAM. A start
# after wait-off or kill boots the same root again, the namespace (and a
# cluster in it) kept. DIR itself is shared read-write at the same path.
# Debian's udev, which this machine need not have, is a second lower layer.
# It boots kernel-suite.target: basic.target and remote-fs.target (where
# enabled rbd-volume@ units are wanted), nothing of this machine's own
# multi-user.target. Its console, every boot after the last, is in
# DIR/guest/console.log.
# The network: a namespace of our own holds a tap device (10.99.0.1); the
# guest is 10.99.0.2 on it; a cluster started in the namespace bound to
# 10.99.0.1 is the only thing it reaches. Commands: a small agent, a service
# of the guest's systemd, runs DIR/jobs/ID.cmd files and writes ID.out, ID.err
# and ID.rc next to them; a byte on a virtio port (DIR/guest/ring.in here)
# wakes it for each.
#
# Downloaded by name from Debian's archive once (apt-get download) and kept in
# RBDV_KERNEL_CACHE (/var/cache/rbd-volume-kernel): the kernel linux-image-amd64
# points at, busybox-static (the initramfs) and udev. Installed by
# scripts/install-deps.sh: qemu-system-x86, kmod, rbd-nbd.
#
# Knobs: RBDV_KERNEL_CACHE, RBDV_KERNEL_MEM (2048M), RBDV_KERNEL_CPUS (2),
# RBDV_KERNEL_BOOT_TIMEOUT (seconds, 300).
set -euo pipefail

CACHE=${RBDV_KERNEL_CACHE:-/var/cache/rbd-volume-kernel}
MEM=${RBDV_KERNEL_MEM:-2048M}
CPUS=${RBDV_KERNEL_CPUS:-2}
BOOT_TIMEOUT=${RBDV_KERNEL_BOOT_TIMEOUT:-300}
QEMU=/usr/bin/qemu-system-x86_64
HOST_ADDR=10.99.0.1
# The initramfs in the cache: a new name whenever its init or modules change
INITRD=initrd.2.gz
ROOT_SIZE=8G # sparse: what the guest writes to /etc, /var, /usr, /srv
GUEST_ADDR=10.99.0.2

say() { printf 'guest: %s\n' "$*" >&2; }
die() {
	printf 'guest: ERROR: %s\n' "$*" >&2
	exit 1
}
usage() {
	sed -n '8,23p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

[ $# -ge 2 ] || usage
cmd=$1
case $2 in /*) ;; *) die "DIR must be an absolute path, got '$2'" ;; esac
DIR=${2%/}
shift 2
# exec, run thousands of times a suite, needs no namespace: no process for it
[ "$cmd" = exec ] || NS=rbdv-kg-$(printf '%s' "$DIR" | cksum | cut -d' ' -f1)
G=$DIR/guest
JOBS=$DIR/jobs

# --- what is downloaded once -------------------------------------------------------

# Debian's package NAME downloaded and unpacked into DEST (once; .done marks it).
unpack_package() { # unpack_package NAME DEST
	local t
	[ -f "$2/.done" ] && return 0
	say "downloading $1 from Debian's archive (once, into $CACHE)"
	mkdir -p "$CACHE"
	t=$(mktemp -d "$CACHE/download.XXXXXX")
	if ! (cd "$t" && apt-get download "$1" >/dev/null 2>&1); then
		apt-get update -q >/dev/null 2>&1 || true
		(cd "$t" && apt-get download "$1" >/dev/null 2>&1) ||
			{ rm -rf "$t"; die "apt-get download $1 failed (no access to Debian's archive?)"; }
	fi
	rm -rf "$2"
	mkdir -p "$2"
	dpkg-deb -x "$t"/*.deb "$2"
	rm -rf "$t"
	touch "$2/.done"
}

# The kernel package linux-image-amd64 depends on now, or the newest cached.
kernel_package() {
	local pkg
	pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/.*Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -n1)
	[ -n "$pkg" ] || pkg=$(find "$CACHE" -maxdepth 1 -name 'linux-image-6*' -printf '%f\n' 2>/dev/null | sort | tail -n1)
	[ -n "$pkg" ] || die "cannot tell which kernel linux-image-amd64 means (apt-get update?)"
	echo "$pkg"
}

# udev as an overlay layer: /bin, /sbin, /lib moved under usr/ (this machine
# has merged /usr; a real bin/ in a layer would hide the /bin link).
make_udev_layer() {
	local layer=$CACHE/udev d
	[ -f "$layer/.merged" ] && [ -x "$layer/usr/bin/udevadm" ] && return 0
	rm -rf "$layer"
	unpack_package udev "$layer"
	for d in bin sbin lib; do
		if [ -d "$layer/$d" ] && [ ! -L "$layer/$d" ]; then
			mkdir -p "$layer/usr/$d"
			cp -a "$layer/$d/." "$layer/usr/$d/"
			rm -rf "${layer:?}/$d"
		fi
	done
	[ -x "$layer/usr/bin/udevadm" ] || die "the udev package has no udevadm"
	touch "$layer/.merged"
}

# The initramfs: busybox, the modules that mount the 9p root and the overlay,
# and an init that builds the root and runs stage 2 (in DIR) inside it.
make_initramfs() { # make_initramfs KERNEL_DIR VERSION
	local k=$1 version=$2 t m
	[ -f "$k/$INITRD" ] && return 0
	unpack_package busybox-static "$CACHE/busybox"
	t=$(mktemp -d "$CACHE/initrd.XXXXXX")
	mkdir -p "$t/bin" "$t/mods" "$t/proc" "$t/sys" "$t/dev" "$t/lower" "$t/udev" "$t/ov" "$t/newroot"
	cp "$CACHE/busybox/bin/busybox" "$t/bin/"
	for m in sh mount mkdir insmod switch_root cat poweroff sed sleep; do ln -s busybox "$t/bin/$m"; done
	for m in virtio_pci virtio_blk 9pnet_virtio 9p overlay ext4; do
		modprobe -d "$k" -S "$version" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
	done | awk '!seen[$0]++' | while read -r m; do
		cp "$m" "$t/mods/" && basename "$m" >>"$t/mods/order"
	done
	cat >"$t/init" <<'EOF'
#!/bin/sh
# The host's / (9p, read-only) and udev (9p) under an overlay whose upper
# layer is the root disk (its journal replayed after a power cut); then stage 2.
mount -t proc proc /proc; mount -t sysfs sysfs /sys; mount -t devtmpfs devtmpfs /dev
for m in $(cat /mods/order); do insmod /mods/$m || echo "guest: insmod $m failed"; done
stage2=$(sed -n 's/.*rbdv_stage2=\([^ ]*\).*/\1/p' /proc/cmdline)
o=trans=virtio,version=9p2000.L,msize=512000,ro,cache=loose
mount -t 9p -o $o hostroot /lower || { echo "guest: the 9p root failed"; poweroff -f; }
mount -t 9p -o $o udev /udev || { echo "guest: the udev layer failed"; poweroff -f; }
for i in 1 2 3 4 5 6 7 8 9 10; do [ -b /dev/vda ] && break; sleep 1; done
mount -t ext4 /dev/vda /ov || { echo "guest: the root disk failed"; poweroff -f; }
mkdir -p /ov/upper /ov/work
mount -t overlay overlay -o lowerdir=/udev:/lower,upperdir=/ov/upper,workdir=/ov/work /newroot ||
	{ echo "guest: the overlay failed"; poweroff -f; }
for d in proc sys dev; do mount --move /$d /newroot/$d; done
exec switch_root /newroot /bin/sh "$stage2"
EOF
	chmod 755 "$t/init"
	(cd "$t" && find . | "$CACHE/busybox/bin/busybox" cpio -o -H newc 2>/dev/null | gzip -1 >"$k/$INITRD.new")
	mv "$k/$INITRD.new" "$k/$INITRD"
	rm -rf "$t"
}

KERNEL_DIR="" KERNEL_VERSION=""
make_kernel() {
	local pkg
	pkg=$(kernel_package)
	KERNEL_VERSION=${pkg#linux-image-}
	KERNEL_DIR=$CACHE/$pkg
	if [ ! -f "$KERNEL_DIR/.depmod" ]; then
		unpack_package "$pkg" "$KERNEL_DIR"
		depmod -b "$KERNEL_DIR" "$KERNEL_VERSION"
		touch "$KERNEL_DIR/.depmod"
	fi
	make_initramfs "$KERNEL_DIR" "$KERNEL_VERSION"
}

# --- the guest's own files (in DIR) ------------------------------------------------------

write_stage2() {
	mkdir -p "$G" "$JOBS"
	cat >"$G/stage2" <<EOF
#!/bin/sh
# Written by guest.sh: stage 2, in the overlay root; ends by exec'ing systemd.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t tmpfs -o mode=0755 tmpfs /run
# the kernel's modules where modprobe looks, before /tmp is covered
mkdir -p /lib/modules/$KERNEL_VERSION
mount --bind $KERNEL_DIR/lib/modules/$KERNEL_VERSION /lib/modules/$KERNEL_VERSION
# a /tmp of its own: this machine's would be emptied by systemd-tmpfiles
# (Debian's tmp.conf, "D /tmp") through 9p, one whiteout a file, and the boot
# would take longer the more this machine holds there
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /tmp
mkdir -p "$DIR" && mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,rw dir "$DIR" ||
	{ echo "guest: cannot mount $DIR"; poweroff -f; }
# this machine's own container markers would make systemd think it runs in
# a container: it would leave / private, so a service's mount namespace
# (udevd's PrivateMounts=) would keep our mounts after we unmount them
rm -f /.dockerenv /run/.containerenv
echo rbdv-guest >/etc/hostname
printf '127.0.0.1 localhost\n$GUEST_ADDR rbdv-guest\n$HOST_ADDR cluster\n' >/etc/hosts
modprobe virtio_console || echo "guest: no virtio console: the agent polls"
link=up
if [ -e $G/link-down ]; then
	rm -f $G/link-down
	link=down
	echo "guest: eth0 stays down: the cluster is unreachable until a case brings it up"
fi
modprobe virtio_net && ip link set lo up && ip addr add $GUEST_ADDR/24 dev eth0 && ip link set eth0 \$link ||
	echo "guest: no network"
# nothing of this machine's own configuration starts: basic.target and what we add
cat >/etc/systemd/system/kernel-suite-agent.service <<EOT
[Unit]
Description=kernel suite command agent
DefaultDependencies=no
After=sysinit.target
[Service]
ExecStart=/usr/bin/python3 -I -S $G/agent.py $JOBS
KillMode=process
EOT
mkdir -p /etc/systemd/system/basic.target.wants
ln -sf ../kernel-suite-agent.service /etc/systemd/system/basic.target.wants/kernel-suite-agent.service
# what it boots (systemd.unit= on the kernel's command line: systemd as PID 1
# ignores its own arguments): remote-fs.target too, where enabled
# rbd-volume@ units are wanted
cat >/etc/systemd/system/kernel-suite.target <<EOT
[Unit]
Description=kernel suite: basic.target and remote filesystems
Requires=basic.target
After=basic.target
Wants=remote-fs.target
EOT
# udevd serves devices made from now on; no coldplug (devtmpfs made every node)
ln -sf /dev/null /etc/systemd/system/systemd-udev-trigger.service
exec /usr/lib/systemd/systemd
EOF
	chmod 755 "$G/stage2"
	cat >"$G/agent.py" <<'EOF'
# Written by guest.sh: runs JOBS/ID.cmd (renamed ID.run: its argv, each
# argument ended by a NUL) with a clean environment, stdin from ID.in when
# it exists, output in ID.out and ID.err, status in ID.rc. A byte on the
# virtio port rbdv.ring says a job is there; without the port it looks every
# 50 ms. Under emulation every process costs: no shell runs between.
import glob, os, select, signal, sys, time
jobs = sys.argv[1]
ENV = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
       "HOME": "/root", "LANG": "C.UTF-8", "TERM": "dumb",
       "SYSTEMD_PAGER": "", "SYSTEMD_COLORS": "0"}
def put(path, text):
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.rename(path + ".tmp", path)
def ring_port():
    for d in glob.glob("/sys/class/virtio-ports/*"):
        with open(d + "/name") as f:
            if f.read().strip() == "rbdv.ring":
                return os.open("/dev/" + os.path.basename(d), os.O_RDONLY | os.O_NONBLOCK)
    return None
def spawn(base):
    with open(base + ".run", "rb") as f:
        argv = [a.decode() for a in f.read().split(b"\0")[:-1]]
    stdin = base + ".in" if os.path.exists(base + ".in") else "/dev/null"
    out = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    try:
        return os.posix_spawnp(argv[0], argv, ENV, setsid=True,
            setsigdef=(signal.SIGPIPE, signal.SIGXFSZ),
            file_actions=[(os.POSIX_SPAWN_OPEN, 0, stdin, os.O_RDONLY, 0),
                          (os.POSIX_SPAWN_OPEN, 1, base + ".out", out, 0o644),
                          (os.POSIX_SPAWN_OPEN, 2, base + ".err", out, 0o644)])
    except OSError as e:
        put(base + ".err", "agent: %s: %s\n" % (argv[0] if argv else "(no command)", e.strerror))
        put(base + ".rc", "127\n")
        return None
ring = ring_port()
running = {}  # pidfd: (pid, base)
with open("/proc/uptime") as f:
    put(os.path.join(jobs, "ready"), f.read().split()[0] + "\n")
beat = 0.0
while True:
    if time.monotonic() - beat >= 1:
        beat = time.monotonic()
        put(os.path.join(jobs, "alive"), "%d\n" % os.getpid())
    for n in sorted(os.listdir(jobs)):
        if n.endswith(".cmd"):
            base = os.path.join(jobs, n[:-4])
            try:
                os.rename(base + ".cmd", base + ".run")
            except OSError:
                continue
            pid = spawn(base)
            if pid:
                running[os.pidfd_open(pid)] = (pid, base)
    waiting = list(running) + ([ring] if ring is not None else [])
    ready = select.select(waiting, [], [], 1.0 if ring is not None else 0.05)[0]
    for fd in ready:
        if fd == ring:
            os.read(ring, 4096)
            continue
        pid, base = running.pop(fd)
        os.close(fd)
        put(base + ".rc", "%d\n" % os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
EOF
}

# --- the network namespace -------------------------------------------------------------------

netns_up() {
	ip netns list | grep -qw "$NS" || ip netns add "$NS"
	ip -n "$NS" link set lo up
	if ! ip -n "$NS" link show tap0 >/dev/null 2>&1; then
		ip -n "$NS" tuntap add dev tap0 mode tap
		ip -n "$NS" addr add "$HOST_ADDR/24" dev tap0
	fi
	ip -n "$NS" link set tap0 up
}

netns_down() {
	if ip netns list | grep -qw "$NS"; then ip netns delete "$NS"; fi
}

# --- the guest process ---------------------------------------------------------------------------

guest_pid() { # our qemu, if it runs (builtins only: exec asks each time)
	local pid argv
	{ read -r pid <"$G/qemu.pid"; } 2>/dev/null || return 1
	[ -r "/proc/$pid/cmdline" ] || return 1
	mapfile -d '' -t argv <"/proc/$pid/cmdline" 2>/dev/null || return 1
	[[ " ${argv[*]} " == *" rbdv_stage2=$G/stage2 "* ]] || return 1
	echo "$pid"
}

do_start() {
	local started=$SECONDS i
	[ "$(id -u)" -eq 0 ] || die "needs root"
	[ -x "$QEMU" ] || die "no $QEMU (scripts/install-deps.sh installs qemu-system-x86)"
	command -v modprobe >/dev/null || die "no modprobe (scripts/install-deps.sh installs kmod)"
	[ -c /dev/net/tun ] || die "no /dev/net/tun: the guest's network needs a tap device"
	guest_pid >/dev/null && die "a guest already runs in $DIR"
	make_udev_layer
	make_kernel
	write_stage2
	rm -f "$JOBS"/* "$G/qemu.pid" "$G/ring.in" "$G/ring.out"
	if [ ! -f "$G/root.img" ]; then
		truncate -s "$ROOT_SIZE" "$G/root.img.new"
		mkfs.ext4 -q -F -L rbdv-root "$G/root.img.new" || die "cannot make the guest's root disk"
		mv "$G/root.img.new" "$G/root.img"
	fi
	# the doorbell: what ring writes to ring.in reaches the agent's port
	mkfifo "$G/ring.in" "$G/ring.out"
	netns_up
	# setsid: the guest is a process group of its own, killed whole by stop
	setsid ip netns exec "$NS" "$QEMU" -machine pc,accel=tcg -cpu max -smp "$CPUS" -m "$MEM" \
		-kernel "$KERNEL_DIR/boot/vmlinuz-$KERNEL_VERSION" -initrd "$KERNEL_DIR/$INITRD" \
		-append "console=ttyS0 rdinit=/init panic=-1 loglevel=4 rbdv_stage2=$G/stage2 systemd.unit=kernel-suite.target" \
		-display none -monitor none -chardev "file,id=console,path=$G/console.log,append=on" \
		-serial chardev:console -no-reboot -pidfile "$G/qemu.pid" \
		-drive "file=$G/root.img,if=virtio,format=raw,cache=unsafe" \
		-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
		-virtfs "local,path=$CACHE/udev,mount_tag=udev,security_model=none,readonly=on" \
		-virtfs "local,path=$DIR,mount_tag=dir,security_model=passthrough,multidevs=remap" \
		-netdev tap,id=n0,ifname=tap0,script=no,downscript=no -device virtio-net-pci,netdev=n0 \
		-chardev "pipe,id=ring,path=$G/ring" -device virtio-serial-pci \
		-device virtserialport,chardev=ring,name=rbdv.ring \
		</dev/null >"$G/qemu.log" 2>&1 &
	for ((i = 0; i < BOOT_TIMEOUT * 10; i++)); do
		[ -s "$JOBS/ready" ] && break
		if ((i > 50)) && ! guest_pid >/dev/null; then
			tail -n 20 "$G/console.log" "$G/qemu.log" >&2 || true
			die "the guest died while booting (console: $G/console.log)"
		fi
		sleep 0.1
	done
	[ -s "$JOBS/ready" ] || die "the guest did not come up in ${BOOT_TIMEOUT}s (console: $G/console.log)"
	say "up in $((SECONDS - started)) s (kernel $KERNEL_VERSION, guest uptime $(tr -d '\n' <"$JOBS/ready") s)"
}

agent_alive() { # the agent's heartbeat is less than 30 s old
	[ -n "$(find "$JOBS/alive" -newermt '-30 seconds' 2>/dev/null)" ]
}

# A byte for the agent: a job is there. Opened read-write, a FIFO never
# blocks the opener, whether qemu reads it or not.
ring() { [ ! -p "$G/ring.in" ] || printf . 1<>"$G/ring.in"; }

# A pause without a process: read times out on a pipe nobody writes.
pause() {
	[ -n "${PAUSE_FD:-}" ] || exec {PAUSE_FD}<> <(:)
	read -r -t "$1" -u "$PAUSE_FD" || true
}

# What FILE grew by since OFFSET_VAR's offset, on stdout; "final" once the
# job ended (an empty file costs no process, nor does a short job's whole
# output more than one).
stream_file() { # stream_file FILE OFFSET_VAR [final]
	local -n seen=$2
	local size
	[ -s "$1" ] || return 0
	if ((seen == 0)) && [ "${3:-}" = final ]; then
		cat "$1"
		return
	fi
	size=$(stat -c %s "$1")
	((size <= seen)) || { tail -c +$((seen + 1)) "$1" | head -c $((size - seen)); seen=$size; }
}

# What the job wrote to ID.out and ID.err since the last look, passed on.
stream() { # stream [final]
	stream_file "$base.out" out "$@"
	stream_file "$base.err" err "$@" >&2
}

# One job, its argument vector in ID.cmd; its output streamed as it grows
# (looked at every half second: a short job's at its end alone), until
# ID.rc exists (looked at before the last read, so nothing is lost): every
# 10 ms for the first half second, where most jobs end, then every 100 ms.
# A long job (a writer, a systemctl start) waited on at 10 ms cost this
# machine a tenth of a core for as long as it ran.
do_exec() {
	[ $# -ge 1 ] || die "exec needs a command"
	# shellcheck disable=SC2034 # out and err: stream_file's offsets, by name
	local pid base out=0 err=0 polls=0 rc
	pid=$(guest_pid) || die "no guest runs in $DIR"
	base=$JOBS/$EPOCHREALTIME.$$.$RANDOM
	if [ "$1" = -i ]; then
		cat >"$base.in"
		shift
	fi
	printf '%s\0' "$@" >"$base.tmp"
	mv "$base.tmp" "$base.cmd"
	ring
	until [ -e "$base.rc" ]; do
		if ((++polls <= 50)); then
			pause 0.01
			continue
		fi
		if ((polls % 5 == 0)); then
			stream
			[ -d "/proc/$pid" ] || { rm -f "$base".*; die "the guest is gone"; }
			# the agent writes JOBS/alive every second; a job that stops it would hang here
			if ((polls % 50 == 0)) && ! agent_alive; then
				rm -f "$base".*
				die "the guest's command agent stopped (did a job stop kernel-suite-agent.service?)"
			fi
		fi
		pause 0.1
	done
	stream final
	read -r rc <"$base.rc"
	rm -f "$base".*
	return "$rc"
}

# What the guest cost this machine so far: qemu's CPU time (user and
# system, all its threads), in seconds, and for how long it has run.
guest_cost() { # guest_cost PID
	awk -v hz="$(getconf CLK_TCK)" -v up="$(cut -d' ' -f1 /proc/uptime)" \
		'{ sub(/.*\) /, ""); printf "%.0f s of CPU in %.0f s", ($12 + $13) / hz, up - $20 / hz }' "/proc/$1/stat"
}

do_stop() {
	local pid i
	if pid=$(guest_pid); then
		say "the guest used $(guest_cost "$pid")"
		printf '%s\0' sh -c 'sync; poweroff -f' >"$JOBS/poweroff.tmp"
		mv "$JOBS/poweroff.tmp" "$JOBS/poweroff.cmd"
		ring
		for ((i = 0; i < 100; i++)); do
			[ -d "/proc/$pid" ] || break
			sleep 0.1
		done
		if [ -d "/proc/$pid" ]; then
			say "the guest did not power off in 10 s; killing it"
			kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
			for ((i = 0; i < 50 && ${#pid} > 0; i++)); do [ -d "/proc/$pid" ] || break; sleep 0.1; done
		fi
	fi
	netns_down
	rm -rf "$JOBS"
}

# The guest gone by itself within SECONDS (its own poweroff or reboot: qemu
# runs with -no-reboot); says how long it took.
do_wait_off() { # do_wait_off SECONDS
	local pid start=${EPOCHREALTIME/./} tenths
	pid=$(guest_pid) || { say "no guest runs"; return 0; }
	while [ -d "/proc/$pid" ]; do
		((${EPOCHREALTIME/./} - start < $1 * 1000000)) || return 1
		pause 0.2
	done
	tenths=$(((${EPOCHREALTIME/./} - start) / 100000))
	say "off after $((tenths / 10)).$((tenths % 10)) s"
}

# A power cut: qemu killed, nothing of the guest's shutdown runs. What its
# root disk had been given is kept (qemu wrote it to the image file).
do_kill() {
	local pid i
	pid=$(guest_pid) || return 0
	kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid"
	for ((i = 0; i < 100; i++)); do [ -d "/proc/$pid" ] || return 0; sleep 0.1; done
	die "qemu ($pid) did not die"
}

case $cmd in
start) do_start ;;
wait-off)
	[ $# -eq 1 ] || usage
	do_wait_off "$1"
	;;
kill) do_kill ;;
exec) do_exec "$@" ;;
netns)
	[ $# -ge 1 ] || usage
	ip netns list | grep -qw "$NS" || die "no network namespace $NS (not started?)"
	exec ip netns exec "$NS" "$@"
	;;
net) netns_up ;;
stop) do_stop ;;
*) usage ;;
esac
