/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The Mapper port for the kernel rbd driver: maps through /sys/bus/rbd as
 * `rbd device map` does (or through it where this cannot), found again in sysfs.
 */
#pragma once

#include <optional>
#include <string_view>

#include "config/tool_config.hpp"
#include "engine/ports.hpp"
#include "host/command_runner.hpp"
#include "host/mapping_discovery.hpp"

namespace rbdvolume {

/* Whether the kernel of this release ("6.1.0-13-amd64") knows krbd's abort_on_full. */
bool krbdKnowsAbortOnFull(std::string_view release);

/* The exact command lines, exposed so unit tests can pin them. */
Command krbdMapCommand(const DriverTools &tools, const MapRequest &request);
Command krbdUnmapCommand(const DriverTools &tools, const MapRequest &request,
			 const std::string &device);

/*
 * What a map the kernel refused for an image feature (ENXIO) says:
 * "unsupported by krbd", the features rbd's advice in its `output` names,
 * and the ways out.
 */
std::string unsupportedText(const std::string &image, const std::string &output);

class KrbdMapper : public Mapper
{
public:
	/* `cluster` says where the monitors are, for a map of our own; without it, rbd maps. */
	KrbdMapper(CommandRunner &runner, DriverTools tools, SystemRoots roots,
		   Images *cluster = nullptr)
		: runner_(runner), tools_(std::move(tools)), roots_(std::move(roots)),
		  cluster_(cluster)
	{
	}

	/* The krbd mappings only; a host-wide list joins every driver's. */
	Result<std::vector<MappedImage>> list() override;
	/* The image's existing krbd device, or a new one, as sysfs shows it. */
	Result<std::string> map(const MapRequest &request) override;
	/*
	 * Unchanged when `device` is no longer mapped; Conflict when it maps
	 * another image; Busy naming the holders when the kernel refuses.
	 */
	Result<Change> unmap(const MapRequest &request, const std::string &device) override;
	/* krbd has no process of its own: never an orphan. */
	Result<std::vector<std::string>> orphans() override { return std::vector<std::string>{}; }
	Result<Change> stopOrphan(const MapRequest & /*request*/) override
	{
		return Change::Unchanged;
	}
	/* krbd devices follow their image's size (the kernel watches the header). */
	Result<Change> followImageSize(const MapRequest & /*request*/) override
	{
		return Change::Unchanged;
	}

	/* Tries of a busy unmap with no holder in sight (udev's probe comes and goes). */
	static constexpr unsigned BusyAttempts = 3;

private:
	std::optional<Result<std::string>> mapInKernel(const MapRequest &request);
	/* The one device sysfs shows mapping the image; `out` is what rbd printed, if it ran. */
	Result<std::string> mappedDevice(const MapRequest &request, const std::string &out);
	Result<Change> removeOnce(const MapRequest &request, const std::string &device);

	CommandRunner &runner_;
	DriverTools tools_;
	SystemRoots roots_;
	Images *cluster_;
};

} /* namespace rbdvolume */
