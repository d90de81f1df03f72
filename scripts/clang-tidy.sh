#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# clang-tidy 22 over the project's own sources, from a build dir's
# compile database (clang's; gcc's works too).
#   scripts/clang-tidy.sh [--deep] BUILD_DIR [FILE_OR_DIR...]   (default: src tests)
# src/ obeys .clang-tidy; tests/ obeys it too, with what tests/.clang-tidy
# changes for gtest code. Over the whole tree, as CI runs it, the static
# analyzer runs in clang's shallow mode over src/ (75,000 nodes a function,
# callees of at most 4 basic blocks inlined; deep mode costs about 580
# CPU-seconds more) and not at all over tests/ (a third of their lint,
# about 250 CPU-seconds: the same run executes every test under
# ASan+UBSan). --deep leaves each file to its configuration: src/ deep,
# tests/ shallow; quick-check runs it on the files a change touches, before
# it is committed.
set -euo pipefail
shallow=(-extra-arg=-Xclang -extra-arg=-analyzer-config -extra-arg=-Xclang -extra-arg=mode=shallow)
no_analyzer=(-checks=-clang-analyzer-*)
deep=no
if [ "${1:-}" = --deep ]; then
	deep=yes
	shift
fi
build=${1:?usage: clang-tidy.sh [--deep] BUILD_DIR [FILE_OR_DIR...]}
shift
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(src tests)
cd "$(dirname "$0")/.."
mapfile -t files < <(find "${dirs[@]}" -name '*.cpp' | sort)
mapfile -t test_files < <(printf '%s\n' "${files[@]}" | grep '^tests/' || true)
mapfile -t other_files < <(printf '%s\n' "${files[@]}" | grep -v '^tests/' || true)
log=$(mktemp)
database=$(mktemp -d)
trap 'rm -rf "$log" "$database"' EXIT
# the build's commands, with precompiled headers clang-tidy 22 can read (clang's)
python3 scripts/compdb_for_tidy.py "$build" "$database" "$(command -v clang++-22)" "${files[@]}"
status=0
tidy() { # tidy OPTIONS_AND_FILES...: one run-clang-tidy
	# gcc's warning options, when the database is gcc's, are not clang's
	run-clang-tidy-22 -quiet -clang-tidy-binary "$(command -v clang-tidy-22)" -p "$database" \
		-j "$(nproc)" -extra-arg=-Wno-unknown-warning-option "$@" >>"$log" 2>&1
}
if [ $deep = yes ]; then
	tidy "${files[@]}" || status=$?
else
	[ ${#other_files[@]} -eq 0 ] || tidy "${shallow[@]}" "${other_files[@]}" || status=$?
	[ ${#test_files[@]} -eq 0 ] || tidy "${no_analyzer[@]}" "${test_files[@]}" || status=$?
fi
grep -v -E '^[0-9]+ warnings? generated|^Suppressed [0-9]+ warnings|^Use -header-filter|^Use -system-headers|^clang-tidy(-22)? |^\[ *[0-9]+/[0-9]+\]|^Running clang-tidy' "$log" || true
if [ "$status" -ne 0 ]; then
	echo "clang-tidy: findings above (exit $status)" >&2
	exit 1
fi
echo "clang-tidy: ${#files[@]} files clean"
