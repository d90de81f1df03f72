/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where the kernel's views are mounted: /sys and /proc, or a test's tree. */
#pragma once

#include <string>

namespace rbdvolume {

struct SystemRoots {
	std::string sysfs = "/sys";
	std::string proc = "/proc";
};

} /* namespace rbdvolume */
