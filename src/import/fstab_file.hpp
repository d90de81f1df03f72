/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The entries of an fstab file, as mount(8) reads them. */
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rbdvolume::importer {

struct FstabEntry {
	unsigned line = 0;
	std::string device;
	std::string mountPoint;
	std::string type;
	std::string options;
	std::string passno;
};

/* Every entry of an fstab text: blank and '#' lines skipped, fields split at blanks. */
std::vector<FstabEntry> readFstab(std::string_view text);

} /* namespace rbdvolume::importer */
