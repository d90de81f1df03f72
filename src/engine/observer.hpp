/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Observe: turn the host's tables into one volume's ObservedVolume. */
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "common/result.hpp"
#include "engine/model.hpp"
#include "engine/ports.hpp"

namespace rbdvolume {

/*
 * The host-wide tables, read once per pass and shared by every volume, with
 * indexes so that observing N volumes costs O(N), not O(N * table size).
 */
class HostSnapshot
{
public:
	HostSnapshot() = default;
	HostSnapshot(std::vector<MountEntry> mounts, std::vector<MappedImage> mappings,
		     std::vector<std::string> orphans = {}, std::vector<CryptMapping> crypts = {});

	const std::vector<MountEntry> &mounts() const { return mounts_; }
	const std::vector<MappedImage> &mappings() const { return mappings_; }
	/* Indexes into mounts() of the entries on `target`, bottom of the stack first. */
	const std::vector<size_t> &mountsOn(const std::string &target) const;
	/* Indexes into mappings() of the mappings of images called `image`, in any pool. */
	const std::vector<size_t> &mappingsNamed(const std::string &image) const;
	/* The volume's mapper runs without a device (Mapper::orphans). */
	bool hasOrphanMapper(const std::string &volume) const;
	/* The open LUKS mapping called `name`, or nullptr. */
	const CryptMapping *crypt(const std::string &name) const;

private:
	std::vector<MountEntry> mounts_;
	std::vector<MappedImage> mappings_;
	std::unordered_map<std::string, std::vector<size_t>> byTarget_;
	std::unordered_map<std::string, std::vector<size_t>> byImage_;
	std::vector<std::string> orphans_;
	std::vector<CryptMapping> crypts_; /* a few per host: searched, not indexed */
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
