#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# clang-tidy 22 over the project's own sources, from a build dir's
# compile database (clang's; gcc's works too).
#   scripts/clang-tidy.sh [--deep] BUILD_DIR [FILE_OR_DIR...]   (default: src tests)
# src/ obeys .clang-tidy; tests/ obeys it too, with what tests/.clang-tidy
# changes for gtest code. The static analyzer runs in clang's shallow mode
# (75,000 nodes a function, callees of at most 4 basic blocks inlined): over
# the whole tree, deep mode costs CI about 580 CPU-seconds more for src/ alone.
# --deep leaves src/ to the configuration's deep mode: quick-check runs it
# on the files a change touches, before it is committed.
set -euo pipefail
analyzer=(-extra-arg=-Xclang -extra-arg=-analyzer-config -extra-arg=-Xclang -extra-arg=mode=shallow)
if [ "${1:-}" = --deep ]; then
	analyzer=()
	shift
fi
build=${1:?usage: clang-tidy.sh [--deep] BUILD_DIR [FILE_OR_DIR...]}
shift
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(src tests)
# gcc's warning options, when the database is gcc's, are not clang's
extra=(-extra-arg=-Wno-unknown-warning-option "${analyzer[@]}")
cd "$(dirname "$0")/.."
mapfile -t files < <(find "${dirs[@]}" -name '*.cpp' | sort)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
run-clang-tidy-22 -quiet -clang-tidy-binary "$(command -v clang-tidy-22)" -p "$build" -j "$(nproc)" \
	"${extra[@]}" "${files[@]}" >"$log" 2>&1 || status=$?
grep -v -E '^[0-9]+ warnings? generated|^Suppressed [0-9]+ warnings|^Use -header-filter|^Use -system-headers|^clang-tidy(-22)? |^\[ *[0-9]+/[0-9]+\]|^Running clang-tidy' "$log" || true
if [ "$status" -ne 0 ]; then
	echo "clang-tidy: findings above (exit $status)" >&2
	exit 1
fi
echo "clang-tidy: ${#files[@]} files clean"
