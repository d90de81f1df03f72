#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Stands in for the ceph suite when librbd/librados were not found at setup:
# SKIP (77), or a failure when RBDV_REQUIRE_CEPH=1 demands the suite.
if [ "${RBDV_REQUIRE_CEPH:-}" = 1 ]; then
	echo "ceph suite FAILED: not built: librbd-dev and librados-dev were not found at meson setup" >&2
	exit 1
fi
echo "ceph suite skipped: not built (librbd-dev and librados-dev were not found at meson setup)" >&2
exit 77
