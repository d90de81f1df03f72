/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/ceph/monitor_map.hpp"

#include <cctype>

namespace rbdvolume {

namespace {

/* "v2:10.0.0.1:3300/0" into its list, as "10.0.0.1:3300". */
void addAddress(std::string_view entry, MonitorAddresses &out)
{
	const size_t slash = entry.rfind('/');
	if (slash != std::string_view::npos)
		entry = entry.substr(0, slash);
	if (entry.starts_with("v1:"))
		out.msgr1.emplace_back(entry.substr(3));
	else if (entry.starts_with("v2:"))
		out.msgr2.emplace_back(entry.substr(3));
}

/* "N: ADDRS mon.NAME": the ADDRS, or "" for any other line. */
std::string_view addressesOf(std::string_view line)
{
	size_t digits = 0;
	while (digits < line.size() && std::isdigit(static_cast<unsigned char>(line[digits])))
		digits++;
	if (digits == 0 || line.substr(digits, 2) != ": ")
		return {};
	line = line.substr(digits + 2);
	const size_t name = line.find(" mon.");
	return name == std::string_view::npos ? std::string_view() : line.substr(0, name);
}

} /* namespace */

MonitorAddresses monitorAddresses(std::string_view monDump)
{
	MonitorAddresses out;
	while (!monDump.empty()) {
		const size_t newline = monDump.find('\n');
		std::string_view addresses = addressesOf(monDump.substr(0, newline));
		monDump = newline == std::string_view::npos ? std::string_view()
							    : monDump.substr(newline + 1);
		if (addresses.starts_with('[') && addresses.ends_with(']'))
			addresses = addresses.substr(1, addresses.size() - 2);
		while (!addresses.empty()) {
			const size_t comma = addresses.find(',');
			addAddress(addresses.substr(0, comma), out);
			addresses = comma == std::string_view::npos ? std::string_view()
								    : addresses.substr(comma + 1);
		}
	}
	return out;
}

} /* namespace rbdvolume */
