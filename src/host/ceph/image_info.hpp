/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ImageInfo: what an RBD image looks like from a read-only open. */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rbdvolume {

struct ImageInfo {
	uint64_t sizeBytes = 0;
	uint64_t features = 0;		     /* RBD_FEATURE_* bits */
	std::vector<std::string> watchers;   /* "ADDR client.ID" */
	std::vector<std::string> lockOwners; /* "ADDR" of each lock holder (the exclusive lock) */
};

} /* namespace rbdvolume */
