/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/drivers/fuse/loop_device.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>

#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "common/bounded_call.hpp"
#include "common/errno_text.hpp"
#include "common/unique_fd.hpp"
#include "host/device_claim.hpp"
#include "host/fs_util.hpp"
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
		const std::string device = "/dev/loop" + std::to_string(number);
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

std::optional<LoopInfo> readLoop(const std::string &name, const std::string &sysfsRoot)
{
	const std::string dir = sysfsRoot + "/block/" + name;
	auto backing = readFile(dir + "/loop/backing_file");
	if (!backing || !*backing)
		return std::nullopt; /* not attached */
	auto ro = readFile(dir + "/ro");
	auto diskseq = readFile(dir + "/diskseq");
	LoopInfo info;
	info.device = "/dev/" + name;
	info.backingFile = trimmed(**backing);
	info.readOnly = ro && *ro && trimmed(**ro) == "1";
	if (diskseq && *diskseq)
		info.diskseq = std::strtoull((*diskseq)->c_str(), nullptr, 10);
	return info;
}

Result<std::vector<LoopInfo>> listLoops(const std::string &sysfsRoot)
{
	std::vector<LoopInfo> loops;
	std::error_code ec;
	for (const auto &entry : std::filesystem::directory_iterator(sysfsRoot + "/block", ec)) {
		const std::string name = entry.path().filename().string();
		if (name.rfind("loop", 0) != 0)
			continue;
		if (auto info = readLoop(name, sysfsRoot))
			loops.push_back(std::move(*info));
	}
	if (ec)
		return fail(Errc::Io, "cannot list " + sysfsRoot + "/block: " + ec.message(),
			    ec.value());
	return loops;
}

} /* namespace rbdvolume */
