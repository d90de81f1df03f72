/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The ceph suite's main: starts one throw-away cluster (test-cluster.sh) in a
 * scratch directory, runs the tests against it as client.test, then deletes
 * it. A guardian process forked first (before any librados state exists)
 * deletes it too if this process dies on a signal or a crash. Without root
 * or the Ceph daemons it exits 77 (meson: SKIP) -- unless RBDV_REQUIRE_CEPH=1,
 * as in CI, where that is a failure. RBDV_CEPH_KEEP=1 keeps the (stopped)
 * cluster directory for a look at its logs.
 */
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sched.h>
#include <string>
#include <unistd.h>
#include <vector>

#include <sys/mount.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include "cluster_harness.hpp"
#include "common/errno_text.hpp"
#include "common/unique_fd.hpp"
#include "integration_env.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

namespace {

constexpr int ExitSkip = 77;
/* AF_UNIX admin socket paths below DIR/run must fit in 108 bytes. */
constexpr size_t LongestDir = 64;

bool envIs(const char *name, const char *value)
{
	const char *set = std::getenv(name);
	return set && std::string(set) == value;
}

int cannotRun(const std::string &why)
{
	const bool mustRun = envIs("RBDV_REQUIRE_CEPH", "1");
	std::fprintf(stderr, "ceph suite %s: %s\n", mustRun ? "FAILED" : "skipped", why.c_str());
	return mustRun ? EXIT_FAILURE : ExitSkip;
}

std::string missingTool()
{
	for (const char *tool : { "ceph-mon", "ceph-osd", "ceph", "rados", "rbd", "ceph-authtool",
				  "monmaptool", "ceph-conf", "ss", "timeout" }) {
		if (rbdvolume::testing::findTool(tool).empty())
			return tool;
	}
	return {};
}

std::string harnessScript()
{
	const char *script = std::getenv("RBDV_CEPH_HARNESS");
	return script ? script : "";
}

/* A fresh directory in the build tree (short enough for sockets), else in /tmp. */
std::string makeScratchDir()
{
	const char *base = std::getenv("RBDV_CEPH_SCRATCH");
	std::vector<std::string> bases;
	if (base && base[0] == '/' && std::strlen(base) + 18 <= LongestDir)
		bases.emplace_back(base);
	bases.emplace_back("/tmp");
	for (const std::string &candidate : bases) {
		std::string dir = candidate + "/rbdv-ceph-XXXXXX";
		if (mkdtemp(dir.data()))
			return dir;
	}
	return {};
}

/* A free port from the kernel's ephemeral range: never the OSDs' 6800-7300. */
int freePort(rbdvolume::UniqueFd &holder)
{
	holder = rbdvolume::UniqueFd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
	sockaddr_in address{};
	address.sin_family = AF_INET;
	address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t size = sizeof(address);
	auto *generic = reinterpret_cast<sockaddr *>(&address);
	if (!holder.valid() || bind(holder.get(), generic, size) != 0 ||
	    getsockname(holder.get(), generic, &size) != 0)
		return -1;
	return ntohs(address.sin_port);
}

/*
 * Forked before librados exists, in its own session so that a signal to the
 * test's process group spares it: when the pipe closes without a 'k'
 * (the test died), it purges the cluster.
 */
int startGuardian(const std::string &script, const std::string &dir)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0)
		return -1;
	const pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid > 0) {
		close(fds[0]);
		return fds[1];
	}
	close(fds[1]);
	/* Keep nothing of the test's but the pipe, so nobody waits on us for EOF. */
	dup2(fds[0], 3);
	close_range(4, ~0U, 0);
	setsid();
	for (const int sig : { SIGINT, SIGTERM, SIGHUP, SIGPIPE })
		std::signal(sig, SIG_IGN);
	const int devNull = open("/dev/null", O_RDWR);
	for (int fd = 0; fd <= 2; ++fd)
		dup2(devNull, fd);
	char byte = 0;
	ssize_t got = 0;
	do
		got = read(3, &byte, 1);
	while (got < 0 && errno == EINTR);
	if (got == 1 && byte == 'k')
		_exit(0);
	execl("/bin/bash", "bash", script.c_str(), "purge", dir.c_str(),
	      static_cast<char *>(nullptr));
	_exit(127);
}

void releaseGuardian(int fd)
{
	const char keep = 'k';
	(void)!write(fd, &keep, 1);
	close(fd);
}

} /* namespace */

int main(int argc, char **argv)
{
	::testing::InitGoogleTest(&argc, argv);

	if (geteuid() != 0)
		return cannotRun("needs root to run ceph-mon and ceph-osd");
	if (const std::string tool = missingTool(); !tool.empty())
		return cannotRun(tool +
				 " not found (Debian: ceph-mon ceph-osd ceph-common iproute2)");
	const std::string script = harnessScript();
	if (script.empty() || access(script.c_str(), R_OK) != 0)
		return cannotRun("RBDV_CEPH_HARNESS does not name test-cluster.sh");

	/* The fuse tests mount: keep every mount in a private namespace on a tmpfs scratch. */
	if (unshare(CLONE_NEWNS) != 0 ||
	    mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
		return cannotRun(std::string("a private mount namespace: ") +
				 rbdvolume::errnoText(errno));
	if (const std::string scratch = rbdvolume::testing::setUpScratch(); !scratch.empty())
		return cannotRun(scratch);

	const std::string dir = makeScratchDir();
	if (dir.empty())
		return cannotRun(std::string("cannot make a scratch directory: ") +
				 rbdvolume::errnoText(errno));
	const int guardian = startGuardian(script, dir);
	if (guardian < 0)
		return cannotRun(std::string("cannot fork the guardian: ") +
				 rbdvolume::errnoText(errno));

	rbdvolume::UniqueFd holdV2;
	rbdvolume::UniqueFd holdV1;
	const int portV2 = freePort(holdV2);
	const int portV1 = freePort(holdV1);
	holdV2.reset();
	holdV1.reset();

	rbdvolume::testing::ClusterHarness harness(script, dir);
	rbdvolume::testing::setCluster(&harness);
	std::fprintf(stderr, "ceph suite: starting a test cluster in %s\n", dir.c_str());
	if (const std::string error = harness.start(portV2, portV1); !error.empty()) {
		std::fprintf(stderr, "ceph suite FAILED: the test cluster did not start: %s\n",
			     error.c_str());
		(void)harness.purge();
		releaseGuardian(guardian);
		return EXIT_FAILURE;
	}

	const int result = RUN_ALL_TESTS();

	const bool keep = envIs("RBDV_CEPH_KEEP", "1");
	const std::string error = keep ? harness.stop() : harness.purge();
	if (!error.empty())
		std::fprintf(stderr, "ceph suite: tearing the cluster down: %s\n", error.c_str());
	else if (keep)
		std::fprintf(stderr, "ceph suite: the stopped cluster is kept in %s\n",
			     dir.c_str());
	releaseGuardian(guardian);
	rbdvolume::testing::tearDownScratch();
	return error.empty() ? result : EXIT_FAILURE;
}
