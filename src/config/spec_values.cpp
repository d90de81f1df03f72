/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Checks of single spec values: names, sizes, addresses, paths, features, key hints. */
#include "config/spec_values.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <limits>
#include <string>

#include "common/paths.hpp"

namespace rbdvolume {

namespace {

bool isDigit(char c)
{
	return c >= '0' && c <= '9';
}

bool isAlnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || isDigit(c);
}

bool isControl(char c)
{
	const auto byte = static_cast<unsigned char>(c);
	return byte < 0x20 || byte == 0x7f;
}

bool isSpace(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

bool allDigits(std::string_view text)
{
	return !text.empty() && std::all_of(text.begin(), text.end(), isDigit);
}

bool isHexDigit(char c)
{
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* The exponent of 1024 a size unit letter stands for, or -1. */
int unitPower(char unit)
{
	constexpr std::string_view Units = "KMGTP";
	const size_t at = Units.find(unit);
	return at == std::string_view::npos ? -1 : static_cast<int>(at) + 1;
}

std::optional<std::string> portProblem(std::string_view port, std::string_view address)
{
	unsigned long value = 0;
	bool good = allDigits(port) && port.size() <= 5;
	if (good) {
		for (const char c : port)
			value = value * 10 + static_cast<unsigned long>(c - '0');
		good = value >= 1 && value <= 65535;
	}
	if (good)
		return {};
	return "expected a port from 1 to 65535, found " + quoted(port) + " in " + quoted(address);
}

std::optional<std::string> hostProblem(std::string_view host, std::string_view address)
{
	const bool good = !host.empty() && std::all_of(host.begin(), host.end(), [](char c) {
		return isAlnum(c) || c == '.' || c == '-' || c == '_';
	});
	if (good)
		return {};
	return "expected a host name or an IP address, found " + quoted(host) + " in " +
	       quoted(address);
}

std::optional<std::string> bracketedHostProblem(std::string_view rest, std::string_view address)
{
	const size_t close = rest.find(']');
	if (close == std::string_view::npos)
		return "expected ']' after the IPv6 address, found " + quoted(address);
	const std::string_view inner = rest.substr(1, close - 1);
	const bool good = inner.find(':') != std::string_view::npos &&
			  std::all_of(inner.begin(), inner.end(),
				      [](char c) { return isHexDigit(c) || c == ':' || c == '.'; });
	if (!good)
		return "expected an IPv6 address in brackets, found " +
		       quoted(rest.substr(0, close + 1)) + " in " + quoted(address);
	const std::string_view tail = rest.substr(close + 1);
	if (tail.empty())
		return {};
	if (tail.front() != ':')
		return "expected ':PORT' after ']', found " + quoted(tail) + " in " +
		       quoted(address);
	return portProblem(tail.substr(1), address);
}

} /* namespace */

std::string escaped(std::string_view text)
{
	constexpr std::string_view Hex = "0123456789abcdef";
	std::string out;
	for (const char c : text) {
		if (isControl(c)) {
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

std::string oneOfProblem(std::span<const std::string_view> choices, std::string_view found)
{
	std::string message = "expected one of " + quotedList(choices) + ", found " + quoted(found);
	/* Case first: "KRBD" is no typo of "krbd", but still meant it. */
	std::string lowered(found);
	std::transform(lowered.begin(), lowered.end(), lowered.begin(),
		       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
	const std::string_view hint = closestMatch(lowered, choices);
	if (!hint.empty())
		message += "; did you mean " + quoted(hint) + "?";
	return message;
}

size_t editDistance(std::string_view a, std::string_view b)
{
	/* Three rolling rows are enough for the transposition case. */
	std::vector<size_t> before(b.size() + 1);
	std::vector<size_t> previous(b.size() + 1);
	std::vector<size_t> current(b.size() + 1);
	for (size_t j = 0; j <= b.size(); ++j)
		previous[j] = j;
	for (size_t i = 1; i <= a.size(); ++i) {
		current[0] = i;
		for (size_t j = 1; j <= b.size(); ++j) {
			const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
			current[j] = std::min(
				{ previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost });
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
				current[j] = std::min(current[j], before[j - 2] + 1);
		}
		std::swap(before, previous);
		std::swap(previous, current);
	}
	return previous[b.size()];
}

std::string_view closestMatch(std::string_view unknown, std::span<const std::string_view> known)
{
	constexpr size_t MaxDistance = 2;
	std::string_view best;
	size_t bestDistance = MaxDistance + 1;
	for (const std::string_view candidate : known) {
		const size_t distance = editDistance(unknown, candidate);
		/* "x" is two edits from "id", but that is no hint. */
		if (distance < bestDistance && distance < candidate.size()) {
			best = candidate;
			bestDistance = distance;
		}
	}
	return best;
}

std::string unknownKeyProblem(std::string_view key, std::span<const std::string_view> known)
{
	std::string message = "unknown key " + quoted(key);
	const std::string_view hint = closestMatch(key, known);
	if (!hint.empty())
		return message + "; did you mean " + quoted(hint) + "?";
	if (known.empty())
		return message + "; this table takes no keys";
	return message + "; expected one of " + quotedList(known);
}

Result<uint64_t> parseSize(std::string_view text)
{
	const auto bad = [text] {
		return fail(Errc::InvalidArgument,
			    "expected a size such as '10G', '512M' or '1073741824' (units K, M, G, "
			    "T, P are powers of 1024), found " +
				    quoted(text));
	};
	size_t digits = 0;
	while (digits < text.size() && isDigit(text[digits]))
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
	while (digits < text.size() && isDigit(text[digits]))
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

std::optional<std::string> rbdNameProblem(std::string_view name)
{
	if (name.empty())
		return "expected a non-empty name, found ''";
	if (name.size() > MaxRbdNameLength)
		return "expected at most " + std::to_string(MaxRbdNameLength) +
		       " characters, found " + std::to_string(name.size());
	const bool bad = std::any_of(name.begin(), name.end(), [](char c) {
		return c == '/' || c == '@' || isSpace(c) || isControl(c);
	});
	if (bad)
		return "expected a name without '/', '@', whitespace or control characters, "
		       "found " +
		       quoted(name);
	return {};
}

std::optional<std::string> clientIdProblem(std::string_view id)
{
	constexpr std::string_view Prefix = "client.";
	if (id.empty())
		return "expected a non-empty client id, found ''";
	if (id.substr(0, Prefix.size()) == Prefix)
		return "expected the client id without the 'client.' prefix (" +
		       quoted(id.substr(Prefix.size())) + "), found " + quoted(id);
	const bool good = std::all_of(id.begin(), id.end(), [](char c) {
		return isAlnum(c) || c == '_' || c == '.' || c == '-';
	});
	if (!good)
		return "expected a client id of letters, digits, '_', '.' and '-', found " +
		       quoted(id);
	return {};
}

std::optional<std::string> volumeIdProblem(std::string_view id)
{
	/* CSI's limit for a string field: the ID is a CSI volume handle. */
	constexpr size_t MaxVolumeIdLength = 128;
	if (id.empty())
		return "expected a non-empty volume ID, found '' (leave 'volume-id' out to use the "
		       "image name)";
	if (id.size() > MaxVolumeIdLength)
		return "expected a volume ID of at most " + std::to_string(MaxVolumeIdLength) +
		       " bytes, found " + std::to_string(id.size());
	if (std::any_of(id.begin(), id.end(), [](char c) { return isSpace(c) || isControl(c); }))
		return "expected a volume ID without whitespace or control characters, found " +
		       quoted(id);
	return {};
}

std::optional<std::string> cipherProblem(std::string_view cipher)
{
	const bool good = !cipher.empty() && std::all_of(cipher.begin(), cipher.end(), [](char c) {
		return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == ':';
	});
	const size_t dash = cipher.find('-');
	if (!good || dash == 0 || dash == std::string_view::npos || cipher.back() == '-')
		return "expected a cipher of the form CIPHER-MODE such as 'aes-xts-plain64', "
		       "found " +
		       quoted(cipher);
	return {};
}

std::optional<std::string> monitorProblem(std::string_view address)
{
	if (address.empty())
		return "expected a monitor address, found ''";
	if (std::any_of(address.begin(), address.end(),
			[](char c) { return c == ',' || isSpace(c) || isControl(c); }))
		return "expected one monitor address per entry, without ',' or whitespace, "
		       "found " +
		       quoted(address);

	std::string_view rest = address;
	if (rest.substr(0, 3) == "v1:" || rest.substr(0, 3) == "v2:")
		rest.remove_prefix(3);
	if (!rest.empty() && rest.front() == '[')
		return bracketedHostProblem(rest, address);

	const size_t colon = rest.find(':');
	if (colon == std::string_view::npos)
		return hostProblem(rest, address);
	if (rest.find(':', colon + 1) != std::string_view::npos)
		return "expected an IPv6 address in brackets ('[2001:db8::1]:3300'), found " +
		       quoted(address);
	if (auto problem = hostProblem(rest.substr(0, colon), address))
		return problem;
	return portProblem(rest.substr(colon + 1), address);
}

std::optional<std::string> pathProblem(std::string_view path, bool allowRoot)
{
	if (path.empty() || path.front() != '/')
		return "expected an absolute path, found " + quoted(path);
	if (std::any_of(path.begin(), path.end(), isControl))
		return "expected a path without control characters, found " + quoted(path);
	if (!paths::isNormalAbsolutePath(path))
		return "expected a normal path (no '.' or '..' component, '//' or trailing '/'), "
		       "found " +
		       quoted(path);
	if (!allowRoot && path == "/")
		return "expected a path below '/', found '/'";
	return {};
}

namespace {

/* In the order rbd(8) lists them. */
constexpr std::array<std::string_view, 7> ImageFeatures = {
	"layering",  "striping",     "exclusive-lock", "object-map",
	"fast-diff", "deep-flatten", "journaling",
};

struct FeatureNeed {
	std::string_view feature;
	std::string_view needs;
};

constexpr std::array<FeatureNeed, 3> FeatureNeeds = { {
	{ "object-map", "exclusive-lock" },
	{ "fast-diff", "object-map" },
	{ "journaling", "exclusive-lock" },
} };

} /* namespace */

std::span<const std::string_view> knownImageFeatures()
{
	return ImageFeatures;
}

std::vector<std::pair<size_t, std::string>> featureProblems(std::span<const std::string> features)
{
	std::vector<std::pair<size_t, std::string>> problems;
	const auto listed = [features](std::string_view name) {
		return std::find(features.begin(), features.end(), name) != features.end();
	};
	for (size_t i = 0; i < features.size(); ++i) {
		const std::string &feature = features[i];
		if (std::find(ImageFeatures.begin(), ImageFeatures.end(), feature) ==
		    ImageFeatures.end()) {
			problems.emplace_back(i, oneOfProblem(ImageFeatures, feature));
			continue;
		}
		if (std::find(features.begin(), features.begin() + static_cast<ptrdiff_t>(i),
			      feature) != features.begin() + static_cast<ptrdiff_t>(i)) {
			problems.emplace_back(i, "expected each feature once, found " +
							 quoted(feature) + " again");
			continue;
		}
		for (const FeatureNeed &need : FeatureNeeds) {
			if (feature == need.feature && !listed(need.needs))
				problems.emplace_back(i, quoted(feature) + " needs " +
								 quoted(need.needs) +
								 ", which is not listed");
		}
	}
	return problems;
}

} /* namespace rbdvolume */
