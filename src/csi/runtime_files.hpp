/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The files rbd-volume-csi keeps for each volume it stages, all under the
 * runtime directory (/run/rbd-volume): the runtime spec the daemon reads
 * (volumes/NAME.toml), and in csi/ (mode 0700) the volume ID the name was
 * derived from (NAME.id), the Ceph key of the stage secret (NAME.key, 0600)
 * and a minimal ceph.conf naming the monitors (NAME.conf). Every write is
 * atomic (a temporary file renamed into place); every removal of a file
 * already gone succeeds.
 */
#pragma once

#include <optional>
#include <string>

#include "common/result.hpp"
#include "config/volume_spec.hpp"

namespace rbdvolume::csi {

class RuntimeFiles
{
public:
	explicit RuntimeFiles(std::string runtimeDir);

	std::string specPath(const std::string &name) const;
	std::string keyPath(const std::string &name) const;
	std::string confPath(const std::string &name) const;

	/* The runtime spec of `name`; nullopt when there is none. An invalid one is an error. */
	Result<std::optional<VolumeSpec>> readSpec(const std::string &name) const;
	/* Writes the spec unless the file already says the same; true when it wrote. */
	Result<bool> writeSpec(const VolumeSpec &spec, const std::string &volumeId) const;

	/* The volume ID recorded for `name`; nullopt when none is. */
	Result<std::optional<std::string>> recordedVolumeId(const std::string &name) const;
	/*
	 * Records `volumeId` for `name`, or fails (Conflict) when another ID
	 * already holds the name: two IDs whose hashes collide.
	 */
	Result<void> claimName(const std::string &name, const std::string &volumeId) const;

	Result<void> writeKey(const std::string &name, const std::string &key) const;
	Result<void> writeConf(const std::string &name, const std::string &text) const;

	/* Removes the spec first, then the key, the conf and the ID record. */
	Result<void> removeAll(const std::string &name) const;

private:
	std::string csiDir() const;
	Result<void> ensureCsiDir() const;

	std::string runtimeDir_;
};

} /* namespace rbdvolume::csi */
