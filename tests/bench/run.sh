#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs the benchmarks (root: they make loop devices and mounts in a private
# namespace) from a release build and prints their tables.
# Usage: tests/bench/run.sh [BUILD_DIR]   (default: build-bench, made if missing)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-bench}
[ -d "$build" ] || meson setup "$build" --buildtype=release >/dev/null
meson compile -C "$build" bench-mount-table bench-cycle bench-survey rbd-volumed | grep -v "^\[" || true
[ -x "$build/tests/bench/bench-cycle" ] || { echo "bench: build failed" >&2; exit 1; }

echo "== observing the mount table"
"$build/tests/bench/bench-mount-table"
echo
echo "== one stage/publish/unpublish/unstage cycle on a loop device"
"$build/tests/bench/bench-cycle"
echo
echo "== a reconcile pass over many converged volumes (fake host)"
"$build/tests/bench/bench-survey"
echo
echo "== the daemon with 1,000 specs: memory, start-up, idle wake-ups"
tests/bench/daemon-idle.sh "$build" 1000 65
