/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/fuse_mapper.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>
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

/* Every loop the fuse driver attached, by device, as its records say. */
std::map<std::string, FuseMapper::LoopRecord> FuseMapper::loopRecords() const
{
	std::map<std::string, LoopRecord> records;
	std::error_code ec;
	for (const auto &entry : std::filesystem::directory_iterator(config_.runtimeDir, ec)) {
		const std::string file = entry.path().filename().string();
		if (!file.ends_with(".loop"))
			continue;
		auto text = readFile(entry.path().string());
		if (!text || !*text)
			continue;
		std::istringstream in(**text);
		LoopRecord record;
		record.volume = file.substr(0, file.size() - 5);
		std::string device;
		in >> device >> record.backing.device >> record.backing.inode;
		if (in)
			records.emplace(device, std::move(record));
	}
	return records;
}

/*
 * The volume a loop serves: from its backing path, or, once that no longer
 * shows it (a crashed rbd-fuse's dead mount was cleared, and the kernel names
 * the file relative to the detached mount), from the record made at map time:
 * the same file, or, when a dead FUSE connection hides the file's identity,
 * a file of the volume's image name.
 */
std::string FuseMapper::volumeOf(const LoopInfo &loop, const Result<LoopBacking> &backing,
				 const std::map<std::string, LoopRecord> &records) const
{
	if (paths::isSameOrBelow(loop.backingFile, config_.runtimeDir)) {
		const std::string rest = loop.backingFile.substr(config_.runtimeDir.size() + 1);
		return rest.substr(0, rest.find('/'));
	}
	const auto record = records.find(loop.device);
	if (record == records.end())
		return "";
	const std::string &volume = record->second.volume;
	if (backing)
		return *backing == record->second.backing ? volume : "";
	if (backing.error().sysErrno != ENOTCONN)
		return "";
	auto text = readFile(paths_.config(volume));
	auto described = text && *text ? parseFuseVolume(**text, paths_.config(volume))
				       : Result<FuseVolume>(fail(Errc::NotFound, ""));
	const std::string file = loop.backingFile.substr(loop.backingFile.rfind('/') + 1);
	return described && described->image == file ? volume : "";
}

/*
 * A loop reaches the image only while the rbd-fuse that was serving it when
 * it was attached still does: its file lives on that FUSE mount. Checked on
 * the mount point, not the image file, which rbd-fuse briefly hides while it
 * re-reads its image list.
 */
std::string FuseMapper::faultOf(const std::string &volume, const Result<LoopBacking> &backing) const
{
	const std::string died = "rbd-fuse of volume '" + volume + "' died";
	if (!backing)
		return died + ": the loop device's file is unreachable (" +
		       backing.error().message +
		       "); all I/O on it fails, even after rbd-fuse restarted";
	const std::string mountPoint = paths_.mountPoint(volume);
	struct stat st {
	};
	if (stat(mountPoint.c_str(), &st) != 0)
		return "rbd-fuse of volume '" + volume + "' no longer serves its image (" +
		       mountPoint + ": " + errnoText(errno) + "); all I/O on the device fails";
	if (static_cast<uint64_t>(st.st_dev) != backing->device)
		return died + "; the loop device still holds the dead process's file, so all "
			      "I/O on it fails, even after rbd-fuse restarted";
	return "";
}

Result<std::vector<MappedImage>> FuseMapper::list()
{
	auto loops = listLoops();
	if (!loops)
		return tl::make_unexpected(loops.error());
	const std::map<std::string, LoopRecord> records = loopRecords();
	std::vector<MappedImage> mapped;
	for (const LoopInfo &loop : *loops) {
		const bool ours = paths::isSameOrBelow(loop.backingFile, config_.runtimeDir);
		if (!ours && !records.contains(loop.device))
			continue; /* another program's loop: not even its status is read */
		const Result<LoopBacking> backing = loopBacking(loop.device);
		const std::string volume = volumeOf(loop, backing, records);
		if (volume.empty())
			continue;
		/* The volume's config names the image fully. */
		auto text = readFile(paths_.config(volume));
		if (!text || !*text)
			continue;
		auto described = parseFuseVolume(**text, paths_.config(volume));
		if (!described)
			continue;
		MappedImage image;
		image.pool = described->pool;
		image.radosNamespace = described->radosNamespace;
		image.image = described->image;
		image.device = loop.device;
		image.driver = Driver::Fuse;
		image.readOnly = loop.readOnly;
		image.fault = faultOf(volume, backing);
		if (image.fault.empty())
			followImageSize(loop);
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
	auto device = attachLoop(paths_.imageFile(spec.name, spec.image.name), spec.readOnly());
	if (!device)
		return device;
	/* So the loop stays known as this volume's even if rbd-fuse's mount goes away. */
	auto backing = loopBacking(*device);
	if (!backing)
		return tl::make_unexpected(backing.error());
	const std::string record = *device + " " + std::to_string(backing->device) + " " +
				   std::to_string(backing->inode) + "\n";
	if (auto written = writeFileAtomic(paths_.loopRecord(spec.name), record, 0600); !written)
		return tl::make_unexpected(written.error());
	return device;
}

Result<Change> FuseMapper::unmap(const VolumeSpec &spec, const std::string &device)
{
	auto change = detachUnmountedLoop(device);
	if (!change)
		return change;
	if (auto stopped = units_.stop(UnitTemplate, spec.name); !stopped)
		return tl::make_unexpected(stopped.error());
	(void)unlink(paths_.config(spec.name).c_str());
	(void)unlink(paths_.loopRecord(spec.name).c_str());
	(void)rmdir(paths_.mountPoint(spec.name).c_str());
	return *change;
}

} /* namespace rbdvolume */
