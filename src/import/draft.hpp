/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* An image of the rbdmap file on its way to a spec: where it was read, what became of it. */
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config/volume_spec.hpp"
#include "import/fstab_file.hpp"
#include "import/import_message.hpp"
#include "import/rbdmap_file.hpp"

namespace rbdvolume::importer {

/* udev's links to krbd devices: the path rbdmap's `mount /dev/rbd/$DEV` names. */
constexpr std::string_view RbdDeviceDir = "/dev/rbd/";

/* An image listed in the rbdmap file, and what becomes of it. */
struct Draft {
	unsigned line = 0;
	VolumeSpec spec;
	std::vector<RbdmapParam> params;
	std::vector<const FstabEntry *> mounts;
	std::vector<const FstabEntry *> partitions;
	std::vector<std::string> sources; /* "FILE:LINE: what", for the header */
	std::vector<ImportMessage> messages;
	unsigned noautoLine = 0; /* the fstab line of a 'noauto' mount, 0 for none */
	bool skipped = false;	 /* no spec for it; counts as a failed line */
};

} /* namespace rbdvolume::importer */
