/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Checks of single spec values: names, addresses, paths, IDs, ciphers, features. */
#include "config/spec_values.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "common/char_class.hpp"
#include "common/paths.hpp"
#include "common/text_escape.hpp"
#include "config/near_miss.hpp"

namespace rbdvolume {

namespace {

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
		return isAsciiAlnum(c) || c == '.' || c == '-' || c == '_';
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

std::optional<std::string> rbdNameProblem(std::string_view name)
{
	if (name.empty())
		return "expected a non-empty name, found ''";
	if (name.size() > MaxRbdNameLength)
		return "expected at most " + std::to_string(MaxRbdNameLength) +
		       " characters, found " + std::to_string(name.size());
	const bool bad = std::any_of(name.begin(), name.end(), [](char c) {
		return c == '/' || c == '@' || isAsciiSpace(c) || isControlByte(c);
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
		return isAsciiAlnum(c) || c == '_' || c == '.' || c == '-';
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
	if (std::any_of(id.begin(), id.end(),
			[](char c) { return isAsciiSpace(c) || isControlByte(c); }))
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
			[](char c) { return c == ',' || isAsciiSpace(c) || isControlByte(c); }))
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
	if (std::any_of(path.begin(), path.end(), isControlByte))
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
