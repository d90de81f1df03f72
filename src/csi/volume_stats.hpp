/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What NodeGetVolumeStats reports of a path: usage from the kernel, health from the daemon. */
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/result.hpp"
#include "csi/volume_control.hpp"

namespace rbdvolume::csi {

struct PathUsage {
	bool block = false;
	uint64_t totalBytes = 0;
	uint64_t availableBytes = 0; /* filesystems only */
	uint64_t usedBytes = 0;
	uint64_t totalInodes = 0;
	uint64_t freeInodes = 0;
	uint64_t usedInodes = 0;
};

/*
 * Usage of a mounted filesystem (statvfs) or a bound block device (its
 * size). NotFound when the path does not exist; an I/O error of a dead
 * mount (EIO, ENOTCONN, ESTALE, ...) is Errc::Io with the errno.
 */
Result<PathUsage> usageOf(const std::string &path);

/* Abnormal, and why, when the daemon's view says so; nullopt when healthy. */
std::optional<std::string> unhealthy(const VolumeState &state);

} /* namespace rbdvolume::csi */
