/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Three volumes to show: one up, one failed while busy, one with an invalid spec. */
#pragma once

#include <vector>

#include "bus/volume_properties.hpp"

namespace rbdvolume::testing {

inline bus::VolumeProperties upVolume()
{
	bus::VolumeProperties view;
	view.name = "db";
	view.specFile = "/etc/rbd-volume/volumes/db.toml";
	view.intent = "up";
	view.phase = bus::Phase::Up;
	view.stage = bus::Stage::Published;
	view.device = "/dev/rbd0";
	view.stagingPath = "/var/lib/rbd-volume/staging/db";
	view.publishTargets = { "/srv/db", "/srv/db-replica" };
	view.generation = 3;
	view.observedGeneration = 3;
	return view;
}

inline bus::VolumeProperties failedVolume()
{
	bus::VolumeProperties view;
	view.name = "logs";
	view.specFile = "/etc/rbd-volume/volumes/logs.toml";
	view.intent = "down";
	view.phase = bus::Phase::Failed;
	view.stage = bus::Stage::Mapped;
	view.busy = true;
	view.activity = "unmap rbd/logs";
	view.device = "/dev/nbd1";
	view.conditions = { { "Failed", "unmap: device or resource busy" },
			    { "Conflict", "/srv/logs is mounted by another process" } };
	view.lastErrorName = "org.rbdvolume1.Error.Failed";
	view.lastErrorMessage = "rbd unmap exited 16";
	view.generation = 5;
	view.observedGeneration = 4;
	return view;
}

/* A name with a '.', escaped in its object path, and a message that needs escaping. */
inline bus::VolumeProperties invalidVolume()
{
	bus::VolumeProperties view;
	view.name = "archive.2020";
	view.phase = bus::Phase::Invalid;
	view.stage = bus::Stage::Absent;
	view.conditions = { { "SpecInvalid", "3:8: pool: \"x\\y\"\tis\nnot ünïcode-safe" } };
	view.generation = 1;
	return view;
}

/* In the order the fake daemon lists them: not sorted. */
inline std::vector<bus::VolumeProperties> sampleVolumes()
{
	return { failedVolume(), upVolume(), invalidVolume() };
}

} /* namespace rbdvolume::testing */
