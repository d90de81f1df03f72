/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A duration key of a TOML table, read with its bounds. */
#include "config/duration_key.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "common/result.hpp"
#include "common/text_escape.hpp"
#include "config/quantities.hpp"
#include "config/toml_reader.hpp"

namespace rbdvolume {

using std::chrono::milliseconds;

namespace {

std::optional<Duration> readDuration(TomlTable &reader, std::string_view key)
{
	auto value = reader.readIntegerOrString(key, "a duration string such as '30s'");
	if (!value)
		return std::nullopt;
	if (const auto *integer = std::get_if<int64_t>(&*value)) {
		/* A bare number could mean seconds or milliseconds: make the unit explicit. */
		const std::string example = *integer > 0 ? std::to_string(*integer) + "s" : "30s";
		reader.check(key, "expected a duration string with a unit, such as '" + example +
					  "', found the integer " + std::to_string(*integer));
		return std::nullopt;
	}
	auto &text = std::get<std::string>(*value);
	const Result<milliseconds> parsed = parseDuration(text);
	if (!parsed) {
		reader.check(key, parsed.error().message);
		return std::nullopt;
	}
	return Duration{ *parsed, std::move(text) };
}

} /* namespace */

std::optional<Duration> readBoundedDuration(TomlTable &reader, std::string_view key,
					    milliseconds min, milliseconds max)
{
	std::optional<Duration> duration = readDuration(reader, key);
	if (!duration)
		return std::nullopt;
	std::string problem;
	if (duration->value < min && min == milliseconds(1))
		problem = "expected a duration greater than 0, found " + quoted(duration->text);
	else if (duration->value < min)
		problem = "expected at least " + formatDuration(min) + ", found " +
			  quoted(duration->text);
	else if (duration->value > max)
		problem = "expected at most " + formatDuration(max) + ", found " +
			  quoted(duration->text);
	if (!problem.empty()) {
		reader.check(key, problem);
		return std::nullopt;
	}
	return duration;
}

} /* namespace rbdvolume */
