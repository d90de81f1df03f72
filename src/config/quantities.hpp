/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Sizes and durations as specs and the daemon's config write them: "10G", "30s". */
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace rbdvolume {

/* "10G", "10GiB", "10GB", "512M", "4096": binary units K M G T P, no decimals. */
Result<uint64_t> parseSize(std::string_view text);

/* What is wrong with a parsed size, after its key: > 0 and a multiple of 512. */
std::optional<std::string> sizeBytesProblem(uint64_t bytes);

/*
 * "500ms", "30s", "2min", "1h": a whole number and one unit (ms, s, min, h),
 * no sign, no spaces, no decimals. A number without a unit is refused.
 */
Result<std::chrono::milliseconds> parseDuration(std::string_view text);

/* In the largest unit that is exact, as parseDuration() reads it: 120000ms is "2min". */
std::string formatDuration(std::chrono::milliseconds duration);

} /* namespace rbdvolume */
