#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# clang-tidy 22 over the project's own sources, from a clang build dir.
#   scripts/clang-tidy.sh CLANG_BUILD_DIR [DIR...]     (default: src tests)
# src/ obeys .clang-tidy; tests/ obeys it too, with what tests/.clang-tidy
# changes for gtest code.
set -euo pipefail
build=${1:?usage: clang-tidy.sh CLANG_BUILD_DIR [DIR...]}
shift
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(src tests)
cd "$(dirname "$0")/.."
mapfile -t files < <(find "${dirs[@]}" -name '*.cpp' | sort)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
run-clang-tidy-22 -quiet -clang-tidy-binary "$(command -v clang-tidy-22)" -p "$build" -j "$(nproc)" \
	"${files[@]}" >"$log" 2>&1 || status=$?
grep -v -E '^[0-9]+ warnings? generated|^Suppressed [0-9]+ warnings|^Use -header-filter|^Use -system-headers|^clang-tidy(-22)? |^\[ *[0-9]+/[0-9]+\]|^Running clang-tidy' "$log" || true
if [ "$status" -ne 0 ]; then
	echo "clang-tidy: findings above (exit $status)" >&2
	exit 1
fi
echo "clang-tidy: ${#files[@]} files clean"
