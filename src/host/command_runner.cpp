/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/command_runner.hpp"

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <poll.h>
#include <spawn.h>
#include <string_view>
#include <system_error>
#include <thread>
#include <unistd.h>

#include <sys/wait.h>

#include "common/c_strings.hpp"
#include "common/errno_text.hpp"
#include "common/unique_fd.hpp"

namespace rbdvolume {

namespace {

using Clock = std::chrono::steady_clock;

struct Pipe {
	UniqueFd read;
	UniqueFd write;
};

Result<Pipe> makePipe()
{
	std::array<int, 2> fds{};
	if (pipe2(fds.data(), O_CLOEXEC) < 0)
		return failErrno("pipe2", errno);
	return Pipe{ UniqueFd(fds[0]), UniqueFd(fds[1]) };
}

/* Spawn attributes: own process group, default signal dispositions, empty mask. */
class SpawnSetup
{
public:
	SpawnSetup()
	{
		posix_spawnattr_init(&attr_);
		posix_spawn_file_actions_init(&actions_);
	}
	~SpawnSetup()
	{
		posix_spawnattr_destroy(&attr_);
		posix_spawn_file_actions_destroy(&actions_);
	}
	SpawnSetup(const SpawnSetup &) = delete;
	SpawnSetup &operator=(const SpawnSetup &) = delete;
	SpawnSetup(SpawnSetup &&) = delete;
	SpawnSetup &operator=(SpawnSetup &&) = delete;

	int prepare(int outFd, int errFd)
	{
		sigset_t all;
		sigset_t none;
		sigfillset(&all);
		sigemptyset(&none);
		int r = posix_spawnattr_setflags(&attr_, POSIX_SPAWN_SETPGROUP |
								 POSIX_SPAWN_SETSIGDEF |
								 POSIX_SPAWN_SETSIGMASK);
		if (r == 0)
			r = posix_spawnattr_setpgroup(&attr_, 0);
		if (r == 0)
			r = posix_spawnattr_setsigdefault(&attr_, &all);
		if (r == 0)
			r = posix_spawnattr_setsigmask(&attr_, &none);
		if (r == 0)
			r = posix_spawn_file_actions_addopen(&actions_, STDIN_FILENO, "/dev/null",
							     O_RDONLY, 0);
		if (r == 0)
			r = posix_spawn_file_actions_adddup2(&actions_, outFd, STDOUT_FILENO);
		if (r == 0)
			r = posix_spawn_file_actions_adddup2(&actions_, errFd, STDERR_FILENO);
		return r;
	}

	const posix_spawnattr_t *attr() const { return &attr_; }
	const posix_spawn_file_actions_t *actions() const { return &actions_; }

private:
	posix_spawnattr_t attr_{};
	posix_spawn_file_actions_t actions_{};
};

void append(std::string &buffer, const char *data, size_t size)
{
	const size_t room =
		CommandOutput::OutputLimit - std::min(buffer.size(), CommandOutput::OutputLimit);
	buffer.append(data, std::min(size, room));
}

/* Drains both pipes until EOF or the deadline; false on timeout. */
bool collect(int outFd, int errFd, Clock::time_point deadline, CommandOutput &output)
{
	std::array<pollfd, 2> fds = { pollfd{ outFd, POLLIN, 0 }, pollfd{ errFd, POLLIN, 0 } };
	std::array<char, 4096> buffer{};
	size_t open = 2;
	while (open > 0) {
		const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
			deadline - Clock::now());
		if (left.count() <= 0)
			return false;
		const int ready = poll(fds.data(), fds.size(), static_cast<int>(left.count()));
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0)
			return false; /* timed out, or poll broke: either way the group is killed */
		for (size_t i = 0; i < fds.size(); i++) {
			if (fds.at(i).fd < 0 || fds.at(i).revents == 0)
				continue;
			const ssize_t n = read(fds.at(i).fd, buffer.data(), buffer.size());
			if (n > 0) {
				append(i == 0 ? output.out : output.err, buffer.data(),
				       static_cast<size_t>(n));
			} else if (n == 0 || errno != EINTR) {
				fds.at(i).fd = -1;
				open--;
			}
		}
	}
	return true;
}

/* After SIGKILL: how long a tool may take to be gone before it is left to a reaper. */
constexpr std::chrono::seconds KilledGrace{ 5 };

/* The exit status once `pid` is gone by `deadline`; nullopt while it is not. */
std::optional<int> reapBy(pid_t pid, Clock::time_point deadline)
{
	for (;;) {
		int status = 0;
		const pid_t done = waitpid(pid, &status, WNOHANG);
		if (done == pid || (done < 0 && errno != EINTR))
			return status;
		if (Clock::now() >= deadline)
			return std::nullopt;
		std::this_thread::sleep_for(std::chrono::milliseconds(5));
	}
}

/*
 * A tool killed while it waits in the kernel on a device that does not
 * answer (a read through a dead nbd connection) cannot die until the
 * kernel lets it: a thread of its own reaps it then, and the caller goes on.
 */
void leaveToReaper(pid_t pid)
{
	try {
		std::thread([pid] {
			int status = 0;
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
			}
		}).detach();
	} catch (const std::system_error &) {
		/* No thread: it stays a zombie until the daemon exits. */
	}
}

/*
 * The line that says what went wrong: the last one, unless a usage text
 * follows the error (mkfs.xfs prints "Filesystem must be larger than 300MB."
 * and then forty lines of usage): then the last line before "Usage:".
 */
std::string telling(std::string_view text)
{
	size_t usage = text.find("\nUsage:");
	if (usage == std::string_view::npos)
		usage = text.find("\nusage:");
	if (usage != std::string_view::npos)
		text = text.substr(0, usage);
	else if (text.starts_with("Usage:") || text.starts_with("usage:"))
		text = text.substr(0, text.find('\n'));
	while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
		text.remove_suffix(1);
	const size_t newline = text.rfind('\n');
	return std::string(newline == std::string_view::npos ? text : text.substr(newline + 1));
}

} /* namespace */

std::string quoteArgv(const std::vector<std::string> &argv)
{
	std::string out;
	for (const std::string &arg : argv) {
		if (!out.empty())
			out += ' ';
		out += '\'' + arg + '\'';
	}
	return out;
}

std::string CommandOutput::describe() const
{
	std::string text = termSignal != 0 ? "killed by signal " + std::to_string(termSignal)
					   : "exit status " + std::to_string(exitStatus);
	const std::string last = telling(err.empty() ? out : err);
	if (!last.empty())
		text += ": " + last;
	return text;
}

Result<CommandOutput> PosixCommandRunner::run(const Command &command)
{
	if (command.argv.empty())
		return fail(Errc::InvalidArgument, "empty command");
	auto out = makePipe();
	auto err = makePipe();
	if (!out || !err)
		return tl::make_unexpected(!out ? out.error() : err.error());

	SpawnSetup setup;
	if (const int r = setup.prepare(out->write.get(), err->write.get()); r != 0)
		return failErrno("posix_spawn setup", r);

	std::vector<std::string> argv = command.argv;
	std::vector<std::string> env = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C" };
	env.insert(env.end(), command.env.begin(), command.env.end());
	const std::vector<char *> cArgv = cStrings(argv);
	const std::vector<char *> cEnv = cStrings(env);

	pid_t pid = 0;
	const int r = posix_spawn(&pid, argv.front().c_str(), setup.actions(), setup.attr(),
				  cArgv.data(), cEnv.data());
	if (r != 0)
		return failErrno("cannot run '" + argv.front() + "'", r);
	out->write.reset();
	err->write.reset();

	CommandOutput output;
	const auto deadline = Clock::now() + command.timeout;
	bool finished = collect(out->read.get(), err->read.get(), deadline, output);
	/* Its output closed, it may still run: it has until the deadline to exit. */
	std::optional<int> status = finished ? reapBy(pid, deadline) : std::nullopt;
	finished = status.has_value();
	if (!finished) {
		kill(-pid, SIGKILL); /* the whole group: a tool's children die with it */
		status = reapBy(pid, Clock::now() + KilledGrace);
	}
	if (!status) {
		leaveToReaper(pid);
		return fail(Errc::Timeout,
			    "'" + argv.front() + "' did not finish within " +
				    std::to_string(command.timeout.count()) +
				    " ms and was killed, but has not exited yet (it waits in the "
				    "kernel, on a device that does not answer)",
			    ETIMEDOUT);
	}
	if (!finished)
		return fail(Errc::Timeout,
			    "'" + argv.front() + "' did not finish within " +
				    std::to_string(command.timeout.count()) + " ms and was killed",
			    ETIMEDOUT);

	if (WIFEXITED(*status))
		output.exitStatus = WEXITSTATUS(*status);
	else if (WIFSIGNALED(*status))
		output.termSignal = WTERMSIG(*status);
	return output;
}

} /* namespace rbdvolume */
