/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where the external tools are and how long each may run (from the daemon config). */
#pragma once

#include <chrono>
#include <string>

namespace rbdvolume {

struct ToolConfig {
	std::string mkfsExt4 = "/usr/sbin/mkfs.ext4";
	std::string mkfsXfs = "/usr/sbin/mkfs.xfs";
	std::string e2fsck = "/usr/sbin/e2fsck";
	std::string resize2fs = "/usr/sbin/resize2fs";
	std::string xfsGrowfs = "/usr/sbin/xfs_growfs";

	std::chrono::milliseconds mkfsTimeout{ std::chrono::minutes(10) };
	std::chrono::milliseconds fsckTimeout{ std::chrono::minutes(10) };
	std::chrono::milliseconds growTimeout{ std::chrono::minutes(10) };
	/* A call through a mapped device: probe, mount, unmount, loop detach (boundedCall). */
	std::chrono::milliseconds deviceTimeout{ std::chrono::seconds(30) };
};

} /* namespace rbdvolume */
