/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cli/monitor_format.hpp"

#include <array>
#include <cstdio>
#include <ctime>

#include "common/text_escape.hpp"

namespace rbdvolume::cli {

namespace {

/* "08:40:01.123" in local time, or with `iso` "2026-11-29T08:40:01.123Z" in UTC. */
std::string timeText(std::chrono::system_clock::time_point at, bool iso)
{
	const std::time_t seconds = std::chrono::system_clock::to_time_t(at);
	const auto millis =
		std::chrono::duration_cast<std::chrono::milliseconds>(at.time_since_epoch())
			.count() %
		1000;
	std::tm parts{};
	if ((iso ? gmtime_r(&seconds, &parts) : localtime_r(&seconds, &parts)) == nullptr)
		return "?";
	std::array<char, 64> text{};
	const size_t length =
		iso ? std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%S", &parts)
		    : std::strftime(text.data(), text.size(), "%H:%M:%S", &parts);
	std::array<char, 16> fraction{};
	std::snprintf(fraction.data(), fraction.size(), ".%03lld%s", static_cast<long long>(millis),
		      iso ? "Z" : "");
	return std::string(text.data(), length) + fraction.data();
}

} /* namespace */

std::string formatMonitorText(const MonitorEvent &event)
{
	std::string line = timeText(event.at, false) + " ";
	if (event.volume.empty())
		return line + "rbd-volumed " + event.phase + "\n";
	line += terminalSafe(event.volume) + ": " + event.phase;
	if (!event.previous.empty())
		line += " (was " + event.previous + ")";
	for (size_t i = 0; i < event.conditions.size(); i++) {
		const bus::Condition &condition = event.conditions[i];
		line += (i == 0 ? ": " : "; ") + terminalSafe(condition.type);
		if (!condition.message.empty())
			line += ": " + terminalSafe(condition.message);
	}
	return line + "\n";
}

std::string formatMonitorJson(const MonitorEvent &event)
{
	std::string line = "{\"time\":" + jsonQuote(timeText(event.at, true));
	if (event.volume.empty())
		return line + ",\"daemon\":" + jsonQuote(event.phase) + "}\n";
	line += ",\"volume\":" + jsonQuote(event.volume) + ",\"phase\":" + jsonQuote(event.phase) +
		",\"previous\":" + jsonQuote(event.previous) + ",\"conditions\":[";
	for (size_t i = 0; i < event.conditions.size(); i++) {
		if (i > 0)
			line += ',';
		line += "{\"type\":" + jsonQuote(event.conditions[i].type) +
			",\"message\":" + jsonQuote(event.conditions[i].message) + "}";
	}
	return line + "]}\n";
}

} /* namespace rbdvolume::cli */
