/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/mapping_discovery.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <optional>
#include <string_view>
#include <utility>

#include "common/fs_util.hpp"
#include "common/volume_name.hpp"

namespace rbdvolume {

namespace {

std::vector<std::string> splitNul(const std::string &text)
{
	std::vector<std::string> parts;
	size_t start = 0;
	while (start < text.size()) {
		const size_t end = text.find('\0', start);
		parts.push_back(text.substr(start, end == std::string::npos ? end : end - start));
		if (end == std::string::npos)
			break;
		start = end + 1;
	}
	return parts;
}

/* rbd-nbd options that take their value as the next argument. */
constexpr std::array<std::string_view, 22> ValueOptions = {
	"--device",
	"--cookie",
	"--io-timeout",
	"--timeout",
	"--reattach-timeout",
	"--max_part",
	"--nbds_max",
	"--quiesce-hook",
	"--encryption-format",
	"--encryption-passphrase-file",
	"--id",
	"-i",
	"--name",
	"-n",
	"--conf",
	"-c",
	"--cluster",
	"--keyring",
	"-k",
	"--keyfile",
	"--mon-host",
	"-m",
};

bool takesValue(const std::string &arg)
{
	return std::find(ValueOptions.begin(), ValueOptions.end(), arg) != ValueOptions.end();
}

bool isRbdNbd(const std::vector<std::string> &argv)
{
	return !argv.empty() && std::filesystem::path(argv.front()).filename() == "rbd-nbd";
}

std::vector<std::string> commandLine(const SystemRoots &roots, const std::string &pid)
{
	auto cmdline = readFile(roots.proc + "/" + pid + "/cmdline");
	return cmdline && *cmdline ? splitNul(**cmdline) : std::vector<std::string>();
}

/*
 * rbd-nbd processes that re-attached to a device, by device. After a
 * re-attach the kernel's pid attribute still names the first (dead) server,
 * so they are found as `rbd-nbd list-mapped` finds them: by scanning /proc.
 */
struct Server {
	std::string pid;
	std::vector<std::string> argv;
};

std::vector<std::pair<std::string, Server>> reattached(const SystemRoots &roots)
{
	std::vector<std::pair<std::string, Server>> found;
	for (const std::string &pid : sortedEntries(roots.proc)) {
		if (pid.find_first_not_of("0123456789") != std::string::npos)
			continue;
		std::vector<std::string> argv = commandLine(roots, pid);
		if (!isRbdNbd(argv) || std::find(argv.begin(), argv.end(), "attach") == argv.end())
			continue;
		const auto device = std::find(argv.begin(), argv.end(), "--device");
		if (device == argv.end() || device + 1 == argv.end())
			continue;
		std::string path = *(device + 1);
		found.emplace_back(std::move(path), Server{ pid, std::move(argv) });
	}
	return found;
}

/* A server that is stopped (SIGSTOP, a debugger) holds every I/O of its device. */
std::string serverFault(const SystemRoots &roots, const std::string &pid, const std::string &device)
{
	const char state = processState(roots, pid);
	if (state != 'T' && state != 't')
		return {};
	return "rbd-nbd (pid " + pid + ") serving " + device +
	       " is stopped: the device's I/O waits until it runs again (kill -CONT " + pid + ")";
}

} /* namespace */

bool parseImageSpec(const std::string &text, MappedImage &image)
{
	std::string rest = text;
	if (const size_t at = rest.find('@'); at != std::string::npos) {
		image.snapshot = rest.substr(at + 1);
		rest.resize(at);
	}
	const size_t first = rest.find('/');
	if (first == std::string::npos || first == 0)
		return false;
	image.pool = rest.substr(0, first);
	const size_t second = rest.find('/', first + 1);
	if (second == std::string::npos) {
		image.image = rest.substr(first + 1);
	} else {
		image.radosNamespace = rest.substr(first + 1, second - first - 1);
		image.image = rest.substr(second + 1);
	}
	return !image.image.empty() && image.image.find('/') == std::string::npos;
}

std::string nbdImageArgument(const std::vector<std::string> &argv)
{
	bool command = false;
	for (size_t i = 1; i < argv.size(); i++) {
		const std::string &arg = argv[i];
		if (!command) {
			command = arg == "map" || arg == "attach";
			if (!command && takesValue(arg))
				i++;
			continue;
		}
		if (takesValue(arg)) {
			i++;
			continue;
		}
		if (arg.empty() || arg.front() == '-')
			continue;
		return arg;
	}
	return {};
}

std::string nbdCookieOwner(const std::string &cookie)
{
	constexpr std::string_view Prefix = "rbd-volume.";
	const size_t hash = cookie.rfind('.');
	if (!cookie.starts_with(Prefix) || hash == std::string::npos || hash <= Prefix.size())
		return {};
	std::string name = cookie.substr(Prefix.size(), hash - Prefix.size());
	return isValidVolumeName(name) ? name : std::string();
}

std::vector<MappedImage> listKrbdMappings(const SystemRoots &roots)
{
	std::vector<MappedImage> mapped;
	const std::string base = roots.sysfs + "/bus/rbd/devices/";
	for (const std::string &id : sortedEntries(base)) {
		const std::string dir = base + id + "/";
		MappedImage image;
		image.pool = attributeText(dir + "pool");
		image.radosNamespace = attributeText(dir + "pool_ns");
		image.image = attributeText(dir + "name");
		image.snapshot = attributeText(dir + "current_snap");
		if (image.snapshot == "-")
			image.snapshot.clear(); /* the image head */
		if (image.pool.empty() || image.image.empty())
			continue;
		image.device = "/dev/rbd" + id;
		image.driver = Driver::Krbd;
		image.readOnly = attributeText(roots.sysfs + "/block/rbd" + id + "/ro") == "1";
		mapped.push_back(std::move(image));
	}
	return mapped;
}

std::vector<MappedImage> listNbdMappings(const SystemRoots &roots)
{
	std::vector<MappedImage> mapped;
	const std::string base = roots.sysfs + "/block/";
	std::optional<std::vector<std::pair<std::string, Server>>> attached;
	for (const std::string &name : sortedEntries(base)) {
		if (name.rfind("nbd", 0) != 0)
			continue;
		Server server{ attributeText(base + name + "/pid"), {} };
		if (server.pid.empty())
			continue; /* not connected */
		server.argv = commandLine(roots, server.pid);
		if (!isRbdNbd(server.argv)) {
			/* The first server died; a re-attached one serves the device now. */
			if (!attached)
				attached = reattached(roots);
			const auto it = std::find_if(
				attached->begin(), attached->end(),
				[&](const auto &a) { return a.first == "/dev/" + name; });
			if (it == attached->end())
				continue; /* no server, or an nbd device but not an RBD image */
			server = it->second;
		}
		MappedImage image;
		if (!parseImageSpec(nbdImageArgument(server.argv), image))
			continue;
		image.device = "/dev/" + name;
		image.driver = Driver::Nbd;
		image.readOnly = attributeText(base + name + "/ro") == "1";
		image.owner = nbdCookieOwner(attributeText(base + name + "/backend"));
		image.fault = serverFault(roots, server.pid, image.device);
		mapped.push_back(std::move(image));
	}
	return mapped;
}

char processState(const SystemRoots &roots, const std::string &pid)
{
	auto text = readFile(roots.proc + "/" + pid + "/stat");
	if (!text || !*text)
		return '\0';
	/* "PID (COMM) S ...": COMM may hold anything, the state follows its last ')'. */
	const size_t close = (*text)->rfind(')');
	return close == std::string::npos || close + 2 >= (*text)->size() ? '\0'
									  : (**text)[close + 2];
}

} /* namespace rbdvolume */
