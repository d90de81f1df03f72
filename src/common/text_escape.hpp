/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Strings made safe for JSON, for a terminal and for a message; pure. */
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace rbdvolume {

/*
 * `text` as a JSON string literal, quotes included: '"', '\\' and control
 * characters escaped, valid UTF-8 passed through, an invalid byte as U+FFFD.
 */
std::string jsonQuote(std::string_view text);

/*
 * `text` for a terminal: control characters (C0, DEL, C1) become \n, \t, \r,
 * \xHH or \u00HH so that a message cannot break a line or move the cursor;
 * an invalid UTF-8 byte becomes \xHH; everything else passes through. With
 * `keepLineBreaks`, '\n' stays a line break.
 */
std::string terminalSafe(std::string_view text, bool keepLineBreaks = false);

/* `text` with control characters escaped as \\xNN, for a message quoting a value. */
std::string escaped(std::string_view text);

/* escaped(text) in single ticks. */
std::string quoted(std::string_view text);

/* "'a', 'b', 'c'" */
std::string quotedList(std::span<const std::string_view> items);

/* The columns `text` takes: its UTF-8 code points (wide characters count one). */
size_t displayWidth(std::string_view text);

} /* namespace rbdvolume */
