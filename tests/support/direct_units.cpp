/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "direct_units.hpp"

#include <chrono>
#include <csignal>
#include <spawn.h>
#include <thread>

#include <sys/wait.h>

#include "common/errno_text.hpp"

extern char **environ; /* NOLINT(readability-redundant-declaration): POSIX gives no header */

namespace rbdvolume::testing {

namespace {

bool exited(pid_t pid)
{
	int status = 0;
	return waitpid(pid, &status, WNOHANG) == pid;
}

/* SIGTERM, a grace period, then SIGKILL; always reaped. */
void terminate(pid_t pid)
{
	kill(pid, SIGTERM);
	const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
	while (std::chrono::steady_clock::now() < deadline) {
		if (exited(pid))
			return;
		std::this_thread::sleep_for(std::chrono::milliseconds(20));
	}
	kill(pid, SIGKILL);
	int status = 0;
	waitpid(pid, &status, 0);
}

} /* namespace */

void DirectUnits::define(const std::string &templateName, std::vector<std::string> argv)
{
	commands_[templateName] = std::move(argv);
}

DirectUnits::~DirectUnits()
{
	for (const auto &[unit, pid] : running_)
		terminate(pid);
}

pid_t DirectUnits::pid(const std::string &templateName, const std::string &instance) const
{
	const auto it = running_.find(unitName(templateName, instance));
	return it == running_.end() ? 0 : it->second;
}

Result<std::string> DirectUnits::activeState(const std::string &templateName,
					     const std::string &instance)
{
	/* Looked at, not reaped: start() and stop() still see how it ended. */
	const pid_t running = pid(templateName, instance);
	siginfo_t info{};
	const bool ended = running == 0 || (waitid(P_PID, static_cast<id_t>(running), &info,
						   WEXITED | WNOHANG | WNOWAIT) == 0 &&
					    info.si_pid == running);
	return std::string(ended ? "inactive" : "active");
}

Result<std::string> DirectUnits::result(const std::string & /*templateName*/,
					const std::string & /*instance*/)
{
	return std::string("success");
}

Result<void> DirectUnits::start(const std::string &templateName, const std::string &instance)
{
	const std::string unit = unitName(templateName, instance);
	if (const auto it = running_.find(unit); it != running_.end()) {
		if (!exited(it->second))
			return {};
		running_.erase(it);
	}
	const auto command = commands_.find(templateName);
	if (command == commands_.end())
		return fail(Errc::NotFound, "no unit template '" + templateName + "'");
	std::vector<std::string> argv = command->second;
	argv.push_back(instance);
	std::vector<char *> cArgv;
	cArgv.reserve(argv.size() + 1);
	for (std::string &arg : argv)
		cArgv.push_back(arg.data());
	cArgv.push_back(nullptr);

	posix_spawnattr_t attr;
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&attr, 0);
	pid_t pid = 0;
	const int r = posix_spawn(&pid, cArgv.front(), nullptr, &attr, cArgv.data(), environ);
	posix_spawnattr_destroy(&attr);
	if (r != 0)
		return fail(Errc::Io, "cannot start " + unit + ": " + errnoText(r), r);
	running_[unit] = pid;
	return {};
}

Result<void> DirectUnits::stop(const std::string &templateName, const std::string &instance)
{
	const auto it = running_.find(unitName(templateName, instance));
	if (it == running_.end())
		return {};
	terminate(it->second);
	running_.erase(it);
	return {};
}

Result<void> DirectUnits::reload(const std::string &templateName, const std::string &instance)
{
	const auto command = commands_.find(templateName);
	if (command == commands_.end())
		return fail(Errc::NotFound, "no unit template '" + templateName + "'");
	std::vector<std::string> argv = command->second;
	argv.emplace_back("--follow-size");
	argv.push_back(instance);
	std::vector<char *> cArgv;
	cArgv.reserve(argv.size() + 1);
	for (std::string &arg : argv)
		cArgv.push_back(arg.data());
	cArgv.push_back(nullptr);
	pid_t pid = 0;
	const int r = posix_spawn(&pid, cArgv.front(), nullptr, nullptr, cArgv.data(), environ);
	if (r != 0)
		return fail(Errc::Io,
			    "cannot reload " + unitName(templateName, instance) + ": " +
				    errnoText(r),
			    r);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return fail(Errc::Io, "reloading " + unitName(templateName, instance) + " failed");
	return {};
}

} /* namespace rbdvolume::testing */
