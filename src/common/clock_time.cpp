/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "common/clock_time.hpp"

#include <array>
#include <ctime>

namespace rbdvolume {

std::string clockTime(std::chrono::system_clock::time_point when)
{
	const std::time_t seconds = std::chrono::system_clock::to_time_t(when);
	std::tm parts{};
	std::array<char, 16> text{};
	if (localtime_r(&seconds, &parts) == nullptr ||
	    std::strftime(text.data(), text.size(), "%H:%M:%S", &parts) == 0)
		return "?";
	return text.data();
}

std::string utcTime(std::chrono::system_clock::time_point when)
{
	const std::time_t seconds = std::chrono::system_clock::to_time_t(when);
	std::tm parts{};
	std::array<char, 32> text{};
	if (gmtime_r(&seconds, &parts) == nullptr ||
	    std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &parts) == 0)
		return "?";
	return text.data();
}

} /* namespace rbdvolume */
