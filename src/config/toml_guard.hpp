/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A pre-parse scan that keeps toml++ 3.3 away from input it mishandles. */
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rbdvolume {

struct TomlGuardProblem {
	unsigned line = 0; /* 1-based, columns in code points, as toml++ counts */
	unsigned column = 0;
	std::string message;
};

/*
 * toml++ 3.3 (Debian 12) classifies some non-ASCII code points with a lookup
 * that ends in TOML_UNREACHABLE, i.e. __builtin_unreachable(): undefined
 * behaviour on reachable input (upstream marzer/tomlplusplus#190 and #295,
 * fixed by #305). The lookup runs on characters outside strings and comments,
 * on every character of a quoted key, and on the character after a backslash
 * in a multi-line basic string. A non-ASCII character in the first two places
 * makes a spec invalid anyway (TOML syntax, or an unknown key); the third
 * is legal TOML we refuse. It also overflows its stack on a key of many
 * thousand dotted parts. This scan finds the first such character, and any
 * key of more than 16 parts or value nested more than 16 levels deep, so
 * the parser reports it instead of handing the text to toml++.
 */
std::optional<TomlGuardProblem> findTomlHazard(std::string_view text);

} /* namespace rbdvolume */
