/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/ceph/monitor_hosts.hpp"

#include <algorithm>
#include <array>
#include <netdb.h>

#include <sys/socket.h>

#include <arpa/inet.h>

namespace rbdvolume {

namespace {

/* The host part of one address: "v2:10.0.0.1:3300" is 10.0.0.1, "[::1]:6789" is ::1. */
std::string_view hostOf(std::string_view address)
{
	constexpr std::array<std::string_view, 3> Protocols = { "v1:", "v2:", "any:" };
	/* "[v2:...": the opening of an address vector, not an IPv6 address's bracket */
	if (address.starts_with('[') &&
	    std::any_of(Protocols.begin(), Protocols.end(), [&](std::string_view protocol) {
		    return address.substr(1).starts_with(protocol);
	    }))
		address.remove_prefix(1);
	for (const std::string_view protocol : Protocols)
		if (address.starts_with(protocol))
			address.remove_prefix(protocol.size());
	address = address.substr(0, address.find('/')); /* a nonce */
	if (address.starts_with('['))
		return address.substr(1, address.find(']') - 1);
	if (!address.empty() && address.back() == ']') /* the vector's closing */
		address.remove_suffix(1);
	if (std::count(address.begin(), address.end(), ':') == 1)
		return address.substr(0, address.find(':'));
	return address; /* a name or address without a port, IPv6 included */
}

bool isIpAddress(const std::string &host)
{
	std::array<unsigned char, sizeof(in6_addr)> buffer{};
	return inet_pton(AF_INET, host.c_str(), buffer.data()) == 1 ||
	       inet_pton(AF_INET6, host.c_str(), buffer.data()) == 1;
}

} /* namespace */

std::vector<std::string> monitorHostNames(std::string_view monHost)
{
	std::vector<std::string> names;
	size_t start = 0;
	while (start < monHost.size()) {
		size_t end = monHost.find_first_of(",; \t", start);
		if (end == std::string_view::npos)
			end = monHost.size();
		const std::string host(hostOf(monHost.substr(start, end - start)));
		if (!host.empty() && !isIpAddress(host) &&
		    std::find(names.begin(), names.end(), host) == names.end())
			names.push_back(host);
		start = end + 1;
	}
	return names;
}

std::optional<UnresolvedHost> unresolvedMonitor(std::string_view monHost)
{
	for (const std::string &name : monitorHostNames(monHost)) {
		addrinfo hints{};
		hints.ai_family = AF_UNSPEC;
		hints.ai_socktype = SOCK_STREAM;
		addrinfo *found = nullptr;
		const int r = getaddrinfo(name.c_str(), nullptr, &hints, &found);
		if (r != 0)
			return UnresolvedHost{ name, gai_strerror(r) };
		freeaddrinfo(found);
	}
	return std::nullopt;
}

} /* namespace rbdvolume */
