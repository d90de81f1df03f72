/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Three volumes to show: one up, one failed while busy, one with an invalid spec. */
#pragma once

#include <vector>

#include "cli/volume_view.hpp"

namespace rbdvolume::testing {

inline cli::VolumeView upVolume()
{
	cli::VolumeView view;
	view.name = "db";
	view.specFile = "/etc/rbd-volume/volumes/db.toml";
	view.intent = "up";
	view.phase = "up";
	view.stage = "published";
	view.device = "/dev/rbd0";
	view.stagingPath = "/var/lib/rbd-volume/staging/db";
	view.publishTargets = { "/srv/db", "/srv/db-replica" };
	view.generation = 3;
	view.observedGeneration = 3;
	return view;
}

inline cli::VolumeView failedVolume()
{
	cli::VolumeView view;
	view.name = "logs";
	view.specFile = "/etc/rbd-volume/volumes/logs.toml";
	view.intent = "down";
	view.phase = "failed";
	view.stage = "mapped";
	view.busy = true;
	view.activity = "unmap rbd/logs";
	view.device = "/dev/nbd1";
	view.conditions = { { "Failed", "unmap: device or resource busy" },
			    { "Conflict", "/srv/logs is mounted by another process" } };
	view.lastError = { "org.rbdvolume1.Error.Failed", "rbd unmap exited 16" };
	view.generation = 5;
	view.observedGeneration = 4;
	return view;
}

/* A name with a '.', escaped in its object path, and a message that needs escaping. */
inline cli::VolumeView invalidVolume()
{
	cli::VolumeView view;
	view.name = "archive.2020";
	view.phase = "invalid";
	view.stage = "absent";
	view.conditions = { { "SpecInvalid", "3:8: pool: \"x\\y\"\tis\nnot ünïcode-safe" } };
	view.generation = 1;
	return view;
}

/* In the order the fake daemon lists them: not sorted. */
inline std::vector<cli::VolumeView> sampleVolumes()
{
	return { failedVolume(), upVolume(), invalidVolume() };
}

} /* namespace rbdvolume::testing */
