/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What rbd-volumectl tells systemd while a unit's start or stop waits on the daemon. */
#include "cli/unit_progress.hpp"

#include <gtest/gtest.h>

namespace rbdvolume::testing {

namespace {

using cli::UnitProgress;
using std::chrono::seconds;

TEST(UnitProgress, ExtendsEvenBeforeTheFirstStep)
{
	const UnitProgress progress;
	EXPECT_EQ(progress.message(UnitProgress::Clock::now()), "EXTEND_TIMEOUT_USEC=30000000");
}

TEST(UnitProgress, NamesTheStepAndHowLongItHasRun)
{
	UnitProgress progress;
	progress.activity("format ext4 /dev/rbd0");
	const auto began = UnitProgress::Clock::now(); /* a moment after the step's start */
	EXPECT_EQ(progress.message(began + seconds(40)),
		  "EXTEND_TIMEOUT_USEC=30000000\nSTATUS=format ext4 /dev/rbd0, 40 s");

	/* Between steps: the extension alone, no stale step. */
	progress.activity("");
	EXPECT_EQ(progress.message(UnitProgress::Clock::now()), "EXTEND_TIMEOUT_USEC=30000000");
}

TEST(UnitProgress, TheStatusStaysOneLine)
{
	UnitProgress progress;
	progress.activity("mount /srv/a\nREADY=1");
	const std::string message = progress.message(UnitProgress::Clock::now());
	EXPECT_EQ(message, "EXTEND_TIMEOUT_USEC=30000000\nSTATUS=mount /srv/a\\nREADY=1, 0 s");
}

TEST(UnitProgress, TheHeartbeatComesWellWithinEachExtension)
{
	EXPECT_LE(3 * UnitProgress::HeartbeatEvery, UnitProgress::Extension);
}

} /* namespace */

} /* namespace rbdvolume::testing */
