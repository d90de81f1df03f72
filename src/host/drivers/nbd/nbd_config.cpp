/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/drivers/nbd/nbd_config.hpp"

#include <array>
#include <charconv>
#include <sstream>
#include <string_view>

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

bool parseFlag(const std::string &text, bool &out)
{
	out = text == "yes";
	return text == "yes" || text == "no";
}

} /* namespace */

/*
 * Deterministic, so a restarted unit finds its device again; and bound to
 * the image, so a spec that now names another image never attaches it to
 * the kernel device still holding the old one.
 */
std::string nbdCookie(const VolumeSpec &spec)
{
	return "rbd-volume." + spec.name + "." + hex(fnv1a(spec.image.display()));
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
NbdVolumeConfig nbdConfigFor(const VolumeSpec &spec, const DriverTools &tools)
{
	NbdVolumeConfig config;
	config.rbdNbd = tools.rbdNbd;
	config.image = spec.image.display();
	config.cookie = nbdCookie(spec);
	config.cluster = spec.cluster;
	config.readOnly = spec.map.readOnly;
	config.exclusive = spec.map.exclusive;
	for (const std::string &option : spec.map.nbdOptions) {
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

Result<std::string> formatNbdConfig(const NbdVolumeConfig &config)
{
	std::string text = "# rbd-volume: what rbd-nbd@.service maps; rewritten on every map\n";
	std::string unreadable; /* the first key whose value would break the line format */
	const auto add = [&](const std::string &key, const std::string &value) {
		if (unreadable.empty() &&
		    value.find_first_of(std::string("\n\0", 2)) != std::string::npos)
			unreadable = key;
		text += key + '=' + value + '\n';
	};
	add("rbd-nbd", config.rbdNbd);
	add("image", config.image);
	add("cookie", config.cookie);
	add("id", config.cluster.clientId);
	add("keyring", config.cluster.keyring);
	add("keyfile", config.cluster.keyfile);
	add("conf", config.cluster.conf);
	for (const std::string &monitor : config.cluster.monitors)
		add("monitor", monitor);
	add("read-only", config.readOnly ? "yes" : "no");
	add("exclusive", config.exclusive ? "yes" : "no");
	add("reattach-timeout", std::to_string(config.reattachTimeout));
	add("io-timeout", std::to_string(config.ioTimeout));
	for (const std::string &option : config.options)
		add("option", option);
	if (!unreadable.empty())
		return fail(Errc::InvalidArgument,
			    "nbd config: the " + unreadable + " holds a newline or NUL");
	return text;
}

Result<NbdVolumeConfig> parseNbdConfig(const std::string &text, const std::string &path)
{
	NbdVolumeConfig config;
	config.rbdNbd.clear();
	config.cluster = ClusterSpec{ "", "", "", "", {} };
	std::istringstream in(text);
	std::string line;
	unsigned number = 0;
	while (std::getline(in, line)) {
		number++;
		if (line.empty() || line.front() == '#')
			continue;
		const size_t eq = line.find('=');
		const std::string key = line.substr(0, eq);
		const std::string value = eq == std::string::npos ? "" : line.substr(eq + 1);
		bool ok = eq != std::string::npos;
		if (key == "rbd-nbd")
			config.rbdNbd = value;
		else if (key == "image")
			config.image = value;
		else if (key == "cookie")
			config.cookie = value;
		else if (key == "id")
			config.cluster.clientId = value;
		else if (key == "keyring")
			config.cluster.keyring = value;
		else if (key == "keyfile")
			config.cluster.keyfile = value;
		else if (key == "conf")
			config.cluster.conf = value;
		else if (key == "monitor")
			config.cluster.monitors.push_back(value);
		else if (key == "read-only")
			ok = ok && parseFlag(value, config.readOnly);
		else if (key == "exclusive")
			ok = ok && parseFlag(value, config.exclusive);
		else if (key == "reattach-timeout")
			ok = ok && parseSeconds(value, config.reattachTimeout);
		else if (key == "io-timeout")
			ok = ok && parseSeconds(value, config.ioTimeout);
		else if (key == "option")
			config.options.push_back(value);
		else
			ok = false;
		if (!ok)
			return fail(Errc::InvalidArgument, path + ":" + std::to_string(number) +
								   ": cannot read '" + line + "'");
	}
	for (const auto &[key, value] :
	     { std::pair{ "rbd-nbd", &config.rbdNbd }, std::pair{ "image", &config.image },
	       std::pair{ "cookie", &config.cookie } }) {
		if (value->empty())
			return fail(Errc::InvalidArgument, path + ": no " + key + "= line");
	}
	return config;
}

} /* namespace rbdvolume */
