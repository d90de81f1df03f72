/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Runs the built rbd-volumectl ($RBDV_CTL) and collects what it printed and its exit code. */
#include "run_ctl.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <poll.h>
#include <string_view>
#include <unistd.h>

#include <sys/wait.h>

#include "common/c_strings.hpp"

extern char **environ; /* NOLINT(readability-redundant-declaration): POSIX gives no header */

namespace rbdvolume::testing {

namespace {

constexpr auto RunLimit = std::chrono::seconds(20);

/* Reads `fd` to its end or until `deadline`; false when the deadline came first. */
bool drainUntil(int fd, std::string &text, std::chrono::steady_clock::time_point deadline)
{
	char buffer[4096];
	for (;;) {
		const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
			deadline - std::chrono::steady_clock::now());
		if (left.count() <= 0)
			return false;
		pollfd poller{ fd, POLLIN, 0 };
		const int ready = ::poll(&poller, 1, static_cast<int>(left.count()));
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0)
			return ready != 0; /* an error: give up reading */
		const ssize_t got = ::read(fd, buffer, sizeof(buffer));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return true;
		text.append(buffer, static_cast<size_t>(got));
	}
}

std::string readAll(int fd)
{
	std::string text;
	char buffer[4096];
	::lseek(fd, 0, SEEK_SET);
	for (;;) {
		const ssize_t got = ::read(fd, buffer, sizeof(buffer));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		text.append(buffer, static_cast<size_t>(got));
	}
	return text;
}

/* An unlinked temporary file. */
int openScratchFile()
{
	char path[] = "/tmp/rbdv-ctl-test-XXXXXX";
	const int fd = ::mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		::unlink(path);
	return fd;
}

/* The master side of a new pseudo-terminal; `slavePath` names the other side. */
int openTerminal(std::string &slavePath)
{
	const int master = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	char name[128];
	if (master < 0 || ::grantpt(master) < 0 || ::unlockpt(master) < 0 ||
	    ::ptsname_r(master, name, sizeof(name)) != 0) {
		if (master >= 0)
			::close(master);
		return -1;
	}
	slavePath = name;
	return master;
}

/* What was written to the terminal, its "\r\n" line ends made "\n". */
std::string readTerminal(int master)
{
	std::string text;
	char buffer[4096];
	for (;;) {
		pollfd poller{ master, POLLIN, 0 };
		if (::poll(&poller, 1, 0) <= 0)
			break;
		const ssize_t got = ::read(master, buffer, sizeof(buffer));
		if (got <= 0) /* EIO once the other side is closed and drained */
			break;
		text.append(buffer, static_cast<size_t>(got));
	}
	std::string plain;
	for (const char c : text) {
		if (c != '\r')
			plain += c;
	}
	return plain;
}

/* This process's environment with DBUS_SYSTEM_BUS_ADDRESS replaced. */
std::vector<std::string> childEnvironment(const std::string &busAddress)
{
	std::vector<std::string> env;
	for (char **entry = environ; *entry != nullptr; entry++) {
		const std::string_view text = *entry;
		if (!text.starts_with("DBUS_SYSTEM_BUS_ADDRESS="))
			env.emplace_back(text);
	}
	env.push_back("DBUS_SYSTEM_BUS_ADDRESS=" + busAddress);
	return env;
}

} /* namespace */

std::string ctlPath()
{
	const char *path = std::getenv("RBDV_CTL"); /* NOLINT(concurrency-mt-unsafe) */
	return path != nullptr ? path : "";
}

CtlResult runCtl(const std::string &busAddress, const std::vector<std::string> &args,
		 const std::vector<std::string> &extraEnv, bool stderrTerminal)
{
	std::vector<std::string> argv = { ctlPath() };
	argv.insert(argv.end(), args.begin(), args.end());
	std::vector<std::string> env = childEnvironment(busAddress);
	env.insert(env.end(), extraEnv.begin(), extraEnv.end());
	std::vector<char *> cargv = cStrings(argv);
	std::vector<char *> cenv = cStrings(env);

	int out[2];
	if (::pipe2(out, O_CLOEXEC) < 0)
		return {};
	std::string terminalPath;
	const int errFd = stderrTerminal ? openTerminal(terminalPath) : openScratchFile();
	if (errFd < 0)
		return {};

	const pid_t pid = ::fork();
	if (pid == 0) {
		::dup2(out[1], STDOUT_FILENO);
		if (stderrTerminal)
			::dup2(::open(terminalPath.c_str(), O_RDWR | O_NOCTTY | O_CLOEXEC),
			       STDERR_FILENO);
		else
			::dup2(errFd, STDERR_FILENO);
		const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
		::dup2(null, STDIN_FILENO);
		::execve(cargv[0], cargv.data(), cenv.data());
		::_exit(127);
	}
	::close(out[1]);
	CtlResult result;
	const bool finished =
		drainUntil(out[0], result.out, std::chrono::steady_clock::now() + RunLimit);
	::close(out[0]);
	if (pid < 0) {
		::close(errFd);
		return result;
	}
	if (!finished)
		::kill(pid, SIGKILL);
	int status = 0;
	while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
	}
	result.exitCode = finished && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	result.err = stderrTerminal ? readTerminal(errFd) : readAll(errFd);
	::close(errFd);
	return result;
}

} /* namespace rbdvolume::testing */
