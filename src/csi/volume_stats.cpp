/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "csi/volume_stats.hpp"

#include <cerrno>

#include <sys/stat.h>
#include <sys/statvfs.h>

#include "common/errno_text.hpp"
#include "common/file_io.hpp"

namespace rbdvolume::csi {

Result<PathUsage> usageOf(const std::string &path)
{
	struct stat st {
	};
	if (stat(path.c_str(), &st) < 0) {
		return failErrno(path, errno);
	}
	PathUsage usage;
	if (S_ISBLK(st.st_mode)) {
		auto bytes = blockDeviceSize(path);
		if (!bytes)
			return tl::make_unexpected(bytes.error());
		usage.block = true;
		usage.totalBytes = *bytes;
		return usage;
	}
	struct statvfs fs {
	};
	if (statvfs(path.c_str(), &fs) < 0)
		return failErrno(path, errno);
	usage.totalBytes = fs.f_blocks * fs.f_frsize;
	usage.availableBytes = fs.f_bavail * fs.f_frsize;
	usage.usedBytes = (fs.f_blocks - fs.f_bfree) * fs.f_frsize;
	usage.totalInodes = fs.f_files;
	usage.freeInodes = fs.f_ffree;
	usage.usedInodes = fs.f_files - fs.f_ffree;
	return usage;
}

std::optional<std::string> unhealthy(const VolumeState &state)
{
	std::string why;
	for (const bus::Condition &condition : state.conditions)
		why += (why.empty() ? "" : "; ") + condition.type + ": " + condition.message;
	const bool healthyPhase =
		state.phase == bus::Phase::Up || state.phase == bus::Phase::Pending;
	if (healthyPhase && why.empty())
		return std::nullopt;
	const std::string phase = bus::phaseName(state.phase);
	if (why.empty())
		why = state.lastErrorName.empty() && state.lastErrorMessage.empty()
			      ? "the volume is " + phase
			      : state.lastErrorName + ": " + state.lastErrorMessage;
	return "rbd-volume reports the volume " + phase + ": " + why;
}

} /* namespace rbdvolume::csi */
