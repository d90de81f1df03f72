/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Observe: turn the host's tables into one volume's ObservedVolume. */
#pragma once

#include <string>
#include <vector>

#include "common/result.hpp"
#include "engine/model.hpp"
#include "engine/ports.hpp"

namespace rbdvolume {

/* The host-wide tables, read once per pass and shared by every volume. */
struct HostSnapshot {
	std::vector<MountEntry> mounts;
	std::vector<MappedImage> mappings;
};

Result<HostSnapshot> takeSnapshot(Host &host);

/* The block device behind a mount entry ("" when there is none). */
std::string mountDevice(const MountEntry &entry);

/* Reads the volume's ownership record and probes its device; pure otherwise. */
Result<ObservedVolume> observeVolume(Host &host, const HostSnapshot &snapshot,
				     const DesiredVolume &desired);

/* The pure part: what the tables say about one volume, given its record and probe. */
ObservedVolume observeFrom(const HostSnapshot &snapshot, const VolumeSpec &spec,
			   const Ownership &owned);

} /* namespace rbdvolume */
