#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Checks what units/ installs, as configured for this build. Any failure fails.
#   *.service, *.timer        systemd-analyze verify, each as an instance of
#                             itself; any output fails (systemd only warns on
#                             unknown keys)
#   org.*.service (D-Bus)     Name= is the file's name, Exec=/bin/false,
#                             User=root, SystemdService= is one of the units
#                             given; a private bus lists it as activatable
#   org.*.conf (D-Bus policy) well-formed (xmllint); a private dbus-daemon that
#                             includes it starts; there root may own the name
#                             and call Up, while other users may call the
#                             read-only methods only and own nothing
#   other *.conf (tmpfiles.d) systemd-tmpfiles --create into a scratch root
#                             makes every 'd' line's directory with its mode
set -euo pipefail

dir=$(mktemp -d)
bus_pid=""
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	if [ -n "$bus_pid" ]; then kill "$bus_pid" 2>/dev/null || true; fi
	rm -rf "$dir"
}
trap cleanup EXIT
chmod 0755 "$dir" # the private bus's socket lives here; other users connect too
status=0
systemd_units=()

pass() { echo "ok: $1"; }
fail() {
	echo "FAILED: $1"
	shift
	printf '  %s\n' "$@"
	status=1
}

# --- systemd units ---------------------------------------------------------------

# All units go into one directory first, so that units name each other.
stage_unit() { # stage_unit CONFIGURED-FILE
	local name
	name=$(basename "$1")
	name=${name#verify-}
	cp "$1" "$dir/units/$name"
	case $name in
	*@.service) ln -s "$name" "$dir/units/${name%@.service}@check.service" ;;
	esac
	systemd_units+=("$name")
}

verify_unit() { # verify_unit NAME
	local unit=$1 out
	case $unit in *@.service) unit=${unit%@.service}@check.service ;; esac
	if out=$(systemd-analyze verify "$dir/units/$unit" 2>&1) && [ -z "$out" ]; then
		pass "$1"
	else
		fail "$1" "$out"
	fi
}

# --- tmpfiles.d --------------------------------------------------------------------

run_as_root() { # as root, or as root of a user namespace (chown to root works there)
	if [ "$(id -u)" -eq 0 ]; then "$@"; else unshare --map-root-user "$@"; fi
}

verify_tmpfiles() { # verify_tmpfiles FILE
	local root=$dir/tmpfiles-root out type path mode rest got problems=()
	mkdir -p "$root"
	if ! out=$(run_as_root systemd-tmpfiles --create --root="$root" "$1" 2>&1) || [ -n "$out" ]; then
		fail "$(basename "$1")" "systemd-tmpfiles --create: $out"
		return
	fi
	while read -r type path mode rest; do
		case $type in '' | '#'*) continue ;; esac
		[ "$type" = d ] || {
			problems+=("unexpected line type '$type' for $path (only d is checked)")
			continue
		}
		if [ ! -d "$root$path" ]; then
			problems+=("$path was not created")
		elif got=$(stat -c %a "$root$path") && [ "$got" != "${mode#0}" ]; then
			problems+=("$path has mode $got, the file says $mode")
		fi
	done <"$1"
	if [ ${#problems[@]} -eq 0 ]; then pass "$(basename "$1")"; else fail "$(basename "$1")" "${problems[@]}"; fi
}

# --- D-Bus -------------------------------------------------------------------------

activation_key() { sed -n "s/^$2=//p" "$1"; } # activation_key FILE KEY

verify_activation() { # verify_activation FILE
	local file=$1 name problems=() unit
	name=$(basename "$file" .service)
	[ "$(activation_key "$file" Name)" = "$name" ] || problems+=("Name= is not $name")
	[ "$(activation_key "$file" Exec)" = /bin/false ] ||
		problems+=("Exec= is not /bin/false (systemd starts the daemon)")
	[ "$(activation_key "$file" User)" = root ] || problems+=("User= is not root")
	unit=$(activation_key "$file" SystemdService)
	printf '%s\n' "${systemd_units[@]}" | grep -qxF -- "$unit" ||
		problems+=("SystemdService=$unit is not one of the units checked here")
	mkdir -p "$dir/services"
	cp "$file" "$dir/services/"
	if [ ${#problems[@]} -eq 0 ]; then pass "$(basename "$file")"; else fail "$(basename "$file")" "${problems[@]}"; fi
}

# system.conf's default policy, on a bus of our own.
write_bus_config() { # write_bus_config POLICY-FILE
	cat >"$dir/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <listen>unix:path=$dir/bus</listen>
  <auth>EXTERNAL</auth>
  <servicedir>$dir/services</servicedir>
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
  </policy>
  <include>$1</include>
</busconfig>
EOF
}

# What a call gets on the private bus: "denied" by the policy, or "passed" it
# (nobody owns the name, so the bus tries to activate it, and /bin/false fails).
bus_verdict() { # bus_verdict AS(root|nobody) BUSCTL-ARGS...
	local as=$1 out
	shift
	local cmd=(busctl --address="unix:path=$dir/bus" "$@")
	# Root checks another user as nobody; anyone else checks as themselves.
	if [ "$as" != root ] && [ "$(id -u)" -eq 0 ]; then
		cmd=(setpriv --reuid=65534 --regid=65534 --clear-groups "${cmd[@]}")
	fi
	out=$("${cmd[@]}" 2>&1) || true
	case $out in
	*"Access denied"*) echo denied ;;
	*"exited with status"* | "u 1") echo passed ;;
	*) echo "unexpected: $out" ;;
	esac
}

expect_verdict() { # expect_verdict WANT AS WHAT BUSCTL-ARGS...
	local want=$1 as=$2 what=$3 got
	shift 3
	got=$(bus_verdict "$as" "$@")
	[ "$got" = "$want" ] || problems+=("$what as $as: $got, expected $want")
}

verify_policy() { # verify_policy FILE
	local file=$1 name out who checked problems=()
	name=$(basename "$file" .conf)
	if ! out=$(xmllint --noout "$file" 2>&1); then
		fail "$(basename "$file")" "xmllint: $out"
		return
	fi
	mkdir -p "$dir/services"
	write_bus_config "$file"
	if ! bus_pid=$(dbus-daemon --config-file="$dir/bus.conf" --fork --print-pid 2>"$dir/bus.err"); then
		fail "$(basename "$file")" "dbus-daemon refused it: $(cat "$dir/bus.err")"
		return
	fi
	out=$(busctl --address="unix:path=$dir/bus" call org.freedesktop.DBus /org/freedesktop/DBus \
		org.freedesktop.DBus ListActivatableNames 2>&1) || true
	case $out in *"\"$name\""*) ;; *) problems+=("$name is not activatable on the bus: $out") ;; esac
	# Root owns the name and changes things. Checking another user needs root.
	local own=(call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus RequestName su "$name" 0)
	local object=(call "$name" /org/rbdvolume1) args m
	local manager=("${object[@]}" org.rbdvolume1.Manager)
	local properties=("${object[@]}" org.freedesktop.DBus.Properties)
	if [ "$(id -u)" -eq 0 ]; then
		expect_verdict passed root RequestName "${own[@]}"
		expect_verdict passed root Up "${manager[@]}" Up sb x false
		expect_verdict passed root Reload "${manager[@]}" Reload
		who=nobody
		checked="root and nobody"
	else
		who=$(id -un)
		checked=$who
	fi
	expect_verdict denied "$who" RequestName "${own[@]}"
	for m in "Up sb x false" "Down sb x false" "Reconcile s x" "Reload"; do
		read -ra args <<<"$m"
		expect_verdict denied "$who" "${args[0]}" "${manager[@]}" "${args[@]}"
	done
	for m in "ListVolumes" "GetVolume s x" "PlanVolume ss x up"; do
		read -ra args <<<"$m"
		expect_verdict passed "$who" "${args[0]}" "${manager[@]}" "${args[@]}"
	done
	expect_verdict passed "$who" Properties.GetAll "${properties[@]}" GetAll s org.rbdvolume1.Manager
	expect_verdict denied "$who" Properties.Set "${properties[@]}" Set ssv org.rbdvolume1.Manager Version s x
	expect_verdict passed "$who" Introspect "${object[@]}" org.freedesktop.DBus.Introspectable Introspect
	kill "$bus_pid" 2>/dev/null || true
	bus_pid=""
	if [ ${#problems[@]} -eq 0 ]; then pass "$(basename "$file") (calls checked as $checked)"; else fail "$(basename "$file")" "${problems[@]}"; fi
}

# --- main --------------------------------------------------------------------------

mkdir -p "$dir/units"
tmpfiles=() activations=() policies=()
for file in "$@"; do
	file=$(realpath -- "$file")
	case $(basename "$file") in
	org.*.service) activations+=("$file") ;;
	org.*.conf) policies+=("$file") ;;
	*.service | *.timer) stage_unit "$file" ;;
	*.conf) tmpfiles+=("$file") ;;
	*) fail "$file" "do not know how to check this file" ;;
	esac
done
for unit in "${systemd_units[@]}"; do verify_unit "$unit"; done
for file in "${tmpfiles[@]}"; do verify_tmpfiles "$file"; done
# Activation files first: the policy check needs them on the private bus.
for file in "${activations[@]}"; do verify_activation "$file"; done
for file in "${policies[@]}"; do verify_policy "$file"; done
exit $status
