/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fuse driver: for hosts without the nbd and rbd kernel modules. One
 * rbd-fuse process per volume (rbd-fuse@NAME.service) shows the image as a
 * file in a private 0700 directory; a loop device over that file is the
 * volume's block device. Its limit: if rbd-fuse dies, the loop's file is
 * gone with it and the volume stays degraded until it is staged again.
 *
 * Observing never does I/O through rbd-fuse: a loop is known from sysfs
 * (its backing path, its diskseq) and the record made when it was attached;
 * whether rbd-fuse still serves it, from its unit's processes and the FUSE
 * mount's device number. A stopped or stuck rbd-fuse so holds up nothing
 * but its own volume's I/O.
 *
 * Crash safety: NAME.conf is written before the unit starts and removed
 * after it stopped, so a rbd-fuse of ours without a loop (a map or an unmap
 * cut short) is an orphan the engine stops (orphans(), stopOrphan()).
 */
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <set>

#include "common/paths.hpp"
#include "engine/ports.hpp"
#include "host/drivers/fuse/fuse_volume.hpp"
#include "host/drivers/fuse/loop_device.hpp"
#include "host/unit_control.hpp"

namespace rbdvolume {

struct FuseDriverConfig {
	std::string runtimeDir{ paths::FuseRuntimeDir };
	std::chrono::milliseconds startTimeout{ std::chrono::seconds(30) };
	std::chrono::milliseconds deviceTimeout{ std::chrono::seconds(30) };
	/* list() changes nothing: no loop size refreshed, no record written (a dry run). */
	bool observeOnly = false;
};

/* NAME.loop: the loop device attached for a volume, and what identifies it without I/O. */
struct FuseLoopRecord {
	std::string device;   /* "/dev/loop3" */
	uint64_t diskseq = 0; /* the loop's diskseq when attached; 0: an older record */
	uint64_t fuseDev = 0; /* st_dev of the FUSE mount the file lived on */

	bool operator==(const FuseLoopRecord &) const = default;
};

Result<std::string> formatFuseLoopRecord(const FuseLoopRecord &record);
/* Also reads the older "DEVICE DEV INO" line. */
Result<FuseLoopRecord> parseFuseLoopRecord(const std::string &text, const std::string &path);

/*
 * rbd-fuse@NAME.service's reload action (the helper's --follow-size): the
 * loop device re-reads the size of the file rbd-fuse shows, once that grew.
 */
Result<Change> followLoopSize(const FusePaths &paths, const std::string &volume);

class FuseMapper : public Mapper
{
public:
	FuseMapper(UnitControl &units, FuseDriverConfig config)
		: units_(units), config_(std::move(config)), paths_{ config_.runtimeDir }
	{
	}

	Result<std::vector<MappedImage>> list() override;
	Result<std::string> map(const MapRequest &request) override;
	Result<Change> unmap(const MapRequest &request, const std::string &device) override;
	Result<std::vector<std::string>> orphans() override;
	/* One listing of the loops and records for both. */
	Result<MapperView> view() override;
	Result<Change> stopOrphan(const MapRequest &request) override;
	/* rbd-fuse@NAME's reload does it: see followLoopSize(). */
	Result<Change> followImageSize(const MapRequest &request) override;

	static constexpr const char *UnitTemplate = "rbd-fuse";

private:
	/* Our loops by volume, from sysfs and the records; no I/O through rbd-fuse. */
	std::map<std::string, LoopInfo> loopsByVolume(const std::vector<LoopInfo> &loops) const;
	/* Judge: each one's fault, and a missing record written; Skip: the images alone. */
	enum class Health : uint8_t { Judge, Skip };
	std::vector<MappedImage> mappingsOf(const std::map<std::string, LoopInfo> &ours,
					    Health health);
	std::vector<std::string> orphansOf(const std::map<std::string, LoopInfo> &ours) const;
	std::optional<std::pair<pid_t, char>> serverState(const std::string &volume) const;
	std::string faultOf(const std::string &volume, const LoopInfo &loop) const;
	Result<void> waitForImage(const MapRequest &request);
	Result<void> recordLoop(const std::string &volume, const std::string &device);
	void recordIfUnrecorded(const std::string &volume, const LoopInfo &loop);
	void dropFiles(const std::string &volume);

	/* Marks a volume while map, unmap or stopOrphan change its files. */
	class Changing
	{
	public:
		Changing(FuseMapper &mapper, std::string volume);
		~Changing();
		Changing(const Changing &) = delete;
		Changing &operator=(const Changing &) = delete;
		Changing(Changing &&) = delete;
		Changing &operator=(Changing &&) = delete;

	private:
		FuseMapper &mapper_;
		std::string volume_;
	};

	UnitControl &units_;
	FuseDriverConfig config_;
	FusePaths paths_;
	/* list() runs beside a volume's map or unmap: it writes nothing of a marked volume. */
	std::mutex changingLock_;
	std::set<std::string> changing_;
};

} /* namespace rbdvolume */
