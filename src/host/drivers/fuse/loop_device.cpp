/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/drivers/fuse/loop_device.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "common/bounded_call.hpp"
#include "common/errno_text.hpp"
#include "common/fs_util.hpp"
#include "common/unique_fd.hpp"
#include "host/device_claim.hpp"
#include "host/proc_mount_table.hpp"

namespace rbdvolume {

namespace {

std::string trimmed(std::string text)
{
	while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
		text.pop_back();
	return text;
}

} /* namespace */

Result<std::string> attachLoop(const std::string &file, bool readOnly)
{
	const UniqueFd backing(open(file.c_str(), (readOnly ? O_RDONLY : O_RDWR) | O_CLOEXEC));
	if (!backing.valid())
		return failErrno("cannot open '" + file + "'", errno);
	const UniqueFd control(open("/dev/loop-control", O_RDWR | O_CLOEXEC));
	if (!control.valid())
		return failErrno("cannot open /dev/loop-control", errno);

	/* Another attacher may win the free device between GET_FREE and CONFIGURE: retry. */
	for (int attempt = 0; attempt < 16; attempt++) {
		const int number = ioctl(control.get(), LOOP_CTL_GET_FREE);
		if (number < 0)
			return failErrno("no free loop device", errno);
		std::string device = "/dev/loop" + std::to_string(number);
		const UniqueFd loop(
			open(device.c_str(), (readOnly ? O_RDONLY : O_RDWR) | O_CLOEXEC));
		if (!loop.valid())
			return failErrno("cannot open " + device, errno);

		loop_config config{};
		config.fd = static_cast<__u32>(backing.get());
		config.info.lo_flags = readOnly ? LO_FLAGS_READ_ONLY : 0;
		file.copy(reinterpret_cast<char *>(config.info.lo_file_name), LO_NAME_SIZE - 1);
		if (ioctl(loop.get(), LOOP_CONFIGURE, &config) == 0)
			return device;
		if (errno != EBUSY)
			return failErrno("cannot attach " + device + " to '" + file + "'", errno);
	}
	return fail(Errc::Busy, "no loop device could be attached to '" + file + "'", EBUSY);
}

Result<void> detachLoop(const std::string &device)
{
	const UniqueFd loop(open(device.c_str(), O_RDONLY | O_CLOEXEC));
	if (!loop.valid())
		return failErrno("cannot open " + device, errno);
	if (ioctl(loop.get(), LOOP_CLR_FD, 0) < 0 && errno != ENXIO)
		return failErrno("cannot detach " + device, errno);
	return {};
}

Result<Change> detachUnmountedLoop(const std::string &device, std::chrono::milliseconds limit,
				   std::chrono::milliseconds letGo)
{
	auto loops = listLoops();
	if (!loops)
		return tl::make_unexpected(loops.error());
	if (std::none_of(loops->begin(), loops->end(),
			 [&](const LoopInfo &l) { return l.device == device; }))
		return Change::Unchanged;
	auto mounts = ProcMountTable().read();
	if (!mounts)
		return tl::make_unexpected(mounts.error());
	for (const MountEntry &m : *mounts) {
		if (m.source == device)
			return fail(Errc::Busy, device + " is still mounted on '" + m.target + "'");
	}
	if (!waitUntilUnclaimed(device, letGo))
		return fail(Errc::Busy,
			    device + " is still in use: a filesystem on it is being unmounted " +
				    "or is mounted in another mount namespace (waited " +
				    std::to_string(letGo.count()) + " ms)",
			    EBUSY);
	auto detached = boundedCall<bool>(device, limit, "detaching " + device, [device] {
		auto done = detachLoop(device);
		return done ? Result<bool>(true) : Result<bool>(tl::make_unexpected(done.error()));
	});
	if (!detached)
		return tl::make_unexpected(detached.error());
	return Change::Changed;
}

Result<void> refreshLoopSize(const std::string &device)
{
	const UniqueFd loop(open(device.c_str(), O_RDONLY | O_CLOEXEC));
	if (!loop.valid())
		return failErrno("cannot open " + device, errno);
	if (ioctl(loop.get(), LOOP_SET_CAPACITY, 0) < 0)
		return failErrno("cannot refresh the size of " + device, errno);
	return {};
}

Result<LoopBacking> loopBacking(const std::string &device)
{
	const UniqueFd loop(open(device.c_str(), O_RDONLY | O_CLOEXEC));
	if (!loop.valid())
		return failErrno("cannot open " + device, errno);
	loop_info64 info{};
	if (ioctl(loop.get(), LOOP_GET_STATUS64, &info) < 0)
		return failErrno("cannot read the status of " + device, errno);
	return LoopBacking{ info.lo_device, info.lo_inode };
}

namespace {

/*
 * Loop devices have no parent: sysfs keeps them in devices/virtual/block, and
 * /sys/block only links there. Reads relative to that directory, opened once
 * per listing, skip resolving the link for each loop: half the cost of a
 * listing on a host with many loop devices, and a pass lists once.
 */
UniqueFd openLoopDirectory(const std::string &sysfsRoot)
{
	UniqueFd dir(open((sysfsRoot + "/devices/virtual/block").c_str(),
			  O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	if (!dir.valid())
		dir = UniqueFd(
			open((sysfsRoot + "/block").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	return dir;
}

/* A sysfs attribute (one page at most, never blocking); nullopt when absent. */
std::optional<std::string> readAttribute(int dir, const std::string &relative)
{
	const UniqueFd fd(openat(dir, relative.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
	if (!fd.valid())
		return std::nullopt;
	std::string text(4096, '\0');
	const ssize_t got = read(fd.get(), text.data(), text.size());
	if (got < 0)
		return std::nullopt;
	text.resize(static_cast<size_t>(got));
	return text;
}

std::optional<LoopInfo> readLoopAt(int dir, const std::string &name)
{
	auto backing = readAttribute(dir, name + "/loop/backing_file");
	if (!backing || backing->empty())
		return std::nullopt; /* not attached */
	auto ro = readAttribute(dir, name + "/ro");
	auto diskseq = readAttribute(dir, name + "/diskseq");
	LoopInfo info;
	info.device = "/dev/" + name;
	info.backingFile = trimmed(std::move(*backing));
	info.readOnly = ro && trimmed(*ro) == "1";
	if (diskseq && !diskseq->empty())
		info.diskseq = std::strtoull(diskseq->c_str(), nullptr, 10);
	return info;
}

} /* namespace */

std::optional<LoopInfo> readLoop(const std::string &name, const std::string &sysfsRoot)
{
	const UniqueFd dir = openLoopDirectory(sysfsRoot);
	if (!dir.valid())
		return std::nullopt;
	return readLoopAt(dir.get(), name);
}

Result<std::vector<LoopInfo>> listLoops(const std::string &sysfsRoot)
{
	const UniqueFd dir = openLoopDirectory(sysfsRoot);
	if (!dir.valid())
		return failErrno("cannot list " + sysfsRoot + "/block", errno);
	/* fdopendir takes the descriptor it is given: a duplicate, so `dir` stays ours. */
	UniqueFd listed(fcntl(dir.get(), F_DUPFD_CLOEXEC, 0));
	DIR *entries = listed.valid() ? fdopendir(listed.get()) : nullptr;
	if (entries == nullptr)
		return failErrno("cannot list " + sysfsRoot + "/block", errno);
	(void)listed.release(); /* closedir closes it */
	std::vector<LoopInfo> loops;
	errno = 0;
	/* NOLINTNEXTLINE(concurrency-mt-unsafe): the stream is this call's alone */
	while (const dirent *entry = readdir(entries)) {
		const std::string name = entry->d_name;
		if (name.rfind("loop", 0) == 0) {
			if (auto info = readLoopAt(dir.get(), name))
				loops.push_back(std::move(*info));
		}
		errno = 0;
	}
	const int err = errno;
	closedir(entries);
	if (err != 0)
		return failErrno("cannot list " + sysfsRoot + "/block", err);
	return loops;
}

} /* namespace rbdvolume */
