/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The record's levels, its console form, and what the level lets through. */
#include "journal/log.hpp"

#include <cstdio>
#include <string>
#include <unistd.h>

#include <gtest/gtest.h>

namespace rbdvolume::testing {
namespace {

using log::Level;

TEST(Log, LevelNamesAsSystemdHasThem)
{
	EXPECT_EQ(log::parseLevel("debug"), Level::Debug);
	EXPECT_EQ(log::parseLevel("info"), Level::Info);
	EXPECT_EQ(log::parseLevel("warning"), Level::Warning);
	EXPECT_EQ(log::parseLevel("err"), Level::Err);
	EXPECT_EQ(log::parseLevel("error"), Level::Err);
	EXPECT_EQ(log::parseLevel("emerg"), Level::Emerg);
	EXPECT_EQ(log::parseLevel("verbose"), std::nullopt);
	EXPECT_EQ(log::parseLevel(""), std::nullopt);
	for (int i = 0; i <= 7; i++)
		EXPECT_EQ(log::parseLevel(log::levelName(static_cast<Level>(i))),
			  static_cast<Level>(i));
}

/* As log::write() takes it: the place is the caller's, not this function's. */
log::CodePlace placeOf(log::CodePlace where = log::CodePlace::here())
{
	return where;
}

TEST(Log, TheCodePlaceIsTheCallers)
{
	const unsigned line = __LINE__ + 1;
	const log::CodePlace where = placeOf();
	EXPECT_EQ(where.line, line);
	EXPECT_STREQ(where.function, "TestBody");
	EXPECT_NE(std::string(where.file).find("log_test.cpp"), std::string::npos) << where.file;
}

TEST(Log, TheConsoleFormKeepsTheFields)
{
	const log::Line line{ Level::Info,
			      "volume 'data': formatted /dev/rbd0",
			      { { "RBDV_VOLUME", "data" }, { "RBDV_STEP", "format" } },
			      {} };
	EXPECT_EQ(log::consoleText(line),
		  "<6>volume 'data': formatted /dev/rbd0 [RBDV_VOLUME=data RBDV_STEP=format]");
	EXPECT_EQ(log::consoleText({ Level::Err, "no fields", {}, {} }), "<3>no fields");
}

/* A copy of stderr's descriptor, once what was written to it is out. */
int flushedStderr()
{
	std::fflush(stderr);
	return dup(STDERR_FILENO);
}

/* What write() puts on stderr, with the console as the target. */
class CapturedStderr
{
public:
	CapturedStderr() : saved_(flushedStderr()), file_(std::tmpfile())
	{
		dup2(fileno(file_), STDERR_FILENO);
	}
	~CapturedStderr()
	{
		std::fflush(stderr);
		dup2(saved_, STDERR_FILENO);
		close(saved_);
		std::fclose(file_);
	}
	CapturedStderr(const CapturedStderr &) = delete;
	CapturedStderr &operator=(const CapturedStderr &) = delete;
	CapturedStderr(CapturedStderr &&) = delete;
	CapturedStderr &operator=(CapturedStderr &&) = delete;

	std::string text()
	{
		std::fflush(stderr);
		std::rewind(file_);
		std::string out;
		for (int c = std::fgetc(file_); c != EOF; c = std::fgetc(file_))
			out += static_cast<char>(c);
		return out;
	}

private:
	int saved_ = -1;
	std::FILE *file_ = nullptr;
};

TEST(Log, TheLevelDecidesWhatIsWritten)
{
	log::setTarget(log::Target::Console);
	const Level before = log::level();
	CapturedStderr captured;
	log::setLevel(Level::Info);
	log::write({ Level::Debug, "quiet when converged", {}, {} });
	log::info("mapped");
	log::setLevel(Level::Debug);
	log::write({ Level::Debug, "now shown", {}, {} });
	log::setLevel(Level::Err);
	log::warning("dropped");
	log::error("kept");
	log::setLevel(before);
	EXPECT_EQ(captured.text(), "<6>mapped\n<7>now shown\n<3>kept\n");
	EXPECT_FALSE(log::toJournal());
	log::setTarget(log::Target::Auto);
}

} /* namespace */
} /* namespace rbdvolume::testing */
