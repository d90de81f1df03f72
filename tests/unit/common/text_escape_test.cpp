/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* JSON string escaping and terminal-safe text. */
#include "common/text_escape.hpp"

#include <array>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace rbdvolume {

namespace {

TEST(JsonQuote, PlainTextIsQuoted)
{
	EXPECT_EQ(jsonQuote(""), "\"\"");
	EXPECT_EQ(jsonQuote("db/x y"), "\"db/x y\"");
}

TEST(JsonQuote, QuoteAndBackslash)
{
	EXPECT_EQ(jsonQuote("a\"b\\c"), "\"a\\\"b\\\\c\"");
}

TEST(JsonQuote, ControlCharacters)
{
	EXPECT_EQ(jsonQuote("\b\f\n\r\t"), "\"\\b\\f\\n\\r\\t\"");
	EXPECT_EQ(jsonQuote(std::string("\x01\x1f\x7f", 3)), "\"\\u0001\\u001f\\u007f\"");
	EXPECT_EQ(jsonQuote(std::string("a\0b", 3)), "\"a\\u0000b\"");
	EXPECT_EQ(jsonQuote("\x1b[0m"), "\"\\u001b[0m\"");
}

TEST(JsonQuote, Utf8PassesThrough)
{
	EXPECT_EQ(jsonQuote("ünïcode — 日本 🚀"), "\"ünïcode — 日本 🚀\"");
}

TEST(JsonQuote, InvalidUtf8BecomesTheReplacementCharacter)
{
	EXPECT_EQ(jsonQuote("a\xff"
			    "b"),
		  "\"a\\ufffdb\"");
	/* A truncated sequence, an overlong '/', a surrogate, a stray continuation byte. */
	EXPECT_EQ(jsonQuote("\xc3"), "\"\\ufffd\"");
	EXPECT_EQ(jsonQuote("\xc0\xaf"), "\"\\ufffd\\ufffd\"");
	EXPECT_EQ(jsonQuote("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");
	EXPECT_EQ(jsonQuote("\x80"), "\"\\ufffd\"");
}

TEST(TerminalSafe, PrintableTextIsUnchanged)
{
	EXPECT_EQ(terminalSafe("map rbd/db \"x\" ü 日本"), "map rbd/db \"x\" ü 日本");
}

TEST(TerminalSafe, ControlsAreEscaped)
{
	EXPECT_EQ(terminalSafe("a\nb\tc\r"), "a\\nb\\tc\\r");
	EXPECT_EQ(terminalSafe("\x1b[2J\x7f"), "\\x1b[2J\\x7f");
	EXPECT_EQ(terminalSafe("\xc2\x9b"
			       "31m"),
		  "\\u009b31m");
	EXPECT_EQ(terminalSafe("\xc2\xa0"), "\xc2\xa0"); /* U+00A0 is no control */
}

TEST(TerminalSafe, LineBreaksCanStay)
{
	EXPECT_EQ(terminalSafe("a\nb\x1b", true), "a\nb\\x1b");
	EXPECT_EQ(terminalSafe("a\r\nb", true), "a\\r\nb");
}

TEST(TerminalSafe, InvalidBytesAreShownInHex)
{
	EXPECT_EQ(terminalSafe("a\xfe"), "a\\xfe");
}

TEST(DisplayWidth, CountsCodePoints)
{
	EXPECT_EQ(displayWidth(""), 0U);
	EXPECT_EQ(displayWidth("abc"), 3U);
	EXPECT_EQ(displayWidth("données"), 7U);
	EXPECT_EQ(displayWidth("🚀"), 1U);
}

} /* namespace */

TEST(Quoting, ControlCharactersAsHexInTicks)
{
	EXPECT_EQ(quoted("abc"), "'abc'");
	EXPECT_EQ(quoted(std::string_view("a\0b", 3)), "'a\\x00b'");
	EXPECT_EQ(quoted("\x1b[31m"), "'\\x1b[31m'");
	constexpr std::array<std::string_view, 2> Items = { "a", "b" };
	EXPECT_EQ(quotedList(Items), "'a', 'b'");
}

} /* namespace rbdvolume */
