/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A duration key of a TOML table ("30s"), read with its bounds, as specs and settings write it. */
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "config/toml_reader.hpp"

namespace rbdvolume {

/* A duration as written and as read. */
struct Duration {
	std::chrono::milliseconds value{};
	std::string text; /* "2min" */
};

/*
 * A duration string with a unit ("30s") from `min` to `max`; a bare integer
 * is reported with an example, out of range is reported, and either is read
 * as absent.
 */
std::optional<Duration> readBoundedDuration(TomlTable &reader, std::string_view key,
					    std::chrono::milliseconds min,
					    std::chrono::milliseconds max);

} /* namespace rbdvolume */
