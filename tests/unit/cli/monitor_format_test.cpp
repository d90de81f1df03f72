/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `monitor`'s lines, text and JSON, without a bus. */
#include "cli/monitor_format.hpp"

#include <regex>

#include <gtest/gtest.h>

namespace rbdvolume::cli {

namespace {

using std::chrono::milliseconds;

/* 2026-11-29T08:40:01.123Z */
const std::chrono::system_clock::time_point At =
	std::chrono::system_clock::from_time_t(1795941601) + milliseconds(123);

MonitorEvent degraded()
{
	return { At,
		 "db",
		 "degraded",
		 "up",
		 { { "MapperLost", "mapper-lost /dev/nbd0: nothing serves it" },
		   { "Conflict", "" } } };
}

/* The clock part is local time: only its form is fixed. */
std::string afterTheClock(const std::string &line)
{
	static const std::regex clock("^[0-9]{2}:[0-9]{2}:[0-9]{2}\\.123 ");
	EXPECT_TRUE(std::regex_search(line, clock)) << line;
	return line.substr(13);
}

TEST(MonitorText, APhaseWithWhatItWasAndItsConditions)
{
	EXPECT_EQ(afterTheClock(formatMonitorText(degraded())),
		  "db: degraded (was up): MapperLost: mapper-lost /dev/nbd0: nothing serves it; "
		  "Conflict\n");
}

TEST(MonitorText, APhaseNotSeenBeforeSaysNoWas)
{
	EXPECT_EQ(afterTheClock(formatMonitorText({ At, "logs", "pending", "", {} })),
		  "logs: pending\n");
}

TEST(MonitorText, TheDaemonComingAndGoing)
{
	EXPECT_EQ(afterTheClock(formatMonitorText({ At, "", "stopped", "", {} })),
		  "rbd-volumed stopped\n");
}

TEST(MonitorText, ControlCharactersCannotDriveTheTerminal)
{
	EXPECT_EQ(afterTheClock(formatMonitorText(
			  { At, "db", "failed", "up", { { "Failed", "bad\x1b[2J\nline" } } })),
		  "db: failed (was up): Failed: bad\\x1b[2J\\nline\n");
}

TEST(MonitorJson, OneObjectALineInUtc)
{
	EXPECT_EQ(formatMonitorJson(degraded()),
		  "{\"time\":\"2026-11-29T08:40:01.123Z\",\"volume\":\"db\",\"phase\":\"degraded\","
		  "\"previous\":\"up\",\"conditions\":[{\"type\":\"MapperLost\",\"message\":"
		  "\"mapper-lost /dev/nbd0: nothing serves it\"},{\"type\":\"Conflict\","
		  "\"message\":\"\"}]}\n");
	EXPECT_EQ(formatMonitorJson({ At, "", "started", "", {} }),
		  "{\"time\":\"2026-11-29T08:40:01.123Z\",\"daemon\":\"started\"}\n");
}

} /* namespace */

} /* namespace rbdvolume::cli */
