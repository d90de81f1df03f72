/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/drivers/nbd/nbd_helper.hpp"

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

#include "common/errno_text.hpp"
#include "common/unique_fd.hpp"
#include "common/volume_name.hpp"
#include "host/drivers/nbd/nbd_devices.hpp"
#include "host/drivers/tools/cluster_args.hpp"

namespace rbdvolume {

Result<HelperArgs> parseHelperArgs(const std::vector<std::string> &args)
{
	HelperArgs parsed;
	for (size_t i = 0; i < args.size(); i++) {
		const std::string &arg = args[i];
		if ((arg == "--wait" || arg == "--after-exit") && parsed.mode == HelperMode::Exec) {
			parsed.mode = arg == "--wait" ? HelperMode::Wait : HelperMode::AfterExit;
		} else if ((arg == "--config-dir" || arg == "--sysfs") && i + 1 < args.size()) {
			(arg == "--sysfs" ? parsed.sysfs : parsed.configDir) = args[++i];
		} else if (!arg.empty() && arg.front() != '-' && parsed.volume.empty()) {
			parsed.volume = arg;
		} else {
			return fail(Errc::InvalidArgument, "unexpected argument '" + arg + "'");
		}
	}
	if (parsed.volume.empty())
		return fail(Errc::InvalidArgument,
			    "usage: rbd-volume-nbd-helper [--wait | --after-exit] NAME");
	if (auto problem = volumeNameProblem(parsed.volume))
		return fail(Errc::InvalidArgument, std::move(*problem));
	return parsed;
}

/*
 * An attach repeats everything a map says (timeouts, read-only, exclusive,
 * encryption): it opens the image afresh and reconfigures the device.
 * --try-netlink is a map option; an attach is always netlink.
 */
std::vector<std::string> rbdNbdArgv(const NbdVolumeConfig &config, const std::string &attachDevice)
{
	std::vector<std::string> argv = { config.rbdNbd, "-d" };
	appendClusterArgs(argv, config.cluster);
	if (attachDevice.empty())
		argv.insert(argv.end(), { "map", "--try-netlink" });
	else
		argv.insert(argv.end(), { "attach", "--device", attachDevice });
	argv.insert(argv.end(), { "--cookie", config.cookie, "--reattach-timeout",
				  std::to_string(config.reattachTimeout), "--io-timeout",
				  std::to_string(config.ioTimeout) });
	if (config.readOnly)
		argv.emplace_back("--read-only");
	if (config.exclusive)
		argv.emplace_back("--exclusive");
	for (const std::string &option : config.options) {
		const size_t eq = option.find('=');
		argv.push_back("--" + option.substr(0, eq));
		if (eq != std::string::npos)
			argv.push_back(option.substr(eq + 1));
	}
	argv.push_back(config.image);
	return argv;
}

/*
 * The kernel keeps a netlink device configured, holding its I/O, for
 * reattach-timeout seconds after its server died; a device with our cookie
 * is that one. Mapping instead would strand it and make a second device.
 */
std::vector<std::string> helperExecArgv(const NbdVolumeConfig &config, const SystemRoots &roots)
{
	const std::optional<std::string> device = nbdDeviceWithCookie(roots, config.cookie);
	return rbdNbdArgv(config, device.value_or(""));
}

std::optional<std::string> deviceToTimeOut(const NbdVolumeConfig &config, const SystemRoots &roots)
{
	if (config.ioTimeout != 0)
		return std::nullopt;
	return nbdDeviceWithCookie(roots, config.cookie);
}

Result<void> shortenRequestTimer(const NbdVolumeConfig &config, const SystemRoots &roots,
				 const std::string &device)
{
	if (config.ioTimeout != 0)
		return {};
	const std::string path =
		roots.sysfs + "/block/" + nbdDeviceName(device) + "/queue/io_timeout";
	const std::string value = std::to_string(RequestTimerMs);
	const UniqueFd fd(open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW));
	if (!fd.valid() || write(fd.get(), value.data(), value.size()) < 0)
		return failErrno("cannot write " + value + " to " + path, errno);
	return {};
}

} /* namespace rbdvolume */
