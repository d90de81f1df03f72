#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs shellcheck over the project's shell scripts: every file named *.sh or
# *.bash, and every other file whose first line is a sh/bash/dash shebang.
#
#   scripts/shellcheck.sh            every script in the tree (CI)
#   scripts/shellcheck.sh FILE...    the shell scripts among FILEs (the quick
#                                    check and the pre-commit hook); others
#                                    are ignored, as are FILEs that are gone
#
# In a git checkout the tree is what git tracks plus untracked files not
# ignored (so no build directory is read); elsewhere, find without build*/ and
# .git. Options come from .shellcheckrc (sourced files are followed). Exits 1
# on any finding.
set -euo pipefail
cd "$(dirname "$0")/.."

# Is FILE a shell script?
is_shell() {
	case $1 in
	*.sh | *.bash) return 0 ;;
	esac
	local first=
	IFS= read -r first <"$1" 2>/dev/null || true
	[[ $first =~ ^#!.*[/\ ](ba|da)?sh([[:space:]]|$) ]]
}

candidates=()
if [ $# -gt 0 ]; then
	candidates=("$@")
elif git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	mapfile -t candidates < <(git ls-files --cached --others --exclude-standard | sort -u)
else
	mapfile -t candidates < <(find . \( -name .git -o -name 'build*' \) -prune -o -type f -print |
		sed 's|^\./||' | sort)
fi

scripts=()
for f in "${candidates[@]}"; do
	[ -f "$f" ] && is_shell "$f" && scripts+=("$f")
done
if [ ${#scripts[@]} -eq 0 ]; then
	echo "shellcheck: no shell scripts to check"
	exit 0
fi
if ! shellcheck "${scripts[@]}"; then
	echo "shellcheck: findings above" >&2
	exit 1
fi
echo "shellcheck: ${#scripts[@]} scripts clean"
