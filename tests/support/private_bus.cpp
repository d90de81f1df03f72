/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A private dbus-daemon for one test suite: its own socket in a temporary directory. */
#include "private_bus.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <poll.h>
#include <sstream>
#include <string_view>
#include <unistd.h>
#include <vector>

#include <sys/wait.h>

#include "common/c_strings.hpp"

namespace rbdvolume::testing {

namespace {

constexpr int StartTimeoutMs = 10000;

std::string busConfig(const std::string &dir, bool activation)
{
	return "<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration "
	       "1.0//EN\"\n"
	       " \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n"
	       "<busconfig>\n"
	       "  <type>session</type>\n"
	       "  <listen>unix:dir=" +
	       dir +
	       "</listen>\n"
	       "  <auth>EXTERNAL</auth>\n" +
	       (activation ? "  <servicedir>" + dir + "/services</servicedir>\n" : std::string()) +
	       "  <policy context=\"default\">\n"
	       "    <allow send_destination=\"*\" eavesdrop=\"true\"/>\n"
	       "    <allow eavesdrop=\"true\"/>\n"
	       "    <allow own=\"*\"/>\n"
	       "  </policy>\n"
	       "</busconfig>\n";
}

/* The first line dbus-daemon prints on `fd` (its address), waiting at most StartTimeoutMs. */
std::string readAddress(int fd)
{
	std::string text;
	char buffer[256];
	while (text.find('\n') == std::string::npos) {
		pollfd poller{ fd, POLLIN, 0 };
		const int ready = ::poll(&poller, 1, StartTimeoutMs);
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0)
			return {};
		const ssize_t got = ::read(fd, buffer, sizeof(buffer));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return {};
		text.append(buffer, static_cast<size_t>(got));
	}
	return text.substr(0, text.find('\n'));
}

} /* namespace */

bool integrationRequired()
{
	const char *value =
		std::getenv("RBDV_REQUIRE_INTEGRATION"); /* NOLINT(concurrency-mt-unsafe) */
	return value != nullptr && std::string_view(value) == "1";
}

std::string PrivateBus::program()
{
	if (const char *configured =
		    std::getenv("RBDV_DBUS_DAEMON"); /* NOLINT(concurrency-mt-unsafe) */
	    configured != nullptr && *configured != '\0')
		return ::access(configured, X_OK) == 0 ? configured : "";
	const char *path = std::getenv("PATH"); /* NOLINT(concurrency-mt-unsafe) */
	std::istringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
	std::string dir;
	while (std::getline(dirs, dir, ':')) {
		std::string candidate = (dir.empty() ? "." : dir) + "/dbus-daemon";
		if (::access(candidate.c_str(), X_OK) == 0)
			return candidate;
	}
	return {};
}

std::unique_ptr<PrivateBus> PrivateBus::start(std::string &problem,
					      const std::string &activationExec)
{
	const std::string binary = program();
	if (binary.empty()) {
		problem = "dbus-daemon is not installed (Debian: dbus)";
		return nullptr;
	}
	auto bus = std::make_unique<PrivateBus>();
	if (bus->dir_.path().empty()) {
		problem = "cannot make a temporary directory";
		return nullptr;
	}
	const std::string config = "bus.conf";
	bus->dir_.write(config, busConfig(bus->dir_.path(), !activationExec.empty()));
	if (!activationExec.empty())
		bus->dir_.write("services/org.rbdvolume1.service",
				"[D-BUS Service]\nName=org.rbdvolume1\nExec=" + activationExec +
					"\n");

	int pipeFds[2];
	if (::pipe2(pipeFds, O_CLOEXEC) < 0) {
		problem = "pipe failed";
		return nullptr;
	}
	std::vector<std::string> args = { binary,
					  "--config-file=" + bus->dir_.path() + "/" + config,
					  "--nofork", "--print-address=3" };
	std::vector<char *> argv = cStrings(args);
	const pid_t pid = ::fork();
	if (pid == 0) {
		/* fd 3 is the pipe (without O_CLOEXEC); dbus-daemon's chatter goes nowhere. */
		if (pipeFds[1] == 3)
			::fcntl(3, F_SETFD, 0);
		else
			::dup2(pipeFds[1], 3);
		const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
		::dup2(null, STDIN_FILENO);
		::dup2(null, STDOUT_FILENO);
		::dup2(null, STDERR_FILENO);
		::execv(binary.c_str(), argv.data());
		::_exit(127);
	}
	::close(pipeFds[1]);
	if (pid < 0) {
		::close(pipeFds[0]);
		problem = "fork failed";
		return nullptr;
	}
	bus->pid_ = pid;
	bus->address_ = readAddress(pipeFds[0]);
	::close(pipeFds[0]);
	if (bus->address_.empty()) {
		problem = binary + " printed no address";
		return nullptr;
	}
	return bus;
}

PrivateBus::~PrivateBus()
{
	if (pid_ <= 0)
		return;
	::kill(pid_, SIGTERM);
	int status = 0;
	while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
	}
}

} /* namespace rbdvolume::testing */
