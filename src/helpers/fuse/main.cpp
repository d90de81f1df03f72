/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rbd-volume-fuse-helper NAME: what rbd-fuse@NAME.service runs (and, with
 * --follow-size, its reload: the loop follows a grown image). It reads the
 * volume's config, prepares its private mount point (clearing a FUSE mount
 * left dead by a crashed rbd-fuse), and execs rbd-fuse in the foreground so
 * systemd supervises rbd-fuse itself.
 */
#include <cerrno>
#include <cstdio>
#include <string>
#include <unistd.h>
#include <vector>

#include <sys/mount.h>
#include <sys/stat.h>

#include "common/c_strings.hpp"
#include "common/errno_text.hpp"
#include "common/fs_util.hpp"
#include "common/paths.hpp"
#include "common/volume_name.hpp"
#include "host/drivers/fuse/fuse_mapper.hpp"
#include "host/drivers/fuse/fuse_volume.hpp"

namespace {

int usage()
{
	std::fprintf(stderr,
		     "Usage: rbd-volume-fuse-helper [--runtime-dir DIR] [--rbd-fuse PATH] NAME\n"
		     "       rbd-volume-fuse-helper [--runtime-dir DIR] --follow-size NAME\n");
	return 2;
}

} /* namespace */

namespace rbdvolume {
namespace {

int runHelper(int argc, char *argv[])
{
	std::string runtimeDir(paths::FuseRuntimeDir);
	std::string rbdFuse = "/usr/bin/rbd-fuse";
	std::string name;
	bool followSize = false;
	const std::vector<std::string> args(argv + 1, argv + argc);
	for (size_t i = 0; i < args.size(); i++) {
		if (args[i] == "--follow-size")
			followSize = true;
		else if (args[i] == "--runtime-dir" && i + 1 < args.size())
			runtimeDir = args[++i];
		else if (args[i] == "--rbd-fuse" && i + 1 < args.size())
			rbdFuse = args[++i];
		else if (name.empty() && !args[i].empty() && args[i].front() != '-')
			name = args[i];
		else
			return usage();
	}
	if (name.empty())
		return usage();
	if (const auto problem = volumeNameProblem(name)) {
		std::fprintf(stderr, "rbd-volume-fuse-helper: '%s': %s\n", name.c_str(),
			     problem->c_str());
		return 2;
	}

	const FusePaths paths{ runtimeDir };
	if (followSize) {
		auto followed = followLoopSize(paths, name);
		if (!followed) {
			std::fprintf(stderr, "rbd-volume-fuse-helper: %s\n",
				     followed.error().message.c_str());
			return 1;
		}
		if (*followed == Change::Changed)
			std::fprintf(stderr,
				     "rbd-volume-fuse-helper: %s: the loop device follows the "
				     "grown image\n",
				     name.c_str());
		return 0;
	}
	auto text = readFile(paths.config(name));
	if (!text || !*text) {
		std::fprintf(stderr, "rbd-volume-fuse-helper: cannot read %s\n",
			     paths.config(name).c_str());
		return 1;
	}
	auto volume = parseFuseVolume(**text, paths.config(name));
	if (!volume) {
		std::fprintf(stderr, "rbd-volume-fuse-helper: %s\n",
			     volume.error().message.c_str());
		return 1;
	}

	/* A crashed rbd-fuse leaves its mount behind, dead: clear it so ours can mount. */
	const std::string mountPoint = paths.mountPoint(name);
	struct stat st {
	};
	if (stat(mountPoint.c_str(), &st) < 0 && errno == ENOTCONN)
		(void)umount2(mountPoint.c_str(), MNT_DETACH);
	if (auto made = makeDirectories(mountPoint, 0700); !made) {
		std::fprintf(stderr, "rbd-volume-fuse-helper: %s\n", made.error().message.c_str());
		return 1;
	}

	/* exec keeps the pid: so the daemon knows rbd-fuse's without asking systemd. */
	if (auto written =
		    writeFileAtomic(paths.pidFile(name), std::to_string(getpid()) + "\n", 0600);
	    !written) {
		std::fprintf(stderr, "rbd-volume-fuse-helper: %s\n",
			     written.error().message.c_str());
		return 1;
	}
	std::vector<std::string> fuseArgv = rbdFuseArgv(rbdFuse, *volume, mountPoint);
	std::vector<std::string> env = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C" };
	for (std::string &e : rbdFuseEnv(*volume))
		env.push_back(std::move(e));
	const std::vector<char *> cArgv = cStrings(fuseArgv);
	const std::vector<char *> cEnv = cStrings(env);
	execve(cArgv.front(), cArgv.data(), cEnv.data());
	std::fprintf(stderr, "rbd-volume-fuse-helper: cannot run %s: %s\n", rbdFuse.c_str(),
		     errnoText(errno).c_str());
	return 1;
}

} /* namespace */
} /* namespace rbdvolume */

int main(int argc, char *argv[])
{
	return rbdvolume::runHelper(argc, argv);
}
