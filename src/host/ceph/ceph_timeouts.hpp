/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CephTimeouts: the bounds on every control-plane call to a cluster. */
#pragma once

#include <chrono>

namespace rbdvolume {

/*
 * librados waits forever for an unreachable cluster by default (and 300 s to
 * connect); the reconciler must never hang on one, so every handle we make
 * carries these bounds. They apply to our own handles only, never to a
 * mapper's data path.
 */
struct CephTimeouts {
	std::chrono::seconds connect{ 10 };   /* client_mount_timeout */
	std::chrono::seconds operation{ 30 }; /* rados_mon_op_timeout, rados_osd_op_timeout */
};

} /* namespace rbdvolume */
