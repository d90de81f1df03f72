#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# systemd-analyze verify on each unit (the copies configured for this build),
# as an instance of itself. Any warning fails: systemd only warns on unknown keys.
set -euo pipefail
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
status=0
for configured in "$@"; do
	name=$(basename "$configured")
	name=${name#verify-}
	cp "$configured" "$dir/$name"
	unit=$name
	case $name in
	*@.service) unit=${name%@.service}@check.service; ln -s "$name" "$dir/$unit" ;;
	esac
	if out=$(systemd-analyze verify "$dir/$unit" 2>&1) && [ -z "$out" ]; then
		echo "ok: $name"
	else
		echo "FAILED: $name"; echo "$out"; status=1
	fi
done
exit $status
