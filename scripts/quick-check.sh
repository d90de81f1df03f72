#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The quick loop: what to run before every commit. Needs no root and, once
# its build directory is built, well under two minutes on a 2-core machine.
#
#   scripts/quick-check.sh [BUILD_DIR]      (default: build-quick)
#
#   1. clang-format --dry-run --Werror on the C++ files changed since the
#      branch left main (committed, staged, unstaged or untracked);
#   2. shellcheck on the shell scripts among them (if shellcheck is installed;
#      CI always runs it);
#   3. the layering check (scripts/check-layers.py over src/);
#   4. an incremental debug build of BUILD_DIR (meson setup on the first run);
#   5. the unit suite, then the gtest cases it skipped, each with its reason;
#   6. clang-tidy 22 on the changed .cpp files, its analyzer in deep mode for
#      src/ (CI lints every file, the analyzer lighter: scripts/clang-tidy.sh).
#
# Every step runs even when one before it failed (the tests not when the
# build failed); exits 1 when any step failed. The base is $RBDV_BASE if set,
# else the merge-base of HEAD with main, origin/main or origin/HEAD.
# scripts/test.sh stays the whole run (as root): formatting and shellcheck of
# everything, gcc and clang builds, sanitizers, clang-tidy, fuzzing, packages,
# the integration, Ceph and system suites.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

build=${1:-build-quick}
started=$SECONDS
failed=()

section() { printf '\n==== %s\n' "$*"; }
step_failed() {
	failed+=("$1")
	echo "quick-check: $1 FAILED" >&2
}

# The files this branch touches: committed since the base, staged, unstaged,
# untracked (not ignored). Deleted files are left out.
base=
changed=()
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	for ref in ${RBDV_BASE:-} main origin/main origin/HEAD; do
		if base=$(git merge-base HEAD "$ref" 2>/dev/null); then
			break
		fi
		base=
	done
	mapfile -t changed < <({
		[ -n "$base" ] && git diff --name-only --diff-filter=ACMR "$base"
		git diff --name-only --diff-filter=ACMR --cached
		git diff --name-only --diff-filter=ACMR
		git ls-files --others --exclude-standard
	} | sort -u)
fi

section "clang-format (changed C++ files)"
cpp=()
for f in "${changed[@]}"; do
	case $f in
	*.cpp | *.hpp) [ -f "$f" ] && cpp+=("$f") ;;
	esac
done
if [ -z "$base" ]; then
	echo "quick-check: no main, origin/main or origin/HEAD to compare with (set RBDV_BASE);" \
		"checking uncommitted files only"
fi
unformatted=()
for f in "${cpp[@]}"; do
	clang-format --dry-run --Werror "$f" || unformatted+=("$f")
done
if [ ${#cpp[@]} -eq 0 ]; then
	echo "no C++ file changed${base:+ since ${base:0:12}}"
elif [ ${#unformatted[@]} -eq 0 ]; then
	echo "${#cpp[@]} files formatted"
else
	echo "fix with: clang-format -i ${unformatted[*]}" >&2
	step_failed "clang-format"
fi

section "shellcheck (changed scripts)"
if ! command -v shellcheck >/dev/null; then
	echo "SKIPPED: shellcheck is not installed (apt-get install shellcheck; CI runs it)"
elif [ ${#changed[@]} -eq 0 ]; then
	echo "no file changed"
else
	scripts/shellcheck.sh "${changed[@]}" || step_failed "shellcheck"
fi

section "layers (scripts/check-layers.py src)"
python3 scripts/check-layers.py src || step_failed "layers"

section "build ($build)"
built=yes
if [ ! -f "$build/build.ninja" ]; then
	echo "first run: meson setup $build (a full build takes a while; later runs are incremental)"
	log=$(mktemp)
	meson setup "$build" --buildtype=debug >"$log" 2>&1 || { cat "$log"; built=no; }
	rm -f "$log"
fi
if [ "$built" = yes ]; then
	meson compile -C "$build" -j "$(nproc)" || built=no
fi
[ "$built" = yes ] || step_failed "build"

section "unit suite (meson test --suite unit)"
if [ "$built" = yes ]; then
	meson test -C "$build" --suite unit --print-errorlogs --num-processes "$(nproc)" ||
		step_failed "unit suite"
	python3 scripts/test-summary.py --list-skipped "$build" || true
else
	echo "SKIPPED: the build failed"
fi

section "clang-tidy, analyzer deep (changed .cpp files)"
tidy=()
for f in "${cpp[@]}"; do
	[[ $f == *.cpp ]] && tidy+=("$f")
done
if ! command -v clang-tidy-22 >/dev/null; then
	echo "SKIPPED: clang-tidy-22 is not installed (scripts/install-deps.sh; CI runs it)"
elif [ ${#tidy[@]} -eq 0 ]; then
	echo "no .cpp file changed"
elif [ "$built" != yes ]; then
	echo "SKIPPED: the build failed (clang-tidy reads its generated headers)"
else
	scripts/clang-tidy.sh --deep "$build" "${tidy[@]}" || step_failed "clang-tidy"
fi

elapsed=$((SECONDS - started))
section "quick-check: $((elapsed / 60))m$((elapsed % 60))s"
if [ ${#failed[@]} -gt 0 ]; then
	echo "quick-check: FAILED: ${failed[*]}" >&2
	exit 1
fi
echo "quick-check: all passed"
