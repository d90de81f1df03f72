/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/ceph/pool_fullness.hpp"

#include <charconv>

#include "common/size_text.hpp"

namespace rbdvolume {

namespace {

/* The value after " KEY " in a pool's line, up to the next space; "" when absent. */
std::string_view valueOf(std::string_view line, std::string_view key)
{
	const std::string needle = " " + std::string(key) + " ";
	const size_t at = line.find(needle);
	if (at == std::string_view::npos)
		return {};
	std::string_view rest = line.substr(at + needle.size());
	return rest.substr(0, rest.find(' '));
}

bool hasFlag(std::string_view flags, std::string_view flag)
{
	while (!flags.empty()) {
		const size_t comma = flags.find(',');
		if (flags.substr(0, comma) == flag)
			return true;
		flags = comma == std::string_view::npos ? std::string_view()
							: flags.substr(comma + 1);
	}
	return false;
}

/* The pool's name: between "pool ID '" and the "' " before its type. */
std::string_view nameOf(std::string_view line)
{
	const size_t open = line.find(" '");
	if (!line.starts_with("pool ") || open == std::string_view::npos)
		return {};
	for (const std::string_view type : { "' replicated ", "' erasure " }) {
		const size_t close = line.find(type, open + 2);
		if (close != std::string_view::npos)
			return line.substr(open + 2, close - open - 2);
	}
	return {};
}

std::string why(std::string_view name, std::string_view line, std::string_view flags)
{
	std::string text = "the pool '" + std::string(name) + "' is full";
	if (!hasFlag(flags, "full_quota"))
		return text + ": an OSD it is stored on is full (`ceph health detail`)";
	const std::string_view maxBytes = valueOf(line, "max_bytes");
	uint64_t bytes = 0;
	const auto [end, error] =
		std::from_chars(maxBytes.data(), maxBytes.data() + maxBytes.size(), bytes);
	if (error == std::errc() && end == maxBytes.data() + maxBytes.size() && bytes != 0)
		return text + ": its quota of " + sizeText(bytes) + " is reached";
	return text + ": its quota is reached";
}

} /* namespace */

std::map<std::string, std::string> fullPools(std::string_view poolList)
{
	std::map<std::string, std::string> full;
	while (!poolList.empty()) {
		const size_t newline = poolList.find('\n');
		const std::string_view line = poolList.substr(0, newline);
		poolList = newline == std::string_view::npos ? std::string_view()
							     : poolList.substr(newline + 1);
		const std::string_view name = nameOf(line);
		const std::string_view flags = valueOf(line, "flags");
		if (!name.empty() && hasFlag(flags, "full"))
			full.emplace(name, why(name, line, flags));
	}
	return full;
}

} /* namespace rbdvolume */
