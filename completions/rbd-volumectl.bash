# SPDX-License-Identifier: LGPL-2.1-or-later
# bash completion for rbd-volumectl: verbs, their options, and volume names
# from the spec directories. Never a call on the bus: asking rbd-volumed for
# its volumes could have the bus start it. tests/scripts/completions_test.py
# holds the verbs and options here to `rbd-volumectl --help`.
# Installed to bash-completion's completions directory.

_rbd_volumectl_volumes()
{
	# the stems of NAME.toml in the directories the daemon reads
	local spec
	for spec in /run/rbd-volume/volumes/*.toml /etc/rbd-volume/volumes/*.toml; do
		[ -e "$spec" ] || continue
		spec=${spec##*/}
		printf '%s\n' "${spec%.toml}"
	done
}

_rbd_volumectl_specs()
{
	mapfile -t COMPREPLY < <(compgen -d -- "$1"; compgen -f -X '!*.toml' -- "$1")
}

_rbd_volumectl()
{
	local cur prev verb i
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	local verbs="check plan import-rbdmap list status monitor metrics is-up up down reconcile reload rotate-key"

	verb=""
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*)
			verb=${COMP_WORDS[i]}
			break
			;;
		esac
	done

	if [ -z "$verb" ]; then
		mapfile -t COMPREPLY < <(compgen -W "$verbs --help --version" -- "$cur")
		return
	fi

	case $prev in
	--spec | --config)
		_rbd_volumectl_specs "$cur"
		return
		;;
	--fstab | --new-keyfile | --output)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return
		;;
	--dir)
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
		return
		;;
	--intent)
		mapfile -t COMPREPLY < <(compgen -W "up down" -- "$cur")
		return
		;;
	--timeout)
		return
		;;
	esac

	local options=""
	case $verb in
	up) options="--no-wait --timeout --progress --verbose" ;;
	down) options="--no-wait --timeout --progress --verbose --if-start-cancelled" ;;
	reconcile) options="--timeout --progress --verbose" ;;
	reload) options="--timeout --verbose" ;;
	list) options="--json --no-legend" ;;
	status | monitor) options="--json" ;;
	metrics) options="--output" ;;
	is-up) options="--quiet" ;;
	plan) options="--spec --intent --config --json" ;;
	check) options="--config --json" ;;
	import-rbdmap) options="--write --fstab --dir" ;;
	rotate-key) options="--new-keyfile" ;;
	esac
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$options --help" -- "$cur")
		return
	fi
	case $verb in
	up | down | status | monitor | is-up | reconcile | plan | rotate-key)
		mapfile -t COMPREPLY < <(compgen -W "$(_rbd_volumectl_volumes)" -- "$cur")
		;;
	check)
		_rbd_volumectl_specs "$cur"
		;;
	import-rbdmap)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		;;
	esac
}

complete -F _rbd_volumectl rbd-volumectl
