/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libmount's utab (/run/mount/utab): where the userspace options of a mount
 * live, our marker among them, once the mount itself was made with the
 * kernel's calls. libmount merges them back into the mount table it reads.
 */
#pragma once

#include <string>

#include "common/result.hpp"

namespace rbdvolume {

struct UtabEntry {
	std::string source;	 /* the device, or for a bind the path bound */
	std::string target;	 /* as the mount table shows it */
	std::string fsType;	 /* "" for a bind */
	std::string userOptions; /* "_netdev,x-rbd-volume=NAME" */
	bool bind = false;
};

/* Adds the entry; the mount is already in the kernel's table. */
Result<void> recordUtabEntry(const UtabEntry &entry);

/* Drops the last entry on `target`, after its mount went; nothing there is fine. */
Result<void> forgetUtabEntry(const std::string &target);

} /* namespace rbdvolume */
