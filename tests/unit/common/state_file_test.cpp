/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The state-file codec: strict on keys, values and counts, both ways. */
#include "common/state_file.hpp"

#include <array>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace rbdvolume {

namespace {

constexpr std::array<StateKey, 6> Keys = { {
	{ "device", StateValue::Path, false, true },
	{ "label", StateValue::Text },
	{ "size", StateValue::Number },
	{ "done", StateValue::Flag },
	{ "read-only", StateValue::YesNo },
	{ "target", StateValue::Path, true },
} };

constexpr StateSchema Schema{ "a test record", Keys };

std::string errorOf(const std::string &text)
{
	auto parsed = parseStateText(text, "/run/x", Schema);
	if (parsed)
		return "(parsed)";
	EXPECT_EQ(parsed.error().code, Errc::InvalidArgument);
	return parsed.error().message;
}

} /* namespace */

TEST(StateFile, WritesWhatItReadsBack)
{
	StateWriter out(Schema, "a comment");
	out.add("device", "/dev/rbd0");
	out.add("label", "");
	out.addNumber("size", 18446744073709551615ULL);
	out.addFlag("done", false);
	out.addFlag("read-only", false);
	out.add("target", "/srv/a");
	out.add("target", "/srv/b");
	auto text = out.text();
	ASSERT_TRUE(text) << text.error().message;
	EXPECT_EQ(*text, "# a comment\ndevice=/dev/rbd0\nlabel=\nsize=18446744073709551615\n"
			 "read-only=no\ntarget=/srv/a\ntarget=/srv/b\n");

	auto fields = parseStateText(*text, "/run/x", Schema);
	ASSERT_TRUE(fields) << fields.error().message;
	EXPECT_EQ(fields->text("device"), "/dev/rbd0");
	EXPECT_EQ(fields->text("label"), "");
	EXPECT_EQ(fields->number("size"), 18446744073709551615ULL);
	EXPECT_FALSE(fields->flag("done"));
	EXPECT_FALSE(fields->flag("read-only"));
	EXPECT_EQ(fields->all("target"), (std::vector<std::string>{ "/srv/a", "/srv/b" }));
	EXPECT_EQ(fields->lines().back().line, 7U);
}

TEST(StateFile, FlagsAreWrittenOnlyWhenSet)
{
	StateWriter out(Schema, "c");
	out.add("device", "/dev/rbd0");
	out.addFlag("done", true);
	out.addFlag("read-only", true);
	auto text = out.text();
	ASSERT_TRUE(text);
	EXPECT_EQ(*text, "# c\ndevice=/dev/rbd0\ndone=1\nread-only=yes\n");
	auto fields = parseStateText(*text, "/run/x", Schema);
	ASSERT_TRUE(fields);
	EXPECT_TRUE(fields->flag("done"));
	EXPECT_TRUE(fields->flag("read-only"));
}

TEST(StateFile, RefusesToWriteWhatItCouldNotReadBack)
{
	for (const auto &[key, value] : std::vector<std::pair<std::string, std::string>>{
		     { "label", "two\nlines" },
		     { "label", std::string("nul\0inside", 10) },
		     { "device", "relative" },
		     { "colour", "blue" },
	     }) {
		StateWriter out(Schema, "c");
		out.add(key, value);
		auto text = out.text();
		ASSERT_FALSE(text) << key;
		EXPECT_EQ(text.error().code, Errc::InvalidArgument);
		EXPECT_EQ(text.error().message.find("blue"), std::string::npos)
			<< "values are never quoted";
	}
}

TEST(StateFile, StrictWhenReading)
{
	const std::string good = "# comment\n\ndevice=/dev/rbd0\n";
	EXPECT_EQ(errorOf(good), "(parsed)");
	EXPECT_EQ(errorOf(good + "colour=blue\n"),
		  "/run/x:4: unknown key 'colour' in a test record");
	EXPECT_EQ(errorOf(good + "key = AQBsecret==\n"),
		  "/run/x:4: a line that is no key in a test record");
	EXPECT_EQ(errorOf(good + "done\n"), "/run/x:4: a line that is no key in a test record");
	EXPECT_EQ(errorOf(good + "done=yes\n"), "/run/x:4: expected 1 for done in a test record");
	EXPECT_EQ(errorOf(good + "read-only=1\n"),
		  "/run/x:4: expected yes or no for read-only in a test record");
	EXPECT_EQ(errorOf(good + "size=-1\n"),
		  "/run/x:4: expected a number for size in a test record");
	EXPECT_EQ(errorOf(good + "size=18446744073709551616\n"),
		  "/run/x:4: expected a number for size in a test record");
	EXPECT_EQ(errorOf(good + "size=\n"),
		  "/run/x:4: expected a number for size in a test record");
	EXPECT_EQ(errorOf(good + "target=srv\n"),
		  "/run/x:4: expected an absolute path for target in a test record");
	EXPECT_EQ(errorOf(good + "device=/dev/rbd1\n"),
		  "/run/x:4: device given twice in a test record");
	EXPECT_EQ(errorOf("label=x\n"), "/run/x: no device= line in a test record");
	EXPECT_EQ(errorOf(""), "/run/x: no device= line in a test record");
}

TEST(StateFile, AnUnnamedSchemaAddsNothingToItsMessages)
{
	constexpr StateSchema Unnamed{ "", Keys };
	auto parsed = parseStateText("device=/dev/rbd0\nx=1\n", "/run/y", Unnamed);
	ASSERT_FALSE(parsed);
	EXPECT_EQ(parsed.error().message, "/run/y:2: unknown key 'x'");
}

} /* namespace rbdvolume */
