/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Monitors named by host name in mon_host (or a spec's `monitors`). librados
 * resolves them before it connects, and when one does not resolve (at boot,
 * before the network or DNS is there) it refuses the whole list with EINVAL,
 * as it would a malformed key: the connect error names the host instead, as
 * a cluster not reachable yet.
 */
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rbdvolume {

/*
 * The host names among mon_host's addresses, in order; IP addresses are left
 * out. Takes each form librados takes: "mon1", "mon1:6789",
 * "[v2:10.0.0.1:3300,v1:10.0.0.1:6789]", "v2:mon1:3300", "[::1]:6789",
 * separated by commas, semicolons or blanks.
 */
std::vector<std::string> monitorHostNames(std::string_view monHost);

struct UnresolvedHost {
	std::string name;
	std::string reason; /* getaddrinfo(3)'s: "Name or service not known", ... */
};

/*
 * The first of those names that does not resolve now (getaddrinfo(3),
 * bounded by resolv.conf's timeout and attempts); nothing when every name
 * resolves.
 */
std::optional<UnresolvedHost> unresolvedMonitor(std::string_view monHost);

} /* namespace rbdvolume */
