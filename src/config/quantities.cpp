/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Sizes and durations: a whole number and a unit, checked for overflow. */
#include "config/quantities.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include "common/char_class.hpp"
#include "common/text_escape.hpp"

namespace rbdvolume {

namespace {

/* The exponent of 1024 a size unit letter stands for, or -1. */
int unitPower(char unit)
{
	constexpr std::string_view Units = "KMGTP";
	const size_t at = Units.find(unit);
	return at == std::string_view::npos ? -1 : static_cast<int>(at) + 1;
}

} /* namespace */

Result<uint64_t> parseSize(std::string_view text)
{
	const auto bad = [text] {
		return fail(Errc::InvalidArgument,
			    "expected a size such as '10G', '512M' or '1073741824' (units K, M, G, "
			    "T, P are powers of 1024), found " +
				    quoted(text));
	};
	size_t digits = 0;
	while (digits < text.size() && isAsciiDigit(text[digits]))
		++digits;
	if (digits == 0)
		return bad();
	std::string_view unit = text.substr(digits);
	if (!unit.empty() && (unit.front() == '.' || unit.front() == ','))
		return fail(Errc::InvalidArgument,
			    "expected a whole number of bytes or units (no decimals), found " +
				    quoted(text));

	int power = 0;
	if (!unit.empty() && unitPower(unit.front()) > 0) {
		power = unitPower(unit.front());
		unit.remove_prefix(1);
		if (unit == "iB" || unit == "B")
			unit = {};
	} else if (unit == "B") {
		unit = {};
	}
	if (!unit.empty())
		return bad();

	constexpr uint64_t Max = std::numeric_limits<uint64_t>::max();
	uint64_t value = 0;
	for (const char c : text.substr(0, digits)) {
		const auto digit = static_cast<uint64_t>(c - '0');
		if (value > (Max - digit) / 10)
			return fail(Errc::InvalidArgument,
				    "expected a size below 16 EiB, found " + quoted(text));
		value = value * 10 + digit;
	}
	for (int i = 0; i < power; ++i) {
		if (value > Max / 1024)
			return fail(Errc::InvalidArgument,
				    "expected a size below 16 EiB, found " + quoted(text));
		value *= 1024;
	}
	return value;
}

std::optional<std::string> sizeBytesProblem(uint64_t bytes)
{
	constexpr uint64_t Sector = 512;
	if (bytes == 0)
		return "expected a size greater than 0, found 0";
	if (bytes % Sector != 0)
		return "expected a multiple of 512 bytes, found " + std::to_string(bytes) +
		       " bytes";
	return {};
}

namespace {

struct DurationUnit {
	std::string_view name;
	int64_t milliseconds;
};

/* Largest first, so formatDuration() picks the largest exact one. */
constexpr std::array<DurationUnit, 4> DurationUnits = { {
	{ "h", 3600000 },
	{ "min", 60000 },
	{ "s", 1000 },
	{ "ms", 1 },
} };

} /* namespace */

Result<std::chrono::milliseconds> parseDuration(std::string_view text)
{
	size_t digits = 0;
	while (digits < text.size() && isAsciiDigit(text[digits]))
		++digits;
	if (digits == 0)
		return fail(Errc::InvalidArgument,
			    "expected a duration such as '500ms', '30s', '2min' or '1h', found " +
				    quoted(text));
	const std::string_view number = text.substr(0, digits);
	const std::string_view unit = text.substr(digits);
	if (unit.empty())
		return fail(Errc::InvalidArgument,
			    "expected a duration with a unit (ms, s, min, h), such as '" +
				    std::string(number) + "s', found " + quoted(text));
	if (unit.front() == ' ' || unit.front() == '\t')
		return fail(Errc::InvalidArgument,
			    "expected no space between the number and the unit, found " +
				    quoted(text));
	if (unit.front() == '.' || unit.front() == ',')
		return fail(Errc::InvalidArgument,
			    "expected a whole number of units (no decimals; '1500ms', not "
			    "'1.5s'), found " +
				    quoted(text));
	const auto *found =
		std::find_if(DurationUnits.begin(), DurationUnits.end(),
			     [unit](const DurationUnit &known) { return known.name == unit; });
	if (found == DurationUnits.end())
		return fail(Errc::InvalidArgument,
			    "expected a unit of 'ms', 's', 'min' or 'h', found " + quoted(unit) +
				    " in " + quoted(text));

	const int64_t max = std::numeric_limits<int64_t>::max() / found->milliseconds;
	int64_t value = 0;
	for (const char c : number) {
		const auto digit = static_cast<int64_t>(c - '0');
		if (value > (max - digit) / 10)
			return fail(Errc::InvalidArgument,
				    "expected a duration below 292 million years, found " +
					    quoted(text));
		value = value * 10 + digit;
	}
	return std::chrono::milliseconds(value * found->milliseconds);
}

std::string formatDuration(std::chrono::milliseconds duration)
{
	const int64_t count = duration.count();
	if (count == 0)
		return "0s";
	for (const DurationUnit &unit : DurationUnits) {
		if (count % unit.milliseconds == 0)
			return std::to_string(count / unit.milliseconds) + std::string(unit.name);
	}
	return std::to_string(count) + "ms"; /* not reached: every count is whole ms */
}

} /* namespace rbdvolume */
