# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# figures.sh: the kernel suite's figures (see cases.sh), run only when named:
# they measure, and the cases already show that each step works.

# --- figures ---------------------------------------------------------------------------------

# Stage (`systemctl start rbd-volume@NAME`: map, fsck-free mount, bind) and
# unstage (stop) per driver, the drivers taken in turn round by round so the
# machine's load falls on all alike; after one round that creates and formats.
# Figures of an emulated CPU (qemu TCG): compare drivers, not hosts.
KG_FIGURES+=(stage_times)
case_stage_times() {
	local driver round started staged rounds=${RBDV_KERNEL_ROUNDS:-5}
	local drivers=(krbd nbd fuse)
	in_guest modprobe rbd
	in_guest modprobe nbd
	for driver in "${drivers[@]}"; do
		kspec "t_$driver" "$driver" ext4
		: >"$SYS_WORK/times.$driver"
	done
	for ((round = 0; round <= rounds; round++)); do
		for driver in "${drivers[@]}"; do
			started=$(sys_now_ms)
			start_units "rbd-volume@t_$driver.service"
			staged=$(($(sys_now_ms) - started))
			started=$(sys_now_ms)
			stop_units "rbd-volume@t_$driver.service"
			[ "$round" = 0 ] || echo "$staged $(($(sys_now_ms) - started))" >>"$SYS_WORK/times.$driver"
		done
	done
	for driver in "${drivers[@]}"; do
		sys_log "$driver: $(python3 -c '
import statistics, sys
rows = [tuple(map(int, line.split())) for line in open(sys.argv[1])]
def show(values):
    return "median %d ms (%d-%d)" % (statistics.median(values), min(values), max(values))
print("stage %s, unstage %s, %d rounds" % (show([r[0] for r in rows]), show([r[1] for r in rows]), len(rows)))' \
			"$SYS_WORK/times.$driver")"
	done
}

# --- figures run by name only ----------------------------------------------------------------

# Too long for every run of the suite: `tests/kernel/run.sh BUILD many_volumes`.
KG_FIGURES+=(many_volumes)

# many_specs PREFIX DRIVER COUNT: COUNT fresh 64 MiB ext4 volumes PREFIX00...,
# their specs put in place with one guest call (a call per spec would take
# longer than the maps); their units in MANY_UNITS
many_specs() {
	local prefix=$1 driver=$2 count=$3 n name dir
	dir=$(mktemp -d "$SYS_WORK/specs.XXXXXX")
	MANY_UNITS=()
	for ((n = 0; n < count; n++)); do
		printf -v name '%s%02d' "$prefix" "$n"
		MANY_UNITS+=("rbd-volume@$name.service")
		KSPEC_TO="$dir/$name.toml" kspec "$name" "$driver" ext4 size=64M
	done
	tar -C "$dir" -cf - . | put_file /run/rbdv-specs.tar
	rm -rf "$dir"
	# shellcheck disable=SC2016 # expanded inside
	in_guest sh -c 'd=/etc/rbd-volume/.many && mkdir -p "$d" && tar -xf /run/rbdv-specs.tar -C "$d" &&
		mv "$d"/*.toml /etc/rbd-volume/volumes/ && rmdir "$d" && rm -f /run/rbdv-specs.tar'
}

# The fifty-volume comparison of the system suite (tests/system/cases.sh) with
# krbd and rbd-nbd on the real kernel: per driver, RBDV_KERNEL_VOLUMES (50)
# fresh volumes started one `systemctl start` after another and stopped the
# same way, then as many others in one `systemctl start` and one `systemctl
# stop`, with the ratios, the guest's CPU busy share and the timeline. Fifty
# rbd-nbd servers need more than the guest's default memory:
# RBDV_KERNEL_MEM=8192M. RBDV_KERNEL_DRIVERS names fewer drivers. Figures of
# an emulated CPU: compare the ways, not hosts.
case_many_volumes() {
	local count=${RBDV_KERNEL_VOLUMES:-50} driver unit since started ticks
	local seq_up seq_down up down seq_up_busy seq_down_busy up_busy down_busy
	in_guest modprobe rbd
	in_guest modprobe nbd
	for driver in ${RBDV_KERNEL_DRIVERS:-krbd nbd}; do
		many_specs "s_$driver" "$driver" "$count"
		since=$(ct_now_ms) ticks=$(cpu_ticks) started=$(sys_now_ms)
		for unit in "${MANY_UNITS[@]}"; do start_units "$unit"; done
		seq_up=$(elapsed_s "$started") seq_up_busy=$(busy_since "$ticks")
		sys_log "$driver, one by one, up:"
		timeline_since "$since"
		since=$(ct_now_ms) ticks=$(cpu_ticks) started=$(sys_now_ms)
		for unit in "${MANY_UNITS[@]}"; do stop_units "$unit"; done
		seq_down=$(elapsed_s "$started") seq_down_busy=$(busy_since "$ticks")

		many_specs "c_$driver" "$driver" "$count"
		since=$(ct_now_ms) ticks=$(cpu_ticks) started=$(sys_now_ms)
		start_units "${MANY_UNITS[@]}"
		up=$(elapsed_s "$started") up_busy=$(busy_since "$ticks")
		sys_log "$driver, at once, up:"
		timeline_since "$since"
		since=$(ct_now_ms) ticks=$(cpu_ticks) started=$(sys_now_ms)
		stop_units "${MANY_UNITS[@]}"
		down=$(elapsed_s "$started") down_busy=$(busy_since "$ticks")
		[ -z "$(kg_leftovers)" ] || fail "$driver: left after the stop: $(kg_leftovers)"

		sys_log "$driver: $count volumes up: one by one $seq_up s, at once $up s, ratio $(ratio_of "$up" "$seq_up")"
		sys_log "$driver: $count volumes down: one by one $seq_down s, at once $down s, ratio $(ratio_of "$down" "$seq_down")"
		sys_log "$driver: guest CPUs busy up: one by one $seq_up_busy, at once $up_busy; down: one by one $seq_down_busy, at once $down_busy"
	done
}
