# SPDX-License-Identifier: LGPL-2.1-or-later
# bash completion for rbd-volumectl: verbs, their options, and volume names
# as rbd-volumed knows them (`rbd-volumectl list`, which any user may read).
# Installed to bash-completion's completions directory.

_rbd_volumectl_volumes()
{
	# NAME INTENT PHASE, one volume a line; nothing when the daemon is away
	rbd-volumectl list 2>/dev/null | awk 'NR > 1 { print $1 }'
}

_rbd_volumectl()
{
	local cur prev verb i
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	local verbs="check plan import-rbdmap list status up down reconcile reload"

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
	--spec | --fstab | check)
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
	up | down) options="--no-wait --timeout --progress --verbose" ;;
	reconcile) options="--timeout --progress --verbose" ;;
	reload) options="--timeout --verbose" ;;
	list | status) options="--json" ;;
	plan) options="--spec --intent" ;;
	import-rbdmap) options="--write --fstab --dir" ;;
	check) ;;
	esac
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$options --help" -- "$cur")
		return
	fi
	case $verb in
	up | down | status | reconcile | plan)
		mapfile -t COMPREPLY < <(compgen -W "$(_rbd_volumectl_volumes)" -- "$cur")
		;;
	check | import-rbdmap)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		;;
	esac
}

complete -F _rbd_volumectl rbd-volumectl
