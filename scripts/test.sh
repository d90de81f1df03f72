#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The whole test run, as CI does it: install, lint (clang-format, shellcheck),
# two builds, each configuration compiled once:
#   - gcc: the Debian packages, -Werror, with what the system, kernel and
#     packages suites drive (packaging/build-packages.sh --tests; lintian,
#     rpmspec); those suites run against that build tree, so the daemon they
#     install is built as the packages ship it;
#   - clang: ASan+UBSan and the libFuzzer target, -Werror; clang-tidy reads
#     its compile database; the spec parser is fuzzed; the unit, integration
#     and ceph suites run there alone: a plain pass of them too cost more
#     than half of the package build's compile, for no check the sanitized
#     pass lacks.
# Every phase is timed; the table of them comes last but one, then one line:
# "tests: N passed, N failed, N skipped" (gtest cases counted).
# shellcheck disable=SC2317 # its functions run through phase and lane
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/phases.sh
. scripts/phases.sh

FUZZ_SECONDS=${FUZZ_SECONDS:-60}
gcc_out=build-ci
gcc_build=$gcc_out/build
clang_build=build-clang
status=0

export RBDV_REQUIRE_INTEGRATION=1 RBDV_REQUIRE_CEPH=1 RBDV_REQUIRE_SYSTEM=1 RBDV_REQUIRE_KERNEL=1
export RBDV_REQUIRE_PACKAGES=1 RBDV_DEBS_DIR=$PWD/$gcc_out

check_format() {
	local sources
	mapfile -t sources < <(find src tests -name '*.cpp' -o -name '*.hpp' | sort)
	clang-format --dry-run --Werror "${sources[@]}"
	echo "${#sources[@]} files formatted"
}

build_clang() {
	CXX=clang++ CXX_LD=lld meson setup "$clang_build" -Dfuzzer=true -Db_sanitize=address,undefined \
		-Db_lundef=false >/dev/null
	meson compile -C "$clang_build"
}

# suite LOGBASE ARGS...: meson test over the gcc build, its log kept apart;
# the packages' build built what they run: no ninja of their own
suite() {
	local logbase=$1
	shift
	meson test -C "$gcc_build" --no-rebuild --logbase "$logbase" --print-errorlogs \
		--num-processes "$(nproc)" "$@"
}

container_suites() {
	local rc=0
	phase "gcc: system suite" suite testlog-system system || rc=1
	phase "gcc: packages test" suite testlog-packages packages || rc=1
	return "$rc"
}

# The fuzzer, then the sanitized unit, integration and ceph suites, once the
# clang build is there; each waits more than it computes.
sanitized_suites() {
	local rc=0
	lane_await clang || {
		echo "the fuzzer and the sanitized suites: not run, the clang build failed" >&2
		return 1
	}
	phase "fuzzing the spec parser (${FUZZ_SECONDS} s)" \
		tests/fuzz/run-spec-fuzz.sh "$clang_build" "$FUZZ_SECONDS" || rc=1
	phase "ASan+UBSan: unit, integration, ceph" \
		meson test -C "$clang_build" --setup sanitize --no-suite system --no-suite kernel \
		--print-errorlogs --num-processes "$(nproc)" || rc=1
	return "$rc"
}

tidy_once_built() {
	lane_await clang || { echo "clang-tidy: not run, the clang build failed" >&2; return 1; }
	phase "clang-tidy (src/, tests/)" scripts/clang-tidy.sh "$clang_build"
}

# A build that failed leaves nothing to test: the table, and out.
stop_after() {
	phase_table
	echo "test.sh: $1 failed; nothing after it ran" >&2
	exit 1
}

phase "dependencies" scripts/install-deps.sh || stop_after "installing the dependencies"
phase "clang-format" check_format || status=1
phase "shellcheck" scripts/shellcheck.sh || status=1

rm -rf "$gcc_out" "$clang_build"
# The clang build and clang-tidy only need CPU time: they run on what the
# gcc build and the suites leave idle (SCHED_IDLE: a suite's process that
# wants a core gets it at once); the gcc build, then the suites (below), at
# normal priority.
lane --idle clang phase "clang: ASan+UBSan, fuzzer (-Werror)" build_clang
lane --idle tidy tidy_once_built
phase "gcc: Debian packages (-Werror)" packaging/build-packages.sh --tests "$gcc_out" ||
	stop_after "the gcc build"

# The system suite installs the gcc build into a container, the packages test
# its .debs; the kernel suite installs it into a guest kernel: once, from the
# gcc build (under emulation a sanitized daemon would only be slower). The
# kernel suite is the run's longest chain; everything else runs beside it, in
# lanes: the containers (system suite, packages test) and the sanitized
# suites wait more than they compute (30-50 % CPU each), and the clang build
# and clang-tidy take what CPU time is left. Their clusters take free ports,
# their loop devices are told apart by backing file, and the guest's cluster
# lives in a network namespace of its own.
lane containers container_suites
lane sanitized sanitized_suites
phase "gcc: kernel suite" suite testlog-kernel kernel || status=1
lane_wait containers || status=1
lane_wait sanitized || status=1
lane_wait clang || status=1
lane_wait tidy || status=1

phase_table
python3 scripts/test-summary.py "$clang_build" "$gcc_build" || status=1
exit $status
