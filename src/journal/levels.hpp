/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The record's levels: syslog's priorities, named as systemd names them. Header only. */
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace rbdvolume::log {

/* syslog's priorities, as the journal's PRIORITY= field has them. */
enum class Level : uint8_t {
	Emerg = 0,
	Alert = 1,
	Crit = 2,
	Err = 3,
	Warning = 4,
	Notice = 5,
	Info = 6,
	Debug = 7,
};

inline constexpr std::array<std::string_view, 8> LevelNames = {
	"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
};

/* "emerg" ... "debug", as systemd's LogLevel names them. */
constexpr std::string_view levelName(Level level)
{
	return LevelNames.at(static_cast<size_t>(level));
}

/* A name as above, or "err"'s alias "error"; nullopt for anything else. */
constexpr std::optional<Level> parseLevel(std::string_view name)
{
	if (name == "error")
		return Level::Err;
	for (size_t i = 0; i < LevelNames.size(); i++) {
		if (name == LevelNames.at(i))
			return static_cast<Level>(i);
	}
	return std::nullopt;
}

} /* namespace rbdvolume::log */
