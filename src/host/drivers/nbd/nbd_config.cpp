/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/drivers/nbd/nbd_config.hpp"

#include <array>
#include <charconv>
#include <limits>
#include <string_view>

#include "common/state_file.hpp"

namespace rbdvolume {

namespace {

/* FNV-1a, 64 bits: stable across builds and versions, unlike std::hash. */
uint64_t fnv1a(const std::string &text)
{
	uint64_t hash = 0xcbf29ce484222325ULL;
	for (const char c : text) {
		hash ^= static_cast<unsigned char>(c);
		hash *= 0x100000001b3ULL;
	}
	return hash;
}

std::string hex(uint64_t value)
{
	constexpr std::string_view Hex = "0123456789abcdef";
	std::array<char, 16> digits{};
	for (size_t i = digits.size(); i-- > 0; value >>= 4)
		digits.at(i) = Hex.at(value & 0xfU);
	return { digits.begin(), digits.end() };
}

/* "name=value" split at its first '='; value "" for a bare name. */
std::pair<std::string, std::string> splitOption(const std::string &option)
{
	const size_t eq = option.find('=');
	if (eq == std::string::npos)
		return { option, {} };
	return { option.substr(0, eq), option.substr(eq + 1) };
}

bool parseSeconds(const std::string &text, unsigned &out)
{
	const char *end = text.data() + text.size();
	const auto [ptr, ec] = std::from_chars(text.data(), end, out);
	return !text.empty() && ec == std::errc() && ptr == end;
}

} /* namespace */

/*
 * Deterministic, so a restarted unit finds its device again; and bound to
 * the image, so a spec that now names another image never attaches it to
 * the kernel device still holding the old one.
 */
std::string nbdCookie(const MapRequest &request)
{
	return "rbd-volume." + request.volume + "." + hex(fnv1a(request.image.display()));
}

std::string nbdConfigPath(const std::string &directory, const std::string &volume)
{
	return directory + "/" + volume + ".conf";
}

/*
 * reattach-timeout and io-timeout are always written: the kernel keeps an
 * nbd index's io timeout across mappings, so leaving it out inherits the
 * last user's. The spec may set either; the rest pass through unchanged.
 */
NbdVolumeConfig nbdConfigFor(const MapRequest &request, const DriverTools &tools)
{
	NbdVolumeConfig config;
	config.rbdNbd = tools.rbdNbd;
	config.image = request.image.display();
	config.cookie = nbdCookie(request);
	config.cluster = request.cluster;
	config.readOnly = request.map.readOnly;
	config.exclusive = request.map.exclusive;
	for (const std::string &option : request.map.nbdOptions) {
		const auto [name, value] = splitOption(option);
		unsigned seconds = 0;
		if (name == "reattach-timeout" && parseSeconds(value, seconds))
			config.reattachTimeout = seconds;
		else if (name == "io-timeout" && parseSeconds(value, seconds))
			config.ioTimeout = seconds;
		else
			config.options.push_back(option);
	}
	return config;
}

namespace {

constexpr std::array<StateKey, 13> NbdConfigKeys = { {
	{ "rbd-nbd", StateValue::Path, false, true },
	{ "image", StateValue::Text, false, true },
	{ "cookie", StateValue::Text, false, true },
	{ "id", StateValue::Text },
	{ "keyring", StateValue::Text },
	{ "keyfile", StateValue::Text },
	{ "conf", StateValue::Text },
	{ "monitor", StateValue::Text, true },
	{ "read-only", StateValue::YesNo },
	{ "exclusive", StateValue::YesNo },
	{ "reattach-timeout", StateValue::Number },
	{ "io-timeout", StateValue::Number },
	{ "option", StateValue::Text, true },
} };

constexpr StateSchema NbdConfigSchema{ "an nbd config", NbdConfigKeys };

} /* namespace */

Result<std::string> formatNbdConfig(const NbdVolumeConfig &config)
{
	StateWriter out(NbdConfigSchema,
			"rbd-volume: what rbd-nbd@.service maps; rewritten on every map");
	out.add("rbd-nbd", config.rbdNbd);
	out.add("image", config.image);
	out.add("cookie", config.cookie);
	out.add("id", config.cluster.clientId);
	out.add("keyring", config.cluster.keyring);
	out.add("keyfile", config.cluster.keyfile);
	out.add("conf", config.cluster.conf);
	for (const std::string &monitor : config.cluster.monitors)
		out.add("monitor", monitor);
	out.addFlag("read-only", config.readOnly);
	out.addFlag("exclusive", config.exclusive);
	out.addNumber("reattach-timeout", config.reattachTimeout);
	out.addNumber("io-timeout", config.ioTimeout);
	for (const std::string &option : config.options)
		out.add("option", option);
	return out.text();
}

Result<NbdVolumeConfig> parseNbdConfig(const std::string &text, const std::string &path)
{
	auto fields = parseStateText(text, path, NbdConfigSchema);
	if (!fields)
		return tl::make_unexpected(fields.error());
	NbdVolumeConfig config;
	config.rbdNbd = fields->text("rbd-nbd").value_or("");
	config.image = fields->text("image").value_or("");
	config.cookie = fields->text("cookie").value_or("");
	config.cluster = ClusterSpec{ "", "", "", "", {} };
	config.cluster.clientId = fields->text("id").value_or("");
	config.cluster.keyring = fields->text("keyring").value_or("");
	config.cluster.keyfile = fields->text("keyfile").value_or("");
	config.cluster.conf = fields->text("conf").value_or("");
	config.cluster.monitors = fields->all("monitor");
	config.readOnly = fields->flag("read-only");
	config.exclusive = fields->flag("exclusive");
	for (const auto &[key, out] : { std::pair{ "reattach-timeout", &config.reattachTimeout },
					std::pair{ "io-timeout", &config.ioTimeout } }) {
		const uint64_t seconds = fields->number(key, *out);
		if (seconds > std::numeric_limits<unsigned>::max())
			return fail(Errc::InvalidArgument, path + ": " + key + " is out of range");
		*out = static_cast<unsigned>(seconds);
	}
	config.options = fields->all("option");
	if (config.image.empty() || config.cookie.empty())
		return fail(Errc::InvalidArgument, path + ": names no image or cookie");
	return config;
}

} /* namespace rbdvolume */
