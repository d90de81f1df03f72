/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What rbd-volumectl shows of a volume: plain copies of the daemon's bus properties. */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rbdvolume::cli {

/* One row of Manager.ListVolumes. */
struct VolumeSummary {
	std::string name;
	std::string intent; /* "up", "down", or "" (never set) */
	std::string phase;
	std::string objectPath;
};

/* One entry of Volume.Conditions. */
struct VolumeCondition {
	std::string type;
	std::string message;
};

/* Volume.LastError: both empty after a success. */
struct VolumeError {
	std::string name;
	std::string message;

	bool empty() const { return name.empty() && message.empty(); }
};

/* Every property of an org.rbdvolume1.Volume object, as GetAll returns them. */
struct VolumeView {
	std::string name;
	std::string specFile;
	std::string intent;
	std::string phase;
	std::string stage;
	bool busy = false;
	std::string activity;
	std::string device;
	std::string stagingPath;
	std::vector<std::string> publishTargets;
	std::vector<VolumeCondition> conditions;
	VolumeError lastError;
	uint64_t generation = 0;
	uint64_t observedGeneration = 0;
};

} /* namespace rbdvolume::cli */
