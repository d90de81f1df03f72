/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "image_holder.hpp"

#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include <sys/wait.h>

#include "cluster_harness.hpp"
#include "common/errno_text.hpp"

namespace rbdvolume::testing {

namespace {

constexpr int ReadySeconds = 30;

std::string holderPath()
{
	const char *path = std::getenv("RBDV_CEPH_HOLDER");
	return path ? path : "";
}

/* Reads from fd until "ready\n" or the deadline; "" when ready. */
std::string waitForReady(int fd)
{
	std::string seen;
	const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(ReadySeconds);
	while (seen.find("ready\n") == std::string::npos) {
		const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
			deadline - std::chrono::steady_clock::now());
		if (left.count() <= 0)
			return "rbdv-ceph-holder was not ready within " +
			       std::to_string(ReadySeconds) + " s";
		pollfd entry{ fd, POLLIN, 0 };
		if (poll(&entry, 1, static_cast<int>(left.count())) <= 0)
			continue;
		std::array<char, 256> buffer{};
		const ssize_t got = read(fd, buffer.data(), buffer.size());
		if (got <= 0)
			return "rbdv-ceph-holder exited before it was ready (see its stderr above)";
		seen.append(buffer.data(), static_cast<size_t>(got));
	}
	return {};
}

} /* namespace */

std::string ImageHolder::hold(const std::string &image)
{
	const std::string path = holderPath();
	if (path.empty())
		return "RBDV_CEPH_HOLDER does not name rbdv-ceph-holder";
	int toChild[2];
	int fromChild[2];
	if (pipe2(toChild, O_CLOEXEC) != 0 || pipe2(fromChild, O_CLOEXEC) != 0)
		return std::string("pipe2: ") + errnoText(errno);
	UniqueFd childIn(toChild[0]);
	UniqueFd childOut(fromChild[1]);
	input_ = UniqueFd(toChild[1]);
	output_ = UniqueFd(fromChild[0]);

	const ClusterEnv &env = cluster().env();
	std::vector<std::string> args = { path,	    env.conf, env.testId, env.testKeyring,
					  env.pool, image };
	std::vector<char *> argv;
	argv.reserve(args.size() + 1);
	for (std::string &arg : args)
		argv.push_back(arg.data());
	argv.push_back(nullptr);

	posix_spawn_file_actions_t actions;
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_adddup2(&actions, childIn.get(), STDIN_FILENO);
	posix_spawn_file_actions_adddup2(&actions, childOut.get(), STDOUT_FILENO);
	const int ret = posix_spawn(&pid_, path.c_str(), &actions, nullptr, argv.data(), environ);
	posix_spawn_file_actions_destroy(&actions);
	if (ret != 0) {
		pid_ = -1;
		return "spawning " + path + ": " + errnoText(ret);
	}
	childOut.reset(); /* so that its exit is EOF here */
	return waitForReady(output_.get());
}

void ImageHolder::reap(int seconds)
{
	for (int i = 0; i < seconds * 10; ++i) {
		if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
			pid_ = -1;
			return;
		}
		std::this_thread::sleep_for(std::chrono::milliseconds(100));
	}
	::kill(pid_, SIGKILL);
	(void)waitpid(pid_, nullptr, 0);
	pid_ = -1;
}

void ImageHolder::release()
{
	if (pid_ < 0)
		return;
	input_.reset();
	reap(15);
	output_.reset();
}

void ImageHolder::kill()
{
	if (pid_ < 0)
		return;
	::kill(pid_, SIGKILL);
	reap(5);
	input_.reset();
	output_.reset();
}

} /* namespace rbdvolume::testing */
