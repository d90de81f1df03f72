#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The whole test run, as CI does it: install, lint (clang-format, shellcheck),
# build with gcc and clang, fuzz the spec parser, build the Debian packages
# (lintian, rpmspec), run every suite (once plain, once under ASan+UBSan; the
# system suite, the packages test included, and the kernel suite once).
# Ends with one line: "tests: N passed, N failed, N skipped".
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZ_SECONDS=${FUZZ_SECONDS:-60}
builds=(build-ci build-asan build-clang)

section() { printf '\n==== %s\n' "$*"; }

section "dependencies"
scripts/install-deps.sh

section "clang-format"
mapfile -t sources < <(find src tests -name '*.cpp' -o -name '*.hpp' | sort)
clang-format --dry-run --Werror "${sources[@]}"
echo "${#sources[@]} files formatted"

section "shellcheck"
scripts/shellcheck.sh

section "gcc build (-Werror)"
rm -rf "${builds[@]}"
meson setup build-ci --buildtype=debugoptimized >/dev/null
meson compile -C build-ci

section "gcc build with ASan+UBSan"
meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
meson compile -C build-asan

section "clang build with the fuzzer, ASan+UBSan"
CXX=clang++ meson setup build-clang -Dfuzzer=true -Db_sanitize=address,undefined \
	-Db_lundef=false >/dev/null
meson compile -C build-clang

section "clang-tidy (src/, tests/)"
scripts/clang-tidy.sh build-clang

section "fuzzing the spec parser for ${FUZZ_SECONDS}s"
tests/fuzz/run-spec-fuzz.sh build-clang "$FUZZ_SECONDS"

status=0
section "Debian and RPM packages"
# dpkg-buildpackage from a copy of the tree, lintian (no errors), rpmspec -P.
# The plain test pass installs these .debs into a container and upgrades them
# (tests/system/packages.sh, in the system suite).
debs_dir=$PWD/build-ci/debs
packaging/build-packages.sh "$debs_dir" || status=1

section "tests under ASan+UBSan"
# The system suite installs its build into a container and runs it under
# systemd: once, from the plain build (its daemon is the one packages ship).
# The kernel suite installs its build into a guest kernel: once, from the
# plain build too (under emulation, a sanitized daemon would only be slower).
RBDV_REQUIRE_INTEGRATION=1 RBDV_REQUIRE_CEPH=1 meson test -C build-asan --setup sanitize \
	--no-suite system --no-suite kernel --print-errorlogs --num-processes "$(nproc)" || status=1
section "tests"
RBDV_REQUIRE_INTEGRATION=1 RBDV_REQUIRE_CEPH=1 RBDV_REQUIRE_SYSTEM=1 RBDV_REQUIRE_KERNEL=1 \
	RBDV_DEBS_DIR=$debs_dir RBDV_REQUIRE_PACKAGES=1 meson test -C build-ci \
	--print-errorlogs --num-processes "$(nproc)" || status=1

python3 scripts/test-summary.py build-asan build-ci || status=1
exit $status
