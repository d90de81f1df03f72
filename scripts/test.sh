#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The whole test run, as CI does it: install, lint (clang-format, shellcheck),
# build with gcc and clang, fuzz the spec parser, build the Debian packages
# (lintian, rpmspec), run every suite (once plain, once under ASan+UBSan; the
# system suite, the packages test included, and the kernel suite once).
# Every phase is timed; the table of them comes last but one, then one line:
# "tests: N passed, N failed, N skipped" (gtest cases counted).
# shellcheck disable=SC2317 # its functions run through phase
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/phases.sh
. scripts/phases.sh

FUZZ_SECONDS=${FUZZ_SECONDS:-60}
builds=(build-ci build-asan build-clang)
debs_dir=$PWD/build-ci/debs
status=0

check_format() {
	local sources
	mapfile -t sources < <(find src tests -name '*.cpp' -o -name '*.hpp' | sort)
	clang-format --dry-run --Werror "${sources[@]}"
	echo "${#sources[@]} files formatted"
}

build() { # build DIR [SETUP-ARGS...]
	local dir=$1
	shift
	meson setup "$dir" "$@" >/dev/null
	meson compile -C "$dir"
}

build_clang() {
	CXX=clang++ build build-clang -Dfuzzer=true -Db_sanitize=address,undefined -Db_lundef=false
}

# suite LOGBASE ARGS...: meson test over build-ci, its log kept apart
suite() {
	local logbase=$1
	shift
	RBDV_DEBS_DIR=$debs_dir meson test -C build-ci --logbase "$logbase" --print-errorlogs \
		--num-processes "$(nproc)" "$@"
}

# A build that failed leaves nothing to test: the table, and out.
stop_after() {
	phase_table
	echo "test.sh: $1 failed; nothing after it ran" >&2
	exit 1
}

export RBDV_REQUIRE_INTEGRATION=1 RBDV_REQUIRE_CEPH=1 RBDV_REQUIRE_SYSTEM=1 RBDV_REQUIRE_KERNEL=1
export RBDV_REQUIRE_PACKAGES=1

phase "dependencies" scripts/install-deps.sh || stop_after "installing the dependencies"
phase "clang-format" check_format || status=1
phase "shellcheck" scripts/shellcheck.sh || status=1

rm -rf "${builds[@]}"
phase "gcc build (-Werror)" build build-ci --buildtype=debugoptimized || stop_after "the gcc build"
phase "gcc build with ASan+UBSan" build build-asan -Db_sanitize=address,undefined -Db_lundef=false ||
	stop_after "the gcc ASan build"
phase "clang build with the fuzzer, ASan+UBSan" build_clang || stop_after "the clang build"
phase "clang-tidy (src/, tests/)" scripts/clang-tidy.sh build-clang || status=1
phase "fuzzing the spec parser (${FUZZ_SECONDS} s)" tests/fuzz/run-spec-fuzz.sh build-clang "$FUZZ_SECONDS" ||
	status=1
# dpkg-buildpackage from a copy of the tree, lintian (no errors), rpmspec -P.
# The packages test installs these .debs into a container and upgrades them.
phase "Debian and RPM packages" packaging/build-packages.sh "$debs_dir" || status=1

# The system suite installs its build into a container and runs it under
# systemd: once, from the plain build (its daemon is the one packages ship).
# The kernel suite installs its build into a guest kernel: once, from the
# plain build too (under emulation, a sanitized daemon would only be slower).
phase "ASan+UBSan: unit, integration, ceph" meson test -C build-asan --setup sanitize \
	--no-suite system --no-suite kernel --print-errorlogs --num-processes "$(nproc)" || status=1
phase "unit, integration, ceph" suite testlog --no-suite system --no-suite kernel || status=1
phase "system suite" suite testlog-system system || status=1
phase "kernel suite" suite testlog-kernel kernel || status=1
phase "packages test" suite testlog-packages packages || status=1

phase_table
python3 scripts/test-summary.py build-asan build-ci || status=1
exit $status
