/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Intent files: a round trip, atomic saves, and what loadAll() skips. */
#include "host/intent_files.hpp"

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "read_text.hpp"
#include "temp_dir.hpp"

namespace rbdvolume::testing {

namespace {

using Intents = std::map<std::string, Intent>;

std::set<std::string> filesIn(const std::string &dir)
{
	std::set<std::string> names;
	for (const auto &entry : std::filesystem::directory_iterator(dir))
		names.insert(entry.path().filename().string());
	return names;
}

/* The names an intent file, the bus and `plan --intent` share (engine/model). */
TEST(IntentNames, BothWays)
{
	for (const Intent intent : { Intent::Up, Intent::Down })
		EXPECT_EQ(intentFromName(intentName(intent)), intent) << intentName(intent);
	EXPECT_STREQ(intentName(Intent::Up), "up");
	EXPECT_STREQ(intentName(Intent::Down), "down");
	for (const char *junk : { "", "Up", "up\n", "downward", "?" })
		EXPECT_EQ(intentFromName(junk), std::nullopt) << junk;
}

TEST(IntentFiles, RoundTrip)
{
	TempDir dir;
	const IntentFiles intents(dir.path() + "/run/intent");
	EXPECT_EQ(intents.loadAll(), Intents{}) << "no directory yet";

	ASSERT_TRUE(intents.save("data", Intent::Up));
	ASSERT_TRUE(intents.save("logs.1", Intent::Down));
	EXPECT_EQ(intents.loadAll(),
		  (Intents{ { "data", Intent::Up }, { "logs.1", Intent::Down } }));
	EXPECT_EQ(readText(dir.path() + "/run/intent/data"), "up\n");
	EXPECT_EQ(readText(dir.path() + "/run/intent/logs.1"), "down\n");

	ASSERT_TRUE(intents.save("data", Intent::Down));
	EXPECT_EQ(intents.loadAll(),
		  (Intents{ { "data", Intent::Down }, { "logs.1", Intent::Down } }));

	/* Another instance on the same directory (a restarted daemon) reads the same. */
	const IntentFiles again(dir.path() + "/run/intent");
	EXPECT_EQ(again.loadAll(), intents.loadAll());
}

TEST(IntentFiles, SaveLeavesNoTemporaryFile)
{
	TempDir dir;
	const IntentFiles intents(dir.path());
	for (int i = 0; i < 20; i++)
		ASSERT_TRUE(intents.save("data", i % 2 == 0 ? Intent::Up : Intent::Down));
	ASSERT_TRUE(intents.save("other", Intent::Up));
	EXPECT_EQ(filesIn(dir.path()), (std::set<std::string>{ "data", "other" }));
	EXPECT_EQ(readText(dir.path() + "/data"), "down\n");
}

TEST(IntentFiles, SaveReportsAnUnwritableDirectory)
{
	TempDir dir;
	dir.write("file", "not a directory");
	const IntentFiles intents(dir.path() + "/file");
	EXPECT_FALSE(intents.save("data", Intent::Up));
}

TEST(IntentFiles, SkipsJunk)
{
	TempDir dir;
	dir.write("up_plain", "up");
	dir.write("down_plain", "down\n");
	dir.write("sideways", "sideways\n");
	dir.write("upside", "upside\n");
	dir.write("empty", "");
	dir.write(".hidden", "up\n");
	dir.write("bad-name", "up\n");
	/* What an interrupted atomic save leaves: the name plus mkstemp's suffix. */
	dir.write("data.tmpAb12Cd", "up\n");
	std::filesystem::create_directories(dir.path() + "/subdir");
	const IntentFiles intents(dir.path());
	EXPECT_EQ(intents.loadAll(),
		  (Intents{ { "up_plain", Intent::Up }, { "down_plain", Intent::Down } }));
}

/* One volume's intent, as `rbd-volumectl plan` reads it: the same rules as loadAll(). */
TEST(IntentFiles, LoadOne)
{
	TempDir dir;
	dir.write("a", "down\n");
	dir.write("b", "up");
	dir.write("c", "downward\n");
	dir.write("d", "");
	const IntentFiles intents(dir.path());
	EXPECT_EQ(intents.load("a"), Intent::Down);
	EXPECT_EQ(intents.load("b"), Intent::Up);
	EXPECT_EQ(intents.load("c"), std::nullopt);
	EXPECT_EQ(intents.load("d"), std::nullopt);
	EXPECT_EQ(intents.load("missing"), std::nullopt);
}

} /* namespace */

} /* namespace rbdvolume::testing */
