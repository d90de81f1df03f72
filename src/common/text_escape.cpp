/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Strings made safe for JSON, for a terminal and for a message; pure. */
#include "common/text_escape.hpp"

#include <array>
#include <cstdint>

#include "common/char_class.hpp"

namespace rbdvolume {

namespace {

constexpr std::array<char, 16> HexDigits = { '0', '1', '2', '3', '4', '5', '6', '7',
					     '8', '9', 'a', 'b', 'c', 'd', 'e', 'f' };

uint8_t byteAt(std::string_view text, size_t index)
{
	return static_cast<uint8_t>(text[index]);
}

bool isContinuation(uint8_t byte)
{
	return (byte & 0xc0U) == 0x80U;
}

/*
 * The length of the well-formed UTF-8 sequence at text[index] (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF), or 0 when there is none.
 */
size_t sequenceLength(std::string_view text, size_t index)
{
	const uint8_t lead = byteAt(text, index);
	if (lead < 0x80U)
		return 1;
	size_t length = 0;
	uint8_t low = 0x80U;
	uint8_t high = 0xbfU;
	if (lead >= 0xc2U && lead <= 0xdfU) {
		length = 2;
	} else if (lead >= 0xe0U && lead <= 0xefU) {
		length = 3;
		if (lead == 0xe0U)
			low = 0xa0U;
		else if (lead == 0xedU)
			high = 0x9fU;
	} else if (lead >= 0xf0U && lead <= 0xf4U) {
		length = 4;
		if (lead == 0xf0U)
			low = 0x90U;
		else if (lead == 0xf4U)
			high = 0x8fU;
	} else {
		return 0;
	}
	if (text.size() - index < length)
		return 0;
	const uint8_t second = byteAt(text, index + 1);
	if (second < low || second > high)
		return 0;
	for (size_t i = 2; i < length; i++) {
		if (!isContinuation(byteAt(text, index + i)))
			return 0;
	}
	return length;
}

void appendHex(std::string &out, std::string_view prefix, unsigned value, int digits)
{
	out += prefix;
	for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4)
		out += HexDigits.at((value >> static_cast<unsigned>(shift)) & 0xfU);
}

/* The short escape of a C0 control character shared by JSON and C ("\n"), or '\0'. */
char shortEscape(uint8_t byte)
{
	switch (byte) {
	case '\b':
		return 'b';
	case '\f':
		return 'f';
	case '\n':
		return 'n';
	case '\r':
		return 'r';
	case '\t':
		return 't';
	default:
		return '\0';
	}
}

} /* namespace */

std::string jsonQuote(std::string_view text)
{
	std::string out;
	out.reserve(text.size() + 2);
	out += '"';
	for (size_t i = 0; i < text.size();) {
		const uint8_t byte = byteAt(text, i);
		const size_t length = sequenceLength(text, i);
		if (length == 0) {
			out += "\\ufffd";
			i++;
			continue;
		}
		if (byte == '"' || byte == '\\') {
			out += '\\';
			out += static_cast<char>(byte);
		} else if (const char letter = shortEscape(byte); letter != '\0') {
			out += '\\';
			out += letter;
		} else if (byte < 0x20U || byte == 0x7fU) {
			appendHex(out, "\\u", byte, 4);
		} else {
			out.append(text.substr(i, length));
		}
		i += length;
	}
	out += '"';
	return out;
}

std::string terminalSafe(std::string_view text, bool keepLineBreaks)
{
	std::string out;
	out.reserve(text.size());
	for (size_t i = 0; i < text.size();) {
		const uint8_t byte = byteAt(text, i);
		const size_t length = sequenceLength(text, i);
		if (length == 0) {
			appendHex(out, "\\x", byte, 2);
			i++;
			continue;
		}
		if (byte == '\n' && keepLineBreaks) {
			out += '\n';
		} else if (const char letter = shortEscape(byte); letter != '\0') {
			out += '\\';
			out += letter;
		} else if (byte < 0x20U || byte == 0x7fU) {
			appendHex(out, "\\x", byte, 2);
		} else if (byte == 0xc2U && byteAt(text, i + 1) < 0xa0U) {
			/* U+0080..U+009F, the C1 controls (U+009B is a CSI to some terminals). */
			appendHex(out, "\\u", byteAt(text, i + 1), 4);
		} else {
			out.append(text.substr(i, length));
		}
		i += length;
	}
	return out;
}

size_t displayWidth(std::string_view text)
{
	size_t width = 0;
	for (size_t i = 0; i < text.size(); i++) {
		if (!isContinuation(byteAt(text, i)))
			width++;
	}
	return width;
}

std::string escaped(std::string_view text)
{
	constexpr std::string_view Hex = "0123456789abcdef";
	std::string out;
	for (const char c : text) {
		if (isControlByte(c)) {
			const auto byte = static_cast<unsigned char>(c);
			out += "\\x";
			out += Hex[byte >> 4U];
			out += Hex[byte & 0xfU];
		} else {
			out += c;
		}
	}
	return out;
}

std::string quoted(std::string_view text)
{
	return '\'' + escaped(text) + '\'';
}

std::string quotedList(std::span<const std::string_view> items)
{
	std::string out;
	for (const std::string_view item : items) {
		if (!out.empty())
			out += ", ";
		out += quoted(item);
	}
	return out;
}

} /* namespace rbdvolume */
