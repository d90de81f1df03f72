#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Fuzzes the spec parser for SECONDS, seeded with every spec in the tree.
# Usage: tests/fuzz/run-spec-fuzz.sh BUILD_DIR SECONDS
# BUILD_DIR is configured with -Dfuzzer=true (clang). Exits non-zero on a
# crash, leak or sanitizer report; the crashing input is kept and named.
set -eu

if [ $# -ne 2 ]; then
	echo "Usage: $0 BUILD_DIR SECONDS" >&2
	exit 2
fi
build=$1
seconds=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
fuzzer=$build/tests/fuzz/spec-parser-fuzz

if [ ! -x "$fuzzer" ]; then
	echo "$fuzzer: not built (configure with CXX=clang++ -Dfuzzer=true, then ninja -C $build)" >&2
	exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/rbdv-spec-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/corpus" "$work/seeds" "$work/crashes"

# Seeds: every spec in the tree, valid and invalid, and the annotated example.
n=0
for spec in "$top"/tests/data/specs/*/* "$top"/conf/example.toml; do
	[ -f "$spec" ] || continue
	n=$((n + 1))
	cp "$spec" "$work/seeds/$n-$(basename "$spec")"
done
# Long inputs, up to the daemon's 1 MiB bound: a key of 100,000 dotted parts
# (toml++ recursed on it until the stack ran out), deep arrays, a long value.
repeat() { # repeat TEXT COUNT
	awk -v t="$1" -v n="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%s", t }'
}
{ printf 'x.'; repeat 'y.' 100000; printf 'z = 1\n'; } >"$work/seeds/long-dotted-key.toml"
{ printf 'a = '; repeat '[' 300; repeat ']' 300; printf '\n'; } >"$work/seeds/long-nesting.toml"
{ cat "$top/conf/example.toml"; printf '# '; repeat 'x' 900000; printf '\n'; } >"$work/seeds/long-comment.toml"
n=$((n + 3))
echo "seeded with $n specs"

export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

status=0
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=1048576 \
	-dict="$top/tests/fuzz/spec.dict" -artifact_prefix="$work/crashes/" \
	"$work/corpus" "$work/seeds" || status=$?

if [ "$status" -ne 0 ]; then
	keep=$(mktemp -d "${TMPDIR:-/tmp}/rbdv-spec-fuzz-crash.XXXXXX")
	cp -r "$work/crashes/." "$keep/" 2>/dev/null || true
	echo "spec parser fuzzing failed (exit $status); crashing inputs kept in $keep" >&2
	exit 1
fi
echo "spec parser fuzzing: no crash in ${seconds}s"
