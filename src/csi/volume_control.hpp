/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the CSI shim asks of rbd-volumed: the port the node service talks
 * through. BusVolumeControl is the real one (the system bus); the tests
 * put a fake in its place.
 */
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "bus/volume_properties.hpp"
#include "common/result.hpp"
#include "common/secret.hpp"

namespace rbdvolume::csi {

/* A volume as the daemon reports it (its org.rbdvolume1.Volume properties). */
using VolumeState = bus::VolumeProperties;

class VolumeControl
{
public:
	virtual ~VolumeControl() = default;
	VolumeControl() = default;
	VolumeControl(const VolumeControl &) = delete;
	VolumeControl &operator=(const VolumeControl &) = delete;
	VolumeControl(VolumeControl &&) = delete;
	VolumeControl &operator=(VolumeControl &&) = delete;

	/*
	 * Intent up (down) for `name`, replying once the volume converged or
	 * failed; Errc::Timeout when `timeout` passed first (the daemon carries on).
	 */
	virtual Result<void> up(const std::string &name, std::chrono::seconds timeout) = 0;
	/* up(), handing the daemon the passphrase of a volume with given-at-up. */
	virtual Result<void> upWithPassphrase(const std::string &name, const Secret &passphrase,
					      std::chrono::seconds timeout) = 0;
	virtual Result<void> down(const std::string &name, std::chrono::seconds timeout) = 0;
	/* One pass over `name` now (after a resize, say), replying when it is over. */
	virtual Result<void> reconcile(const std::string &name, std::chrono::seconds timeout) = 0;
	/* The daemon's view of `name`; nullopt when it knows no such volume. */
	virtual Result<std::optional<VolumeState>> state(const std::string &name) = 0;
	/* Whether the daemon answers at all. */
	virtual Result<void> ping() = 0;
};

} /* namespace rbdvolume::csi */
