/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SpecReport: locating fields, tracking failures, ordering diagnostics. */
#include "config/spec_report.hpp"

#include <gtest/gtest.h>

namespace rbdvolume {

TEST(SpecReport, LocateFallsBackToTheNearestRecordedParent)
{
	SpecReport report("f.toml");
	report.record("publish", SourcePos{ 4, 1 });
	report.record("publish[1]", SourcePos{ 7, 1 });
	report.record("publish[1].path", SourcePos{ 8, 8 });
	EXPECT_EQ(report.locate("publish[1].path").line, 8U);
	EXPECT_EQ(report.locate("publish[1].options").line, 7U);
	EXPECT_EQ(report.locate("publish[2].path").line, 4U);
	EXPECT_EQ(report.locate("map.driver").line, 1U);
	EXPECT_EQ(report.locate("map.driver").column, 1U);
	EXPECT_TRUE(report.has("publish[1]"));
	EXPECT_FALSE(report.has("publish[2]"));
}

TEST(SpecReport, FailedCoversTheFieldAndWhatIsBelowIt)
{
	SpecReport report("f.toml");
	report.error("publish[1].options[0]", SourcePos{ 3, 4 }, "bad");
	EXPECT_TRUE(report.failed("publish[1].options[0]"));
	EXPECT_TRUE(report.failed("publish[1].options"));
	EXPECT_TRUE(report.failed("publish[1]"));
	EXPECT_TRUE(report.failed("publish"));
	EXPECT_FALSE(report.failed("publish[1].path"));
	EXPECT_FALSE(report.failed("publish[10]"));
	EXPECT_FALSE(report.failed("pub"));
	EXPECT_FALSE(report.failed("map"));
}

TEST(SpecReport, TakeSortsByPositionAndKeepsTies)
{
	SpecReport report("f.toml");
	report.error("b", SourcePos{ 5, 2 }, "second");
	report.error("a", SourcePos{ 2, 9 }, "first");
	report.error("c", SourcePos{ 5, 2 }, "third");
	report.fileError("file");
	EXPECT_FALSE(report.empty());
	const std::vector<Diagnostic> diagnostics = report.take();
	ASSERT_EQ(diagnostics.size(), 4U);
	EXPECT_EQ(diagnostics[0].format(), "f.toml: file");
	EXPECT_EQ(diagnostics[1].format(), "f.toml:2:9: a: first");
	EXPECT_EQ(diagnostics[2].format(), "f.toml:5:2: b: second");
	EXPECT_EQ(diagnostics[3].format(), "f.toml:5:2: c: third");
	EXPECT_TRUE(report.empty());
}

} /* namespace rbdvolume */
