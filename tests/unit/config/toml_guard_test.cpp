/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The pre-parse guard: which non-ASCII characters are kept away from toml++ 3.3. */
#include "config/toml_guard.hpp"

#include <optional>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace rbdvolume {

namespace {

std::string hazardAt(std::string_view text)
{
	const std::optional<TomlGuardProblem> found = findTomlHazard(text);
	if (!found)
		return "none";
	return std::to_string(found->line) + ":" + std::to_string(found->column) + ": " +
	       found->message;
}

} /* namespace */

TEST(TomlGuard, UnicodeInValuesAndCommentsIsFine)
{
	for (const std::string_view text : {
		     "a = \"\xc3\xa9\"\n",
		     "a = '\xc3\xa9'\n",
		     "a = \"\"\"\n\xc3\xa9\n\"\"\"\n",
		     "a = '''\\\n\xc3\xa9'''\n",
		     "# caf\xc3\xa9\n",
		     "a = 1 # \xc3\xa9\n",
		     "a = [\"\xc3\xa9\",\n\t\"\xd2\x84\"]\n",
		     "a = { b = \"\xc3\xa9\", c = [\"\xc3\xa9\"] }\n",
		     "[t]\nb.c = \"\xc3\xa9\"\n",
		     "a = \"\\\"\xc3\xa9\"\n",
		     "a = \"\"\"x\"\"\"\"\"\n\"b\" = \"\xc3\xa9\"\n",
		     /* One string: the split ends the BOM's hex escape before 'a'. */
		     /* NOLINTNEXTLINE(bugprone-suspicious-missing-comma): see above */
		     "\xef\xbb\xbf"
		     "a = 1\n",
		     "a = \"\"\"\\\\\xc3\xa9\"\"\"\n",
	     }) {
		SCOPED_TRACE(text);
		EXPECT_EQ(hazardAt(text), "none");
	}
}

TEST(TomlGuard, OutsideStringsAndComments)
{
	EXPECT_EQ(hazardAt("a\xc2\xa0= 1\n"),
		  "1:2: invalid TOML: unexpected character outside a string or comment: U+00A0");
	EXPECT_EQ(hazardAt("a = 1\n  \xe2\xbc\x80"),
		  "2:3: invalid TOML: unexpected character outside a string or comment: U+2F00");
	EXPECT_EQ(hazardAt("a = \"x\"\xcc\xaa"),
		  "1:8: invalid TOML: unexpected character outside a string or comment: U+032A");
	EXPECT_EQ(hazardAt("\xff"),
		  "1:1: invalid TOML: unexpected character outside a string or comment: byte 0xFF");
	EXPECT_EQ(hazardAt("\xf0\x9f\x98\x80"),
		  "1:1: invalid TOML: unexpected character outside a string or comment: U+1F600");
}

TEST(TomlGuard, QuotesInsideBareTokensDoNotOpenStrings)
{
	/* toml++ reads each of these as one bare value and tests every character of it. */
	const std::string message =
		"invalid TOML: unexpected character outside a string or comment: U+00E9";
	EXPECT_EQ(hazardAt("path = -F\"/srv/\xc3\xa9\"\n"), "1:16: " + message);
	EXPECT_EQ(hazardAt("a = =\"\xc3\xa9\""), "1:7: " + message);
	EXPECT_EQ(hazardAt("a = x[\"\xc3\xa9\"]"), "1:8: " + message);
	EXPECT_EQ(hazardAt("a = 1.\"\xc3\xa9\""), "1:8: " + message);
	EXPECT_EQ(hazardAt("a = [1, x{'\xc3\xa9'}]"), "1:12: " + message);
	EXPECT_EQ(hazardAt("a = { b = c\"\xc3\xa9\" }"), "1:13: " + message);
	/* A string right after another token is not one either. */
	EXPECT_EQ(hazardAt("a = 1 \"\xc3\xa9\""), "1:8: " + message);
	/* Strings at the start of a value, in arrays and in inline tables, are. */
	EXPECT_EQ(hazardAt("a = [ # c\n  \"\xc3\xa9\",\n  '\xc3\xa9' ]\nb = { c = \"\xc3\xa9\" }"),
		  "none");
}

TEST(TomlGuard, QuotedKeys)
{
	const std::string message =
		"unsupported TOML: a quoted key with a non-ASCII character (spec keys are ASCII): "
		"U+00E9";
	EXPECT_EQ(hazardAt("\"\xc3\xa9\" = 1"), "1:2: " + message);
	EXPECT_EQ(hazardAt("a.'\xc3\xa9' = 1"), "1:4: " + message);
	EXPECT_EQ(hazardAt("[\"\xc3\xa9\"]"), "1:3: " + message);
	EXPECT_EQ(hazardAt("[[a.\"\xc3\xa9\"]]"), "1:6: " + message);
	EXPECT_EQ(hazardAt("a = { b = 1, \"\xc3\xa9\" = 2 }"), "1:15: " + message);
	EXPECT_EQ(hazardAt("a = [1,\n2]\n\"\xc3\xa9\" = 1"), "3:2: " + message);
}

TEST(TomlGuard, MultiLineBasicStringBackslashes)
{
	EXPECT_EQ(hazardAt("s = \"\"\"\\\n  \xc2\xa7\"\"\""),
		  "2:3: unsupported TOML: a non-ASCII character right after a line-ending "
		  "backslash: U+00A7");
	EXPECT_EQ(hazardAt("s = \"\"\"\\\xc2\xa7\"\"\""),
		  "1:9: unsupported TOML: a backslash before a non-ASCII character in a multi-line "
		  "string: U+00A7");
}

namespace {

std::string repeated(std::string_view part, size_t count)
{
	std::string out;
	for (size_t i = 0; i < count; i++)
		out += part;
	return out;
}

} /* namespace */

/* toml++ recurses once per dotted part: 100,000 of them took the daemon down at every start. */
TEST(TomlGuard, KeysOfManyDottedPartsAreRefused)
{
	const std::string deep = "x." + repeated("y.", 100000) + "z = 1\n";
	EXPECT_EQ(hazardAt(deep), "1:32: invalid spec: a key of more than 16 dotted parts (a "
				  "spec nests three levels deep)");
	EXPECT_EQ(hazardAt("[" + repeated("y.", 20) + "z]\n").substr(0, 5), "1:33:");
	EXPECT_EQ(hazardAt("[[" + repeated("y.", 20) + "z]]\n").substr(0, 5), "1:34:");
	EXPECT_EQ(hazardAt("a = { " + repeated("y.", 20) + "z = 1 }\n").substr(0, 5), "1:38:");
	EXPECT_EQ(hazardAt("\"a\"." + repeated("'b'.", 20) + "c = 1\n").substr(0, 5), "1:64:");
}

TEST(TomlGuard, SixteenDottedPartsAndDottedValuesAreFine)
{
	EXPECT_EQ(hazardAt(repeated("a.", 15) + "b = 1\n"), "none");
	/* Parts count per key: every line and every inline-table entry starts again. */
	EXPECT_EQ(hazardAt(repeated(repeated("a.", 15) + "b = 1\n", 3)), "none");
	EXPECT_EQ(hazardAt("t = { " + repeated(repeated("a.", 10) + "b = 1, ", 3) + "}\n"), "none");
	EXPECT_EQ(hazardAt("[" + repeated("a.", 10) + "b]\n" + repeated("c.", 10) + "d = 1\n"),
		  "none");
	/* Dots in values are numbers, dates, strings: never key parts. */
	EXPECT_EQ(hazardAt("v = " + repeated("1", 40) + ".5\n"), "none");
	EXPECT_EQ(hazardAt("v = \"" + repeated("a.", 100) + "\"\n"), "none");
	EXPECT_EQ(hazardAt("v = [" + repeated("1.5, ", 100) + "]\n"), "none");
}

TEST(TomlGuard, DeeplyNestedValuesAreRefused)
{
	EXPECT_EQ(hazardAt("a = " + repeated("[", 17) + repeated("]", 17) + "\n"),
		  "1:21: invalid spec: arrays or inline tables nested more than 16 levels deep "
		  "(a spec nests three levels deep)");
	EXPECT_EQ(hazardAt("a = " + repeated("{ b = ", 17) + "1" + repeated(" }", 17) + "\n")
			  .substr(0, 10),
		  "1:101: inv");
	EXPECT_EQ(hazardAt("a = " + repeated("[", 16) + repeated("]", 16) + "\n"), "none");
}

} /* namespace rbdvolume */
