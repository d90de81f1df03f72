/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "integration_env.hpp"

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>

#include <sys/mount.h>

#include "common/errno_text.hpp"
#include "common/paths.hpp"
#include "host/drivers/fuse/loop_device.hpp"

namespace rbdvolume::testing {

namespace {

std::string &scratch()
{
	static std::string dir;
	return dir;
}

} /* namespace */

std::string setUpScratch()
{
	std::string dir = std::filesystem::temp_directory_path().string() + "/rbdv-it-XXXXXX";
	if (!mkdtemp(dir.data()))
		return std::string("mkdtemp: ") + errnoText(errno);
	/* The tmpfs dies with the namespace: nothing to clean when a test crashes. */
	if (mount("rbdv-scratch", dir.c_str(), "tmpfs", 0, "mode=0755,size=8g") != 0)
		return std::string("mounting the scratch tmpfs: ") + errnoText(errno);
	scratch() = dir;
	const std::string utab = dir + "/utab";
	/* NOLINTNEXTLINE(concurrency-mt-unsafe): main() calls this before any thread starts */
	setenv("LIBMOUNT_UTAB", utab.c_str(), 1);
	return {};
}

const std::string &scratchDir()
{
	return scratch();
}

std::string freshDir(const std::string &name)
{
	std::string dir = scratch() + "/" + name;
	std::filesystem::remove_all(dir);
	std::filesystem::create_directories(dir);
	return dir;
}

void tearDownScratch()
{
	detachOurLoops();
	/* Lazily: mounts a failed test left below the scratch go with it. */
	(void)umount2(scratch().c_str(), MNT_DETACH);
	(void)rmdir(scratch().c_str());
}

void detachOurLoops()
{
	auto loops = listLoops();
	if (!loops)
		return;
	for (const LoopInfo &loop : *loops) {
		if (paths::isSameOrBelow(loop.backingFile, scratch()))
			(void)detachLoop(loop.device);
	}
}

} /* namespace rbdvolume::testing */
