/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ASCII character classes as names, IDs and specs use them: no locale. */
#pragma once

#include <algorithm>
#include <string_view>

namespace rbdvolume {

constexpr bool isAsciiDigit(char c)
{
	return c >= '0' && c <= '9';
}

constexpr bool isAsciiLetter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

constexpr bool isAsciiAlnum(char c)
{
	return isAsciiLetter(c) || isAsciiDigit(c);
}

constexpr bool isHexDigit(char c)
{
	return isAsciiDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* C0 controls and DEL (C1 controls are UTF-8 continuation bytes in a char). */
constexpr bool isControlByte(char c)
{
	const auto byte = static_cast<unsigned char>(c);
	return byte < 0x20 || byte == 0x7f;
}

/* What isspace() says in the C locale. */
constexpr bool isAsciiSpace(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* At least one character, all of them digits. */
constexpr bool allDigits(std::string_view text)
{
	return !text.empty() && std::ranges::all_of(text, isAsciiDigit);
}

} /* namespace rbdvolume */
