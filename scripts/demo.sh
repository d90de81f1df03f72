#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The README's first command: install, build, and run rbd-volume on its shipped
# example. Today that is the offline spec check; it grows into a throw-away
# Ceph cluster with a sample volume once the daemon exists.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
[ -d build ] || meson setup build >/dev/null
meson compile -C build rbd-volumectl

echo
echo "\$ rbd-volumectl check conf/example.toml tests/data/specs/valid"
build/src/cli/rbd-volumectl check conf/example.toml tests/data/specs/valid
