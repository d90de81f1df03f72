#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-cluster.sh: a throw-away single-node Ceph cluster on 127.0.0.1 (or RBDV_CEPH_ADDR)
# for the ceph, system and kernel suites.
#
#   test-cluster.sh start DIR    create the cluster in DIR (first time) or start it
#                                again; prints its KEY=VALUE environment when ready
#   test-cluster.sh stop DIR     stop the daemons started from DIR (always safe)
#   test-cluster.sh env DIR      print the KEY=VALUE environment again
#   test-cluster.sh status DIR   which daemons run, and the cluster's health
#   test-cluster.sh mgr DIR      start a ceph-mgr (mgr.x) beside the running cluster;
#                                stop stops it with the rest
#   test-cluster.sh purge DIR    stop, then delete DIR (only a DIR this script made)
#
# One ceph-mon (mon.a) and one memstore ceph-osd (osd.0), cephx on everywhere,
# pool "rbd" initialised for RBD, and a restricted client.test (caps: profile
# rbd) with a keyring and a bare key file. No ceph-mgr unless asked: only a
# pool quota needs one (the mon enforces it from the mgr's figures), and it
# costs a python interpreter's CPU. Everything -- config, keys, stores,
# logs, admin sockets, pid files -- lives under DIR; nothing under /etc or /var.
# Needs root and (Debian) ceph-mon ceph-osd ceph-common (ceph-mgr for 'mgr').
# No systemd, no network.
#
# Knobs (environment; address and ports are fixed when DIR is first created):
#   RBDV_CEPH_ADDR=127.0.0.1     the IPv4 address mon and OSD bind to and advertise;
#                                the kernel suite runs the cluster in a network
#                                namespace whose tap device a guest kernel reaches
#   RBDV_CEPH_MON_PORT=13300     monitor msgr2 port
#   RBDV_CEPH_MON_PORT_V1=16789  monitor msgr1 port (both outside the OSDs' 6800-7300)
#   RBDV_CEPH_TIMEOUT=120        seconds 'start' may take before it fails
#   RBDV_CEPH_WATCH_TIMEOUT=5    osd_client_watch_timeout: how long a killed client
#                                keeps its watch (30 in Ceph; short for crash tests)
#   RBDV_CEPH_OSD_BYTES=1073741824  memstore capacity (the OSD's RAM grows with data)
#
# Memstore keeps the data in the OSD's memory and saves it to DIR when the OSD
# stops cleanly ('osd fast shutdown = false'); a killed OSD loses it, and then
# only 'purge' and a new 'start' help.
set -euo pipefail

ADDR=${RBDV_CEPH_ADDR:-127.0.0.1}
PORT_V2=${RBDV_CEPH_MON_PORT:-13300}
PORT_V1=${RBDV_CEPH_MON_PORT_V1:-16789}
TIMEOUT=${RBDV_CEPH_TIMEOUT:-120}
WATCH_TIMEOUT=${RBDV_CEPH_WATCH_TIMEOUT:-5}
OSD_BYTES=${RBDV_CEPH_OSD_BYTES:-1073741824}
STOP_GRACE=30
POOL=rbd
MARKER=.rbdv-test-cluster

say() { printf 'test-cluster: %s\n' "$*" >&2; }
die() {
	printf 'test-cluster: ERROR: %s\n' "$*" >&2
	exit 1
}

usage() {
	sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

[ $# -eq 2 ] || usage
cmd=$1
case $cmd in start | stop | env | status | purge | mgr) ;; *) usage ;; esac
case $2 in /*) ;; *) die "DIR must be an absolute path, got '$2'" ;; esac

DIR=${2%/}
CONF=$DIR/ceph.conf
KEYS=$DIR/keys
RUN=$DIR/run
LOG=$DIR/log
ADMIN_KEYRING=$KEYS/client.admin.keyring
TEST_KEYRING=$KEYS/client.test.keyring
TEST_KEYFILE=$KEYS/client.test.key

started_at=$(date +%s)

# --- processes --------------------------------------------------------------

alive() { # alive PID: the process exists and is not a zombie
	local state
	[ -r "/proc/$1/stat" ] || return 1
	state=$(sed 's/^.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

daemon_pid() { # daemon_pid NAME: prints the pid of our daemon NAME, or fails
	local file=$RUN/$1.pid pid
	[ -s "$file" ] || return 1
	pid=$(cat "$file")
	case $pid in '' | *[!0-9]*) return 1 ;; esac
	alive "$pid" || return 1
	# A recycled pid belongs to someone else: only ours name our config.
	tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | grep -qxF -- "$CONF" || return 1
	echo "$pid"
}

stop_daemon() { # stop_daemon NAME: SIGTERM, then SIGKILL after STOP_GRACE seconds
	local pid i
	if ! pid=$(daemon_pid "$1"); then
		rm -f "$RUN/$1.pid"
		return 0
	fi
	kill -TERM "$pid" 2>/dev/null || true
	for ((i = 0; i < STOP_GRACE * 5; i++)); do
		alive "$pid" || break
		sleep 0.2
	done
	if alive "$pid"; then
		say "$1 (pid $pid) ignored SIGTERM for ${STOP_GRACE}s; sending SIGKILL"
		kill -KILL "$pid" 2>/dev/null || true
		for ((i = 0; i < 50; i++)); do
			alive "$pid" || break
			sleep 0.1
		done
	fi
	rm -f "$RUN/$1.pid"
}

# --- waiting, always bounded --------------------------------------------------

ceph_admin() { timeout 20 ceph --conf "$CONF" --connect-timeout 10 "$@"; }

within_deadline() { # within_deadline WHAT: fails the start once TIMEOUT is spent
	if (($(date +%s) - started_at >= TIMEOUT)); then
		die "the cluster in $DIR did not come up within ${TIMEOUT}s: still waiting for $1 (logs in $LOG; 'test-cluster.sh stop $DIR' stops what runs)"
	fi
}

wait_for() { # wait_for WHAT DAEMON COMMAND...: retries COMMAND until it succeeds
	local what=$1 daemon=$2
	shift 2
	until "$@" >/dev/null 2>&1; do
		within_deadline "$what"
		[ -z "$daemon" ] || daemon_pid "$daemon" >/dev/null ||
			die "$daemon exited while waiting for $what (see $LOG/ceph-$daemon.log)"
		sleep 0.3
	done
}

# The daemons outlive us: they must not inherit our lock (fd 9) or a pipe
# someone waits on for EOF, so they get stdio only.
spawn_daemon() { # spawn_daemon COMMAND...: runs it with stdio only; it daemonizes itself
	(
		for fd in /proc/"$BASHPID"/fd/*; do
			fd=${fd##*/}
			[ "$fd" -gt 2 ] && eval "exec $fd>&-"
		done
		exec "$@"
	) </dev/null >>"$LOG/daemons.log" 2>&1
}

port_in_use() { ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; }

# --- creating the cluster -----------------------------------------------------

check_tools() {
	[ "$(id -u)" -eq 0 ] || die "needs root (the daemons bind ports and run as root here)"
	local tool
	for tool in ceph-mon ceph-osd ceph ceph-authtool monmaptool ceph-conf rados rbd ss timeout flock; do
		command -v "$tool" >/dev/null ||
			die "$tool not found (Debian: apt-get install ceph-mon ceph-osd ceph-common iproute2)"
	done
}

refuse_foreign_dir() {
	[ -f "$DIR/$MARKER" ] && return 0
	[ -z "$(find "$DIR" -mindepth 1 -maxdepth 1 ! -name .lock -print -quit)" ] ||
		die "$DIR is not empty and was not made by test-cluster.sh"
}

check_dir() {
	[ -f "$DIR/$MARKER" ] && return 0
	refuse_foreign_dir
	# Admin sockets are AF_UNIX paths (108 bytes at most, with the NUL).
	[ ${#RUN} -le 80 ] || die "DIR is too long for admin socket paths: $DIR"
	mkdir -p "$KEYS" "$RUN" "$LOG" "$DIR/mon" "$DIR/osd"
	chmod 0700 "$KEYS"
	touch "$DIR/$MARKER"
}

write_conf() {
	[ -f "$CONF" ] && return 0
	cat >"$CONF.new" <<EOF
# Written by test-cluster.sh for a throw-away test cluster; not for production.
[global]
fsid = $(cat /proc/sys/kernel/random/uuid)
mon initial members = a
mon host = [v2:$ADDR:$PORT_V2,v1:$ADDR:$PORT_V1]
public addr = $ADDR
cluster addr = $ADDR
ms bind ipv6 = false
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
auth allow insecure global id reclaim = false
mon warn on insecure global id reclaim allowed = false
run dir = $RUN
pid file = \$run_dir/\$name.pid
log file = $LOG/ceph-\$name.log
admin socket = \$run_dir/\$name.asok
# one OSD: replicas of one, few PGs, no autoscaler, no mgr nagging
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon allow pool delete = true
mon warn on pool no redundancy = false
mon mgr mkfs grace = 315360000
# a test host's disk may be fuller than a mon likes
mon data avail warn = 1
mon data avail crit = 0
osd objectstore = memstore
memstore device bytes = $OSD_BYTES
# memstore saves its data only on a clean shutdown
osd fast shutdown = false
osd client watch timeout = $WATCH_TIMEOUT
# A PG of one OSD is readable for a lease of 0.8 x this grace, renewed as it
# runs; an OSD paused past its lease (the system suite's SIGSTOPped cluster)
# may never clear "laggy" and keeps every op waiting for readable
# (ceph-container #1682, Ceph PR #71663). 60 s: a lease of 48 s.
osd heartbeat grace = 60
[mon.a]
mon data = $DIR/mon/a
keyring = $DIR/mon/a/keyring
[osd.0]
osd data = $DIR/osd/0
keyring = $DIR/osd/0/keyring
[mgr.x]
mgr data = $DIR/mgr/x
keyring = $DIR/mgr/x/keyring
# the modules it cannot run without, nothing more; figures every 2 s
mgr initial modules =
mgr stats period = 2
[client]
# test programs load librados many times over: no sockets, no log files
admin socket =
log file =
[client.admin]
keyring = $ADMIN_KEYRING
[client.test]
keyring = $TEST_KEYRING
EOF
	mv "$CONF.new" "$CONF"
}

make_keys() {
	[ -f "$TEST_KEYFILE" ] && return 0
	ceph-authtool --create-keyring "$ADMIN_KEYRING" --gen-key -n client.admin \
		--cap mon 'allow *' --cap osd 'allow *' --cap mgr 'allow *' >/dev/null
	ceph-authtool --create-keyring "$TEST_KEYRING" --gen-key -n client.test \
		--cap mon 'profile rbd' --cap osd "profile rbd pool=$POOL" --cap mgr "profile rbd pool=$POOL" \
		>/dev/null
	ceph-authtool "$TEST_KEYRING" -n client.test --print-key >"$TEST_KEYFILE.new"
	chmod 0600 "$ADMIN_KEYRING" "$TEST_KEYRING" "$TEST_KEYFILE.new"
	mv "$TEST_KEYFILE.new" "$TEST_KEYFILE"
}

mkfs_mon() {
	local data=$DIR/mon/a seed=$KEYS/mon-seed.keyring
	[ -f "$data/rbdv-done" ] && return 0
	rm -rf "$data" "$seed"
	mkdir -p "$data"
	ceph-authtool --create-keyring "$seed" --gen-key -n mon. --cap mon 'allow *' >/dev/null
	ceph-authtool "$seed" --import-keyring "$ADMIN_KEYRING" >/dev/null
	ceph-authtool "$seed" --import-keyring "$TEST_KEYRING" >/dev/null
	monmaptool --create --clobber --fsid "$(ceph-conf -c "$CONF" --lookup fsid)" \
		--addv a "[v2:$ADDR:$PORT_V2,v1:$ADDR:$PORT_V1]" \
		--enable-all-features --set-min-mon-release pacific "$DIR/monmap" >/dev/null
	ceph-mon --conf "$CONF" --mkfs -i a --monmap "$DIR/monmap" --keyring "$seed" \
		>>"$LOG/mkfs.log" 2>&1 || die "ceph-mon --mkfs failed (see $LOG/mkfs.log)"
	rm -f "$seed"
	touch "$data/rbdv-done"
}

start_mon() {
	daemon_pid mon.a >/dev/null && return 0
	port_in_use "$PORT_V2" && die "port $PORT_V2 on $ADDR is in use (set RBDV_CEPH_MON_PORT for a new DIR)"
	port_in_use "$PORT_V1" && die "port $PORT_V1 on $ADDR is in use (set RBDV_CEPH_MON_PORT_V1 for a new DIR)"
	spawn_daemon ceph-mon --conf "$CONF" -i a ||
		die "ceph-mon did not start (see $LOG/ceph-mon.a.log)"
}

mkfs_osd() {
	local data=$DIR/osd/0 uuid key id
	[ -f "$data/rbdv-done" ] && return 0
	uuid=$(cat /proc/sys/kernel/random/uuid)
	key=$(ceph-authtool --gen-print-key)
	# A half-made OSD from an interrupted start goes first.
	if ceph_admin osd ls 2>/dev/null | grep -qx 0; then
		ceph_admin osd purge 0 --yes-i-really-mean-it >>"$LOG/mkfs.log" 2>&1 ||
			die "cannot remove the half-made osd.0 (see $LOG/mkfs.log)"
	fi
	printf '{"cephx_secret": "%s"}\n' "$key" >"$KEYS/osd-new.json"
	id=$(ceph_admin osd new "$uuid" -i "$KEYS/osd-new.json" 2>>"$LOG/mkfs.log") ||
		die "'ceph osd new' failed (see $LOG/mkfs.log)"
	rm -f "$KEYS/osd-new.json"
	[ "$id" = 0 ] || die "the new OSD got id '$id', expected 0"
	rm -rf "$data"
	mkdir -p "$data"
	# ceph-osd --mkfs does not write the keyring for memstore: we do.
	printf '[osd.0]\n\tkey = %s\n' "$key" >"$data/keyring"
	chmod 0600 "$data/keyring"
	ceph-osd --conf "$CONF" -i 0 --mkfs --osd-uuid "$uuid" >>"$LOG/mkfs.log" 2>&1 ||
		die "ceph-osd --mkfs failed (see $LOG/mkfs.log and $LOG/ceph-osd.0.log)"
	touch "$data/rbdv-done"
}

start_osd() {
	daemon_pid osd.0 >/dev/null && return 0
	spawn_daemon ceph-osd --conf "$CONF" -i 0 ||
		die "ceph-osd did not start (see $LOG/ceph-osd.0.log)"
}

osd_up() { ceph_admin osd dump 2>/dev/null | grep -q '^osd\.0 up  *in '; }

pool_ready() {
	ceph_admin osd pool application get "$POOL" 2>/dev/null | grep -q '"rbd"'
}

make_pool() {
	pool_ready && return 0
	if ! ceph_admin osd pool ls 2>/dev/null | grep -qx "$POOL"; then
		ceph_admin osd pool create "$POOL" 8 8 replicated >>"$LOG/mkfs.log" 2>&1 ||
			die "cannot create pool $POOL (see $LOG/mkfs.log)"
	fi
	timeout 60 rbd --conf "$CONF" pool init "$POOL" >>"$LOG/mkfs.log" 2>&1 ||
		die "'rbd pool init $POOL' failed (see $LOG/mkfs.log)"
}

# The PGs are active and client.test's key and caps work when its write round-trips.
test_client_writes() {
	echo probe | timeout 10 rados --conf "$CONF" --id test -p "$POOL" put test-cluster-probe - &&
		timeout 10 rados --conf "$CONF" --id test -p "$POOL" rm test-cluster-probe
}

print_env() {
	cat <<EOF
CEPH_CONF=$CONF
CEPH_MON_HOST=$(current_addr):$(current_port v2)
CEPH_MON_HOST_V1=$(current_addr):$(current_port v1)
CEPH_POOL=$POOL
CEPH_ADMIN_KEYRING=$ADMIN_KEYRING
CEPH_TEST_ID=test
CEPH_TEST_KEYRING=$TEST_KEYRING
CEPH_TEST_KEYFILE=$TEST_KEYFILE
EOF
}

current_port() { # current_port v1|v2: from the config, which wins over the environment
	ceph-conf -c "$CONF" --lookup mon_host | sed -n "s/.*$1:[0-9.]*:\([0-9]*\).*/\1/p"
}
current_addr() { ceph-conf -c "$CONF" --lookup mon_host | sed -n 's/.*v2:\([0-9.]*\):.*/\1/p'; }

# --- commands -----------------------------------------------------------------

# One command at a time per DIR: a purge from the suite's guardian waits for a
# start that is still running (and would otherwise leave daemons behind).
lock_dir() {
	exec 9>>"$DIR/.lock"
	flock -w $((TIMEOUT + 2 * STOP_GRACE)) 9 ||
		die "another test-cluster.sh command kept $DIR locked for too long"
}

cmd_start() {
	check_tools
	mkdir -p "$DIR"
	refuse_foreign_dir
	lock_dir
	check_dir
	write_conf
	PORT_V2=$(current_port v2)
	PORT_V1=$(current_port v1)
	make_keys
	mkfs_mon
	start_mon
	wait_for "ceph-mon to answer" mon.a ceph_admin mon stat
	mkfs_osd
	start_osd
	wait_for "osd.0 to be up and in" osd.0 osd_up
	make_pool
	wait_for "client.test to write to pool $POOL" osd.0 test_client_writes
	say "ready in $(($(date +%s) - started_at))s (mon $(current_addr):$(current_port v2), data in $DIR)"
	print_env | tee "$DIR/env"
}

mgr_available() { ceph_admin mgr stat 2>/dev/null | grep -q '"available": true'; }

cmd_mgr() {
	[ -f "$CONF" ] || die "no test cluster in $DIR"
	command -v ceph-mgr >/dev/null || die "ceph-mgr not found (Debian: apt-get install ceph-mgr)"
	lock_dir
	daemon_pid mon.a >/dev/null || die "the cluster in $DIR is not running ('start' first)"
	if ! daemon_pid mgr.x >/dev/null; then
		mkdir -p "$DIR/mgr/x"
		[ -s "$DIR/mgr/x/keyring" ] ||
			ceph_admin auth get-or-create mgr.x mon 'allow profile mgr' osd 'allow *' \
				-o "$DIR/mgr/x/keyring" >>"$LOG/mkfs.log" 2>&1 ||
			die "cannot make mgr.x's key (see $LOG/mkfs.log)"
		spawn_daemon ceph-mgr --conf "$CONF" -i x ||
			die "ceph-mgr did not start (see $LOG/ceph-mgr.x.log)"
	fi
	wait_for "ceph-mgr to be available" mgr.x mgr_available
	say "mgr.x available in $(($(date +%s) - started_at))s"
}

cmd_stop() {
	[ -f "$DIR/$MARKER" ] || return 0
	lock_dir
	stop_daemon mgr.x
	stop_daemon osd.0
	stop_daemon mon.a
}

cmd_status() {
	[ -f "$DIR/$MARKER" ] || die "no test cluster in $DIR"
	local name pid
	for name in mon.a osd.0 mgr.x; do
		if pid=$(daemon_pid "$name"); then echo "$name: running (pid $pid)"; else echo "$name: stopped"; fi
	done
	ceph_admin health detail || true
}

cmd_purge() {
	[ -d "$DIR" ] || return 0
	[ -f "$DIR/$MARKER" ] || die "$DIR was not made by test-cluster.sh; not deleting it"
	cmd_stop
	rm -rf "$DIR"
}

case $cmd in
start) cmd_start ;;
stop) cmd_stop ;;
env)
	[ -f "$CONF" ] || die "no test cluster in $DIR"
	print_env
	;;
status) cmd_status ;;
purge) cmd_purge ;;
mgr) cmd_mgr ;;
esac
