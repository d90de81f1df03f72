#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The real rbd-volumed with many specs loaded: its resident memory, how long
# it takes to be ready, and how often it wakes when idle. It runs in a
# private mount namespace (tmpfs over /etc/rbd-volume and /run/rbd-volume)
# on a private D-Bus bus, observing only: no volume has an intent, so no
# cluster is needed. Root only.
#   tests/bench/daemon-idle.sh BUILD_DIR [SPECS] [IDLE_SECONDS]
# Targets: under 30 MiB resident with 1,000 specs; idle, only the resync
# timer wakes it (here resync-interval = 10s, so about IDLE/10 ticks).
set -euo pipefail
build=$(cd "${1:?usage: daemon-idle.sh BUILD_DIR [SPECS] [IDLE_SECONDS]}" && pwd)
specs=${2:-1000}
idle=${3:-35}
daemon=$build/src/daemon/rbd-volumed
[ -x "$daemon" ] || { echo "daemon-idle: $daemon not built" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "daemon-idle: needs root (mount namespace, /run)" >&2; exit 1; }

if [ "${RBDV_BENCH_INSIDE:-}" != 1 ]; then
	made_etc=0
	[ -d /etc/rbd-volume ] || { mkdir /etc/rbd-volume; made_etc=1; }
	mkdir -p /run/rbd-volume
	status=0
	RBDV_BENCH_INSIDE=1 unshare -m --propagation private "$0" "$@" || status=$?
	[ $made_etc = 0 ] || rmdir /etc/rbd-volume
	exit $status
fi

tmp=$(mktemp -d)
mount -t tmpfs rbdv-bench-etc /etc/rbd-volume
mount -t tmpfs rbdv-bench-run /run/rbd-volume
mkdir -p /etc/rbd-volume/volumes
for i in $(seq 1 "$specs"); do
	cat > "/etc/rbd-volume/volumes/vol$i.toml" <<SPEC
[image]
pool = "rbd"
name = "image$i"
[map]
driver = "fuse"
[[publish]]
path = "/srv/vol$i"
SPEC
done
printf '[daemon]\nresync-interval = "10s"\n' > "$tmp/rbd-volumed.toml"
cat > "$tmp/bus.conf" <<BUS
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$tmp/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/>
  </policy>
</busconfig>
BUS
dbus-daemon --config-file="$tmp/bus.conf" --nofork --nopidfile &
bus_pid=$!
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$tmp/bus
for _ in $(seq 100); do [ -S "$tmp/bus" ] && break; sleep 0.05; done

start=$(date +%s%N)
"$daemon" --config "$tmp/rbd-volumed.toml" 2> "$tmp/daemon.log" &
pid=$!
trap 'kill $pid $bus_pid 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
summary=""
for _ in $(seq 600); do
	summary=$(busctl --system get-property org.rbdvolume1 /org/rbdvolume1 \
		org.rbdvolume1.Manager Summary 2>/dev/null || true)
	case $summary in *"$specs volume"*": $specs down"*) break ;; esac
	sleep 0.05
done
ready_ms=$(( ($(date +%s%N) - start) / 1000000 ))
case $summary in *"$specs volume"*": $specs down"*) ;; *)
	echo "daemon-idle: not ready: '$summary'"; cat "$tmp/daemon.log"; exit 1 ;;
esac

switches() { # context switches of each thread: "TID COMM COUNT" lines
	local t
	for t in "/proc/$pid/task"/*; do
		printf '%s %s %s\n' "${t##*/}" "$(cat "$t/comm")" \
			"$(awk '/ctxt_switches/ { n += $2 } END { print n }' "$t/status")"
	done
}
sleep 2 # let the first survey's aftermath settle
before=$(switches)
sleep "$idle"
after=$(switches)
status_kib() { awk -v key="$1:" '$1 == key { print $2 }' /proc/$pid/status; }
rss=$(status_kib VmRSS)
hwm=$(status_kib VmHWM)
anon=$(status_kib RssAnon)
file=$(status_kib RssFile)
threads=$(find "/proc/$pid/task" -mindepth 1 -maxdepth 1 | wc -l)
total=$(join <(echo "$before" | sort) <(echo "$after" | sort) | awk '{ n += $5 - $3 } END { print n }')
printf 'specs:            %d\n' "$specs"
printf 'ready after:      %d ms (specs parsed, first survey done, bus name owned)\n' "$ready_ms"
printf 'resident:         %d KiB (%d KiB heap and stacks, %d KiB mapped files), peak %d KiB, %d threads\n' \
	"$rss" "$anon" "$file" "$hwm" "$threads"
printf 'idle %ds:          %d context switches in all (resync every 10 s: %d ticks); per thread:\n' \
	"$idle" "$total" $((idle / 10))
join <(echo "$before" | sort) <(echo "$after" | sort) |
	awk '{ printf "  %-8s %-16s %d\n", $1, $2, $5 - $3 }'
