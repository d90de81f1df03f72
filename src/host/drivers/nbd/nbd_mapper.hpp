/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The Mapper port for rbd-nbd: each volume's rbd-nbd runs in its own
 * rbd-nbd@NAME.service, so restarting rbd-volumed never touches its I/O.
 */
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/tool_config.hpp"
#include "engine/ports.hpp"
#include "host/command_runner.hpp"
#include "host/drivers/nbd/nbd_config.hpp"
#include "host/mapping_discovery.hpp"
#include "host/unit_control.hpp"

namespace rbdvolume {

/* The exact command line, exposed so unit tests can pin it. */
Command nbdUnmapCommand(const DriverTools &tools, const std::string &device);

/* One of our devices, told to fail what gets no answer (NbdMapper::boundRequests). */
struct NbdRequestBound {
	std::string volume;
	std::string device;
	std::optional<Error> error; /* the kernel refused, or did not answer */
};

class NbdMapper : public Mapper
{
public:
	/* `units` starts and stops rbd-nbd@NAME.service; `runner` runs rbd-nbd unmap. */
	NbdMapper(CommandRunner &runner, UnitControl &units, DriverTools tools, SystemRoots roots)
		: runner_(runner), units_(units), tools_(std::move(tools)), roots_(std::move(roots))
	{
	}

	/*
	 * The rbd-nbd mappings only; a host-wide list joins every driver's. A
	 * device with our cookie and no server is listed too, with a fault
	 * unless systemd is bringing its server back.
	 */
	Result<std::vector<MappedImage>> list() override;
	/*
	 * The image's existing device, or: write the volume's config, start its
	 * unit, and wait for the device carrying its cookie. A device that came
	 * up through the ioctl interface cannot survive rbd-nbd and is unmapped
	 * again: Unsupported.
	 */
	Result<std::string> map(const MapRequest &request) override;
	/* `rbd-nbd unmap` (a stop alone only detaches), then the unit is stopped. */
	Result<Change> unmap(const MapRequest &request, const std::string &device) override;
	/*
	 * Volumes with a config (written before the unit starts) but no device
	 * carrying their cookie and no rbd-nbd serving their image. A device
	 * that still carries the cookie (its server died, systemd restarts it
	 * to attach) is no orphan: the healer must not be stopped.
	 */
	Result<std::vector<std::string>> orphans() override;
	Result<Change> stopOrphan(const MapRequest &request) override;
	/* rbd-nbd resizes its device when the image grows. */
	Result<Change> followImageSize(const MapRequest & /*request*/) override
	{
		return Change::Unchanged;
	}

	/*
	 * The host shuts down: each device of ours fails a request that got no
	 * answer for `seconds` (nbd's own timer, NBD_ATTR_TIMEOUT), so no
	 * poweroff waits for a server whose cluster is gone. Only devices that
	 * carry a volume's cookie are touched.
	 */
	std::vector<NbdRequestBound> boundRequests(uint64_t seconds);

	static constexpr const char *UnitTemplate = "rbd-nbd";

private:
	Result<void> servedBefore(const MapRequest &request);
	Result<void> writeConfig(const MapRequest &request);
	Result<std::string> awaitDevice(const MapRequest &request);
	/* Tears down a device that came up wrong; errors are only worth a mention. */
	std::string rollBack(const MapRequest &request, const std::string &device);
	Result<void> unmapDevice(const std::string &device);
	bool isOrphan(const NbdVolumeConfig &config) const;
	std::vector<std::pair<std::string, NbdVolumeConfig>> configs() const;
	/* "" while the volume's unit brings a server back; else what is wrong and what to do. */
	std::string serverFault(const std::string &volume, const std::string &device);

	CommandRunner &runner_;
	UnitControl &units_;
	DriverTools tools_;
	SystemRoots roots_;
};

} /* namespace rbdvolume */
