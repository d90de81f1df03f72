/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/drivers/fuse/fuse_mapper.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <sstream>
#include <thread>
#include <unistd.h>

#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "common/errno_text.hpp"
#include "common/fs_util.hpp"
#include "common/paths.hpp"
#include "common/state_file.hpp"

namespace rbdvolume {

namespace {

/*
 * The device number of what is mounted on `path`, from the kernel's cache:
 * AT_STATX_DONT_SYNC keeps FUSE from asking its server (which may be
 * stopped); the mount's device number needs no answer from it.
 */
std::optional<uint64_t> mountedDevice(const std::string &path)
{
	struct statx stx {
	};
	if (statx(AT_FDCWD, path.c_str(),
		  AT_STATX_DONT_SYNC | AT_NO_AUTOMOUNT | AT_SYMLINK_NOFOLLOW, STATX_TYPE,
		  &stx) != 0)
		return std::nullopt;
	return makedev(stx.stx_dev_major, stx.stx_dev_minor);
}

std::optional<uint64_t> number(const std::string &text)
{
	if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos ||
	    text.size() > 19)
		return std::nullopt;
	return std::strtoull(text.c_str(), nullptr, 10);
}

std::string baseName(const std::string &path)
{
	return path.substr(path.rfind('/') + 1);
}

constexpr std::array<StateKey, 3> LoopRecordKeys = { {
	{ "device", StateValue::Path, false, true },
	{ "diskseq", StateValue::Number },
	{ "fuse-dev", StateValue::Number },
} };

constexpr StateSchema LoopRecordSchema{ "a fuse loop record", LoopRecordKeys };

} /* namespace */

Result<std::string> formatFuseLoopRecord(const FuseLoopRecord &record)
{
	StateWriter out(LoopRecordSchema,
			"rbd-volume fuse driver: the loop device attached for this volume");
	out.add("device", record.device);
	out.addNumber("diskseq", record.diskseq);
	out.addNumber("fuse-dev", record.fuseDev);
	return out.text();
}

Result<FuseLoopRecord> parseFuseLoopRecord(const std::string &text, const std::string &path)
{
	FuseLoopRecord record;
	/* The older record: one line "DEVICE DEV INO". */
	if (text.find('=') == std::string::npos) {
		std::istringstream in(text);
		uint64_t inode = 0;
		in >> record.device >> record.fuseDev >> inode;
		if (in && record.device.starts_with("/dev/loop"))
			return record;
	}
	auto fields = parseStateText(text, path, LoopRecordSchema);
	if (!fields)
		return tl::make_unexpected(fields.error());
	record.device = fields->text("device").value_or("");
	if (!record.device.starts_with("/dev/loop"))
		return fail(Errc::InvalidArgument, path + ": expected a loop device");
	record.diskseq = fields->number("diskseq");
	record.fuseDev = fields->number("fuse-dev");
	return record;
}

std::map<std::string, LoopInfo> FuseMapper::loopsByVolume(const std::vector<LoopInfo> &loops) const
{
	/* The records, by device. */
	std::map<std::string, std::pair<std::string, FuseLoopRecord>> records;
	std::error_code ec;
	for (const auto &entry : std::filesystem::directory_iterator(config_.runtimeDir, ec)) {
		const std::string file = entry.path().filename().string();
		if (!file.ends_with(".loop"))
			continue;
		auto text = readFile(entry.path().string());
		if (!text || !*text)
			continue;
		auto record = parseFuseLoopRecord(**text, entry.path().string());
		if (record)
			records.emplace(record->device,
					std::make_pair(file.substr(0, file.size() - 5), *record));
	}

	std::map<std::string, LoopInfo> found;
	for (const LoopInfo &loop : loops) {
		/* On the live FUSE mount: the path says whose. */
		if (paths::isSameOrBelow(loop.backingFile, config_.runtimeDir) &&
		    loop.backingFile != config_.runtimeDir) {
			const std::string rest =
				loop.backingFile.substr(config_.runtimeDir.size() + 1);
			found.emplace(rest.substr(0, rest.find('/')), loop);
			continue;
		}
		/*
		 * Its FUSE mount went away (rbd-fuse died, its dead mount was
		 * cleared): the kernel names the file relative to the detached
		 * mount. The record made at attach time knows the loop by its
		 * diskseq, new at every attach; an older record by the file name.
		 */
		const auto record = records.find(loop.device);
		if (record == records.end())
			continue;
		const auto &[volume, recorded] = record->second;
		bool same = recorded.diskseq != 0 && recorded.diskseq == loop.diskseq;
		if (recorded.diskseq == 0) {
			auto text = readFile(paths_.config(volume));
			auto described = text && *text
						 ? parseFuseVolume(**text, paths_.config(volume))
						 : Result<FuseVolume>(fail(Errc::NotFound, ""));
			same = described && described->image == baseName(loop.backingFile);
		}
		if (same)
			found.emplace(volume, loop);
	}
	return found;
}

/*
 * The volume's rbd-fuse as the kernel shows it, from the pid its helper
 * wrote: (pid, state letter), (0, '\0') when it is gone, nullopt when no
 * pid was written (a helper of an older version). The pid is checked to be
 * rbd-fuse serving this volume's mount point, never a recycled one.
 */
std::optional<std::pair<pid_t, char>> FuseMapper::serverState(const std::string &volume) const
{
	auto text = readFile(paths_.pidFile(volume));
	if (!text || !*text)
		return std::nullopt;
	const auto pid = number((*text)->substr(0, (*text)->find('\n')));
	if (!pid || *pid == 0 || *pid > INT32_MAX)
		return std::make_pair(pid_t{ 0 }, '\0');
	auto cmdline = readFile("/proc/" + std::to_string(*pid) + "/cmdline");
	const std::string expected = std::string("\0", 1) + paths_.mountPoint(volume) + '\0';
	if (!cmdline || !*cmdline ||
	    baseName((*cmdline)->substr(0, (*cmdline)->find('\0'))) != "rbd-fuse" ||
	    (*cmdline)->find(expected) == std::string::npos)
		return std::make_pair(pid_t{ 0 }, '\0');
	const char state = processState(static_cast<pid_t>(*pid));
	if (state == '\0' || state == 'Z' || state == 'X')
		return std::make_pair(pid_t{ 0 }, '\0');
	return std::make_pair(static_cast<pid_t>(*pid), state);
}

/*
 * Whether rbd-fuse still serves the loop, told without a request to it: its
 * process (gone, or stopped by SIGSTOP) and whether the loop's file lives on
 * the FUSE mount there now.
 */
std::string FuseMapper::faultOf(const std::string &volume, const LoopInfo &loop) const
{
	const std::string unit = unitName(UnitTemplate, volume);
	const std::string again = "; take the volume down and up to stage it again";
	if (const auto state = serverState(volume)) {
		if (state->second == 'T' || state->second == 't')
			return "rbd-fuse of volume '" + volume + "' (pid " +
			       std::to_string(state->first) + ") is stopped: I/O on " +
			       loop.device + " waits until it runs again (kill -CONT " +
			       std::to_string(state->first) + ")";
		if (state->first == 0)
			return "rbd-fuse of volume '" + volume +
			       "' is not running (journalctl -u " + unit + "): all I/O on " +
			       loop.device + " fails" + again;
	}
	std::string died = "rbd-fuse of volume '" + volume +
			   "' died; the loop device still holds the dead process's file, so "
			   "all I/O on it fails, even after rbd-fuse restarted" +
			   again;
	if (!paths::isSameOrBelow(loop.backingFile, paths_.mountPoint(volume)))
		return died;
	auto text = readFile(paths_.loopRecord(volume));
	if (text && *text) {
		auto record = parseFuseLoopRecord(**text, paths_.loopRecord(volume));
		if (record && record->fuseDev != 0 &&
		    mountedDevice(paths_.mountPoint(volume)) != record->fuseDev)
			return died;
	}
	return "";
}

/*
 * krbd and nbd devices follow an image that grew by themselves; a loop
 * device over rbd-fuse's file does not until it is told (losetup -c), and
 * only rbd-fuse knows the file's size, asking the cluster. A request to a
 * FUSE server that never answers cannot be interrupted, so it is made by
 * rbd-fuse@NAME's reload action, in that unit (followLoopSize()): stuck,
 * it holds that unit, never the daemon.
 */
Result<Change> FuseMapper::followImageSize(const MapRequest &request)
{
	auto loops = listLoops();
	if (!loops)
		return tl::make_unexpected(loops.error());
	const std::map<std::string, LoopInfo> ours = loopsByVolume(*loops);
	const auto found = ours.find(request.volume);
	if (found == ours.end() || !faultOf(request.volume, found->second).empty())
		return Change::Unchanged;
	const std::string sizeFile = "/sys/block/" + baseName(found->second.device) + "/size";
	const auto sectors = [&] { return readFile(sizeFile).value_or(std::nullopt).value_or(""); };
	const std::string before = sectors();
	if (auto reloaded = units_.reload(UnitTemplate, request.volume); !reloaded)
		return tl::make_unexpected(reloaded.error());
	return sectors() == before ? Change::Unchanged : Change::Changed;
}

Result<Change> followLoopSize(const FusePaths &paths, const std::string &volume)
{
	auto config = readFile(paths.config(volume));
	auto record = readFile(paths.loopRecord(volume));
	if (!config || !*config || !record || !*record)
		return Change::Unchanged; /* nothing attached (yet) */
	auto described = parseFuseVolume(**config, paths.config(volume));
	auto loop = parseFuseLoopRecord(**record, paths.loopRecord(volume));
	if (!described)
		return tl::make_unexpected(described.error());
	if (!loop)
		return tl::make_unexpected(loop.error());
	struct stat st {
	};
	const std::string file = paths.imageFile(volume, described->image);
	if (stat(file.c_str(), &st) != 0)
		return failErrno("cannot stat " + file, errno);
	auto sectors = readFile("/sys/block/" + baseName(loop->device) + "/size");
	if (!sectors || !*sectors)
		return Change::Unchanged;
	const uint64_t deviceBytes = std::strtoull((*sectors)->c_str(), nullptr, 10) * 512;
	if (static_cast<uint64_t>(st.st_size) <= deviceBytes)
		return Change::Unchanged;
	if (auto refreshed = refreshLoopSize(loop->device); !refreshed)
		return tl::make_unexpected(refreshed.error());
	return Change::Changed;
}

std::vector<MappedImage> FuseMapper::mappingsOf(const std::map<std::string, LoopInfo> &ours,
						Health health)
{
	std::vector<MappedImage> mapped;
	for (const auto &[volume, loop] : ours) {
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
		image.owner = volume;
		if (health == Health::Judge) {
			image.fault = faultOf(volume, loop);
			if (image.fault.empty() && !config_.observeOnly)
				recordIfUnrecorded(volume, loop);
		}
		mapped.push_back(std::move(image));
	}
	return mapped;
}

/* Volumes with a config but no loop of theirs: their rbd-fuse may run with nothing over it. */
std::vector<std::string> FuseMapper::orphansOf(const std::map<std::string, LoopInfo> &ours) const
{
	std::vector<std::string> found;
	std::error_code ec;
	for (const auto &entry : std::filesystem::directory_iterator(config_.runtimeDir, ec)) {
		const std::string file = entry.path().filename().string();
		if (!file.ends_with(".conf"))
			continue;
		const std::string volume = file.substr(0, file.size() - 5);
		if (!ours.contains(volume))
			found.push_back(volume);
	}
	std::sort(found.begin(), found.end());
	return found;
}

Result<std::vector<MappedImage>> FuseMapper::list()
{
	auto loops = listLoops();
	if (!loops)
		return tl::make_unexpected(loops.error());
	return mappingsOf(loopsByVolume(*loops), Health::Judge);
}

Result<std::vector<std::string>> FuseMapper::orphans()
{
	auto loops = listLoops();
	if (!loops)
		return tl::make_unexpected(loops.error());
	return orphansOf(loopsByVolume(*loops));
}

Result<MapperView> FuseMapper::view()
{
	auto loops = listLoops();
	if (!loops)
		return tl::make_unexpected(loops.error());
	const std::map<std::string, LoopInfo> ours = loopsByVolume(*loops);
	return MapperView{ mappingsOf(ours, Health::Judge), orphansOf(ours) };
}

Result<Change> FuseMapper::stopOrphan(const MapRequest &request)
{
	const Changing changing(*this, request.volume);
	auto loops = listLoops();
	if (!loops)
		return tl::make_unexpected(loops.error());
	if (loopsByVolume(*loops).contains(request.volume))
		return Change::Unchanged; /* it has its device: not an orphan */
	struct stat st {
	};
	if (::stat(paths_.config(request.volume).c_str(), &st) != 0 && errno == ENOENT)
		return Change::Unchanged;
	if (auto stopped = units_.stop(UnitTemplate, request.volume); !stopped)
		return tl::make_unexpected(stopped.error());
	dropFiles(request.volume);
	return Change::Changed;
}

Result<void> FuseMapper::waitForImage(const MapRequest &request)
{
	const std::string file = paths_.imageFile(request.volume, request.image.name);
	const auto deadline = std::chrono::steady_clock::now() + config_.startTimeout;
	for (;;) {
		struct stat st {
		};
		if (stat(file.c_str(), &st) == 0 && S_ISREG(st.st_mode))
			return {};
		if (std::chrono::steady_clock::now() >= deadline)
			return fail(Errc::Timeout,
				    "rbd-fuse did not show " + request.image.display() +
					    " within " +
					    std::to_string(config_.startTimeout.count()) +
					    " ms (see journalctl -u " +
					    unitName(UnitTemplate, request.volume) + ")",
				    ETIMEDOUT);
		std::this_thread::sleep_for(std::chrono::milliseconds(20));
	}
}

/* So the loop stays known as this volume's even if rbd-fuse's mount goes away. */
Result<void> FuseMapper::recordLoop(const std::string &volume, const std::string &device)
{
	FuseLoopRecord record;
	record.device = device;
	auto diskseq = readFile("/sys/block/" + baseName(device) + "/diskseq");
	if (diskseq && *diskseq)
		record.diskseq = number((*diskseq)->substr(0, (*diskseq)->find('\n'))).value_or(0);
	record.fuseDev = mountedDevice(paths_.mountPoint(volume)).value_or(0);
	const auto text = formatFuseLoopRecord(record);
	if (!text)
		return tl::make_unexpected(text.error());
	return writeFileAtomic(paths_.loopRecord(volume), *text, 0600);
}

/*
 * A loop attached just before a crash has no record: it is made here. Not
 * while the volume's map or unmap runs, and only for the very loop listed
 * (its diskseq is new at every attach): an unmap that detached it and
 * removed the record since must not find a record of a loop that is gone.
 */
void FuseMapper::recordIfUnrecorded(const std::string &volume, const LoopInfo &loop)
{
	const std::lock_guard hold(changingLock_);
	if (changing_.contains(volume))
		return;
	struct stat st {
	};
	if (::stat(paths_.loopRecord(volume).c_str(), &st) == 0 || errno != ENOENT)
		return;
	const auto now = readLoop(baseName(loop.device));
	if (!now || now->diskseq != loop.diskseq || now->backingFile != loop.backingFile)
		return;
	(void)recordLoop(volume, loop.device);
}

FuseMapper::Changing::Changing(FuseMapper &mapper, std::string volume)
	: mapper_(mapper), volume_(std::move(volume))
{
	const std::lock_guard hold(mapper_.changingLock_);
	mapper_.changing_.insert(volume_);
}

FuseMapper::Changing::~Changing()
{
	const std::lock_guard hold(mapper_.changingLock_);
	mapper_.changing_.erase(volume_);
}

/*
 * After its unit stopped. A FUSE mount still there is dead (rbd-fuse was
 * killed and its unit stopped before a restart could clear it): ours, in
 * our private directory, so it is detached as the helper would.
 */
void FuseMapper::dropFiles(const std::string &volume)
{
	/* A dead one answers stat with ENOTCONN: no check, a detach of nothing is EINVAL. */
	(void)umount2(paths_.mountPoint(volume).c_str(), MNT_DETACH | UMOUNT_NOFOLLOW);
	(void)unlink(paths_.config(volume).c_str());
	(void)unlink(paths_.pidFile(volume).c_str());
	(void)unlink(paths_.loopRecord(volume).c_str());
	(void)rmdir(paths_.mountPoint(volume).c_str());
}

Result<std::string> FuseMapper::map(const MapRequest &request)
{
	if (!request.image.snapshot.empty())
		return fail(Errc::Unsupported, "the fuse driver cannot map a snapshot (" +
						       request.image.display() +
						       "): rbd-fuse shows image heads only");
	if (request.map.exclusive)
		return fail(Errc::Unsupported,
			    "the fuse driver cannot honour map.exclusive: rbd-fuse "
			    "takes no exclusive lock; use the krbd or nbd driver");
	const Changing changing(*this, request.volume);
	auto loops = listLoops();
	if (!loops)
		return tl::make_unexpected(loops.error());
	/* Whose image each loop shows is enough here: no process looked at per volume. */
	for (const MappedImage &m : mappingsOf(loopsByVolume(*loops), Health::Skip)) {
		if (mapsImage(m, request.image))
			return m.device; /* never map an image twice */
	}

	/* The config first: a crash from here on leaves an orphan we know to stop. */
	if (auto made = makeDirectories(config_.runtimeDir, 0700); !made)
		return tl::make_unexpected(made.error());
	const auto config = formatFuseVolume(FuseVolume::of(request));
	if (!config)
		return tl::make_unexpected(config.error());
	if (auto written = writeFileAtomic(paths_.config(request.volume), *config, 0600); !written)
		return tl::make_unexpected(written.error());
	if (auto started = units_.start(UnitTemplate, request.volume); !started)
		return tl::make_unexpected(started.error());
	if (auto shown = waitForImage(request); !shown) {
		(void)units_.stop(UnitTemplate, request.volume);
		dropFiles(request.volume);
		return tl::make_unexpected(shown.error());
	}
	auto device = attachLoop(paths_.imageFile(request.volume, request.image.name),
				 request.readOnly());
	if (!device)
		return device;
	if (auto recorded = recordLoop(request.volume, *device); !recorded)
		return tl::make_unexpected(recorded.error());
	return device;
}

Result<Change> FuseMapper::unmap(const MapRequest &request, const std::string &device)
{
	const Changing changing(*this, request.volume);
	auto change = detachUnmountedLoop(device, config_.deviceTimeout);
	if (!change)
		return change;
	if (auto stopped = units_.stop(UnitTemplate, request.volume); !stopped)
		return tl::make_unexpected(stopped.error());
	dropFiles(request.volume);
	return *change;
}

} /* namespace rbdvolume */
