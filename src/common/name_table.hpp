/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One table of names per enum, read both ways (systemd's *_to_string and
 * *_from_string from one string table): the name printed is always a name
 * the parser takes back.
 */
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace rbdvolume {

template<typename E> struct Named {
	const char *name; /* a literal: lives for the program */
	E value;
};

/* The name of `value`, "?" when the table lacks it. */
template<typename E, size_t N>
constexpr const char *nameIn(const std::array<Named<E>, N> &table, E value)
{
	for (const Named<E> &entry : table)
		if (entry.value == value)
			return entry.name;
	return "?";
}

/* The value named `name`, nullopt for a name the table lacks. */
template<typename E, size_t N>
constexpr std::optional<E> valueIn(const std::array<Named<E>, N> &table, std::string_view name)
{
	for (const Named<E> &entry : table)
		if (name == entry.name)
			return entry.value;
	return std::nullopt;
}

} /* namespace rbdvolume */
