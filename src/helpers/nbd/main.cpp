/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rbd-volume-nbd-helper: execs the volume's rbd-nbd (ExecStart=), waits for
 * its device (ExecStartPost=), or times out what its dead server held (ExecStopPost=).
 */
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include "common/c_strings.hpp"
#include "common/errno_text.hpp"
#include "common/fs_util.hpp"
#include "host/drivers/nbd/nbd_devices.hpp"
#include "host/drivers/nbd/nbd_helper.hpp"
#include "host/drivers/nbd/nbd_netlink.hpp"

namespace rbdvolume {
namespace {

void say(const std::string &text)
{
	std::fprintf(stderr, "rbd-volume-nbd-helper: %s\n", text.c_str());
}

std::string joined(const std::vector<std::string> &argv)
{
	std::string out;
	for (const std::string &arg : argv)
		out += (out.empty() ? "" : " ") + arg;
	return out;
}

/*
 * ExecStartPost=: the unit becomes active once the device carries our
 * cookie. systemd bounds the wait (TimeoutStartSec=) and ends it when
 * rbd-nbd exits. A device that rbd-nbd's process ($MAINPID) connected
 * without a backend came through the ioctl interface: fail the start, and
 * the stop that follows tears that device down before anything mounts it.
 */
int waitReady(const NbdVolumeConfig &config, const SystemRoots &roots)
{
	/* Read once, before any thread exists. */
	const char *env = std::getenv("MAINPID"); /* NOLINT(concurrency-mt-unsafe) */
	const std::string mainPid = env != nullptr ? env : "";
	const NbdCheck check = waitForNbd(
		[&] { return checkNbd(roots, config.cookie, nbdDevicesOfPid(roots, mainPid)); },
		std::chrono::steady_clock::time_point::max(), std::chrono::milliseconds(100));
	if (check.state == NbdState::Ready) {
		say(config.image + " is ready on " + check.device);
		if (auto shortened = shortenRequestTimer(config, roots, check.device); !shortened)
			say(shortened.error().message +
			    " (requests held across a restart of rbd-nbd "
			    "are resent after 30 s)");
		return EXIT_SUCCESS;
	}
	say(config.image + " came up on " + check.device +
	    " without a backend cookie (the ioctl interface, or a kernel before 5.14): "
	    "it would not survive a restart of rbd-nbd");
	return EXIT_FAILURE;
}

/*
 * ExecStopPost=: rbd-nbd has exited, by a stop, a crash or a kill. When its
 * device outlived it, requests in flight on it must not wait for a server
 * for ever (see deviceToTimeOut). A restart's attach sets the spec's
 * io-timeout again. Failing here only logs: the unit ignores the status.
 */
int afterExit(const NbdVolumeConfig &config, const SystemRoots &roots)
{
	const std::optional<std::string> device = deviceToTimeOut(config, roots);
	if (!device)
		return EXIT_SUCCESS;
	if (auto set = setNbdRequestTimeout(*device, config.cookie, DeadServerTimeoutSec); !set) {
		say(set.error().message + ": a request in flight on " + *device +
		    " waits until a server attaches");
		return EXIT_FAILURE;
	}
	say("nothing serves " + *device + ": its requests fail after the reattach timeout (" +
	    std::to_string(config.reattachTimeout) + " s) unless a server attaches");
	return EXIT_SUCCESS;
}

/* exec, not fork: systemd then supervises rbd-nbd itself, and its argv names the image. */
int execRbdNbd(const NbdVolumeConfig &config, const SystemRoots &roots)
{
	std::vector<std::string> argv = helperExecArgv(config, roots);
	say("exec " + joined(argv));
	const std::vector<char *> cArgv = cStrings(argv);
	execv(cArgv.front(), cArgv.data());
	say("cannot run " + argv.front() + ": " + errnoText(errno));
	return EXIT_FAILURE;
}

int helperMain(const std::vector<std::string> &args)
{
	auto parsed = parseHelperArgs(args);
	if (!parsed) {
		say(parsed.error().message);
		return HelperUsageExit;
	}
	const std::string path = nbdConfigPath(parsed->configDir, parsed->volume);
	auto text = readFile(path);
	if (!text || !*text) {
		say(text ? path + " does not exist: rbd-volumed writes it before starting the unit"
			 : text.error().message);
		return HelperConfigExit;
	}
	auto config = parseNbdConfig(**text, path);
	if (!config) {
		say(config.error().message);
		return HelperConfigExit;
	}
	const SystemRoots roots{ parsed->sysfs, "/proc" };
	switch (parsed->mode) {
	case HelperMode::Wait:
		return waitReady(*config, roots);
	case HelperMode::AfterExit:
		return afterExit(*config, roots);
	case HelperMode::Exec:
		break;
	}
	return execRbdNbd(*config, roots);
}

} /* namespace */
} /* namespace rbdvolume */

int main(int argc, char **argv)
{
	return rbdvolume::helperMain(std::vector<std::string>(argv + 1, argv + argc));
}
