#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Renders each man page given through man(1) with groff's warnings on, as a
# reader would see it at 80 columns, in a UTF-8 and in the C locale. A page
# fails when man exits non-zero or writes anything on stderr (a groff or tbl
# warning, a macro error, a table wider than the page), when a rendered line
# is wider than 80 columns (groff does not warn about a literal block that
# overflows), or when its .TH line does not name it as its file name does.
# Without man(1) the test fails: a check that cannot run must not pass.
#
# Units given after the pages (*.service, *.timer) are checked too: every man:
# link in their Documentation= lines names one of the pages given.
#   check-man.sh PAGE... [UNIT.service|UNIT.timer...]
set -uo pipefail

pages=()
units=()
for arg in "$@"; do
	case $arg in
	*.service | *.timer) units+=("$arg") ;;
	*) pages+=("$arg") ;;
	esac
done
if [ ${#pages[@]} -eq 0 ]; then
	echo "usage: check-man.sh PAGE... [UNIT.service...]" >&2
	exit 2
fi
if ! command -v man >/dev/null 2>&1; then
	echo "FAILED: man(1) not found; install man-db and groff-base to check the pages" >&2
	exit 1
fi

export MANWIDTH=80
# No pager, no terminal escapes, no colour: the plain rendering.
export MANPAGER=cat PAGER=cat
unset MANOPT MAN_KEEP_FORMATTING GROFF_SGR

rendered=$(mktemp)
trap 'rm -f "$rendered"' EXIT

status=0
for page in "${pages[@]}"; do
	if [ ! -r "$page" ]; then
		echo "FAILED: $page: cannot read the page"
		status=1
		continue
	fi
	# The title line names the page as its file does: NAME.SECTION.
	title=$(sed -n 's/^\.TH "\([^"]*\)" "\([^"]*\)".*/\1.\2/p' "$page" | head -n 1)
	if [ "$title" != "$(basename "$page")" ]; then
		echo "FAILED: $(basename "$page"): .TH names '${title:-nothing}'"
		status=1
	fi
	for locale in C.UTF-8 C; do
		errors=$(LC_ALL=$locale LANG=$locale man --warnings -l "$page" 2>&1 >"$rendered")
		rc=$?
		# Display columns, tabs expanded (not bytes: the UTF-8 rendering has bullets).
		width=$(LC_ALL=C.UTF-8 wc -L <"$rendered")
		if [ $rc -ne 0 ] || [ -n "$errors" ]; then
			echo "FAILED: $(basename "$page") (LC_ALL=$locale): man exited $rc${errors:+, and wrote on stderr:}"
			[ -z "$errors" ] || echo "  ${errors//$'\n'/$'\n'  }"
			status=1
		elif [ "$width" -gt "$MANWIDTH" ]; then
			echo "FAILED: $(basename "$page") (LC_ALL=$locale): a line of $width columns:"
			while IFS= read -r line; do
				[ "$(LC_ALL=C.UTF-8 wc -L <<<"$line")" -le "$MANWIDTH" ] || echo "  $line"
			done <"$rendered"
			status=1
		else
			echo "ok: $(basename "$page") (LC_ALL=$locale)"
		fi
	done
done

names=" "
for page in "${pages[@]}"; do names+="$(basename "$page") "; done
for unit in "${units[@]}"; do
	links=$(sed -n 's/^Documentation=//p' "$unit" | tr ' ' '\n' | sed -n 's/^man:\(.*\)(\(.*\))$/\1.\2/p')
	bad=()
	for link in $links; do
		[[ $names == *" $link "* ]] || bad+=("$link")
	done
	if [ ${#bad[@]} -gt 0 ]; then
		echo "FAILED: $(basename "$unit"): Documentation= names no page built here: ${bad[*]}"
		status=1
	else
		echo "ok: $(basename "$unit"): man: links ${links//$'\n'/ }"
	fi
done
exit $status
