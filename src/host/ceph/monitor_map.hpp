/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The monitors' addresses from `ceph mon dump`, as the kernel's rbd client takes them. */
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rbdvolume {

struct MonitorAddresses {
	std::vector<std::string> msgr1; /* "10.0.0.1:6789", "[::1]:6789" */
	std::vector<std::string> msgr2; /* "10.0.0.1:3300" */
};

/*
 * The monitors' plain answer to `mon dump`, one line per monitor after the
 * epoch, fsid and dates:
 *
 *     0: [v2:10.0.0.1:3300/0,v1:10.0.0.1:6789/0] mon.a
 *     1: v1:10.0.0.2:6789/0 mon.b
 *
 * Each address goes to its protocol's list without its "/nonce"; lines of
 * another form are skipped.
 */
MonitorAddresses monitorAddresses(std::string_view monDump);

} /* namespace rbdvolume */
