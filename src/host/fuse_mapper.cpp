/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/fuse_mapper.hpp"

#include <algorithm>
#include <cstdlib>
#include <thread>
#include <unistd.h>

#include <sys/stat.h>

#include "common/errno_text.hpp"
#include "common/paths.hpp"
#include "host/fs_util.hpp"
#include "host/libmount_mount_table.hpp"
#include "host/loop_device.hpp"

namespace rbdvolume {

namespace {

/*
 * krbd and nbd devices follow an image that grew by themselves; a loop
 * device over rbd-fuse's file does not until it is told (losetup -c).
 */
void followImageSize(const LoopInfo &loop)
{
	struct stat file {
	};
	if (stat(loop.backingFile.c_str(), &file) != 0)
		return; /* rbd-fuse is gone: nothing to follow */
	const std::string name = loop.device.substr(loop.device.rfind('/') + 1);
	auto sectors = readFile("/sys/block/" + name + "/size");
	if (!sectors || !*sectors)
		return;
	const uint64_t deviceBytes = std::strtoull((*sectors)->c_str(), nullptr, 10) * 512;
	if (static_cast<uint64_t>(file.st_size) > deviceBytes)
		(void)refreshLoopSize(loop.device);
}

} /* namespace */

Result<std::vector<MappedImage>> FuseMapper::list()
{
	auto loops = listLoops();
	if (!loops)
		return tl::make_unexpected(loops.error());
	std::vector<MappedImage> mapped;
	for (const LoopInfo &loop : *loops) {
		if (!paths::isSameOrBelow(loop.backingFile, config_.runtimeDir))
			continue;
		/* <runtime>/<volume>/<image>: the volume's config names the image fully. */
		const std::string rest = loop.backingFile.substr(config_.runtimeDir.size() + 1);
		const std::string volume = rest.substr(0, rest.find('/'));
		auto text = readFile(paths_.config(volume));
		if (!text || !*text)
			continue;
		auto described = parseFuseVolume(**text, paths_.config(volume));
		if (!described)
			continue;
		followImageSize(loop);
		MappedImage image;
		image.pool = described->pool;
		image.radosNamespace = described->radosNamespace;
		image.image = described->image;
		image.device = loop.device;
		image.driver = Driver::Fuse;
		image.readOnly = loop.readOnly;
		mapped.push_back(std::move(image));
	}
	return mapped;
}

Result<void> FuseMapper::waitForImage(const VolumeSpec &spec)
{
	const std::string file = paths_.imageFile(spec.name, spec.image.name);
	const auto deadline = std::chrono::steady_clock::now() + config_.startTimeout;
	for (;;) {
		struct stat st {
		};
		if (stat(file.c_str(), &st) == 0 && S_ISREG(st.st_mode))
			return {};
		if (std::chrono::steady_clock::now() >= deadline)
			return fail(Errc::Timeout,
				    "rbd-fuse did not show " + spec.image.display() + " within " +
					    std::to_string(config_.startTimeout.count()) +
					    " ms (see journalctl -u " +
					    unitName(UnitTemplate, spec.name) + ")",
				    ETIMEDOUT);
		std::this_thread::sleep_for(std::chrono::milliseconds(20));
	}
}

Result<std::string> FuseMapper::map(const VolumeSpec &spec)
{
	if (!spec.image.snapshot.empty())
		return fail(Errc::Unsupported, "the fuse driver cannot map a snapshot (" +
						       spec.image.display() +
						       "): rbd-fuse shows image heads only");
	if (spec.map.exclusive)
		return fail(Errc::Unsupported,
			    "the fuse driver cannot honour map.exclusive: rbd-fuse "
			    "takes no exclusive lock; use the krbd or nbd driver");
	auto mapped = list();
	if (!mapped)
		return tl::make_unexpected(mapped.error());
	for (const MappedImage &m : *mapped) {
		if (mapsImage(m, spec.image))
			return m.device; /* never map an image twice */
	}

	if (auto made = makeDirectories(config_.runtimeDir, 0700); !made)
		return tl::make_unexpected(made.error());
	const std::string config = formatFuseVolume(FuseVolume::fromSpec(spec));
	if (auto written = writeFileAtomic(paths_.config(spec.name), config, 0600); !written)
		return tl::make_unexpected(written.error());
	if (auto started = units_.start(UnitTemplate, spec.name); !started)
		return tl::make_unexpected(started.error());
	if (auto shown = waitForImage(spec); !shown) {
		(void)units_.stop(UnitTemplate, spec.name);
		return tl::make_unexpected(shown.error());
	}
	return attachLoop(paths_.imageFile(spec.name, spec.image.name), spec.readOnly());
}

Result<Change> FuseMapper::unmap(const VolumeSpec &spec, const std::string &device)
{
	auto change = detachUnmountedLoop(device);
	if (!change)
		return change;
	if (auto stopped = units_.stop(UnitTemplate, spec.name); !stopped)
		return tl::make_unexpected(stopped.error());
	(void)unlink(paths_.config(spec.name).c_str());
	(void)rmdir(paths_.mountPoint(spec.name).c_str());
	return *change;
}

} /* namespace rbdvolume */
