/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which stops of rbd-volume@NAME cut its start short, from what systemd tells ExecStopPost=. */
#include "cli/unit_stop.hpp"

#include <gtest/gtest.h>

#include "cli/verb_options.hpp"

namespace rbdvolume::testing {

namespace {

using cli::startWasCancelled;

TEST(UnitStop, AStopDuringTheStartCancelsIt)
{
	EXPECT_TRUE(startWasCancelled("signal", "killed", "TERM")); /* systemd 252, oneshot */
	EXPECT_TRUE(startWasCancelled("signal", "killed", "INT"));
	EXPECT_TRUE(startWasCancelled("success", "killed", "TERM"));
}

TEST(UnitStop, AStopOfAnActiveUnitDoesNot)
{
	/* ExecStop= ran the down; the start's process had exited 0 long before */
	EXPECT_FALSE(startWasCancelled("success", "exited", "0"));
}

TEST(UnitStop, AFailedOrTimedOutStartDoesNot)
{
	/* the unit starts again (Restart=on-failure) and the volume stays meant up */
	EXPECT_FALSE(startWasCancelled("exit-code", "exited", "75"));
	EXPECT_FALSE(startWasCancelled("timeout", "killed", "TERM"));
	EXPECT_FALSE(startWasCancelled("signal", "killed", "KILL"));
	EXPECT_FALSE(startWasCancelled("success", "killed", "KILL"));
	EXPECT_FALSE(startWasCancelled("success", "dumped", "ABRT"));
}

TEST(UnitStop, OutsideSystemdNothingIsCancelled)
{
	EXPECT_FALSE(startWasCancelled(nullptr, nullptr, nullptr));
	EXPECT_FALSE(startWasCancelled("success", nullptr, "TERM"));
}

TEST(UnitStop, OnlyDownTakesTheOption)
{
	const std::string_view args[] = { "--if-start-cancelled", "a" };
	auto down = cli::parseVerbOptions(args, cli::OptionIfStartCancelled);
	ASSERT_TRUE(down) << down.error().message;
	EXPECT_TRUE(down->ifStartCancelled);
	auto up = cli::parseVerbOptions(args, cli::OptionNoWait);
	ASSERT_FALSE(up);
	EXPECT_EQ(up.error().message, "unknown option '--if-start-cancelled'");
}

} /* namespace */

} /* namespace rbdvolume::testing */
