/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The CSI Node operations without a transport: each checks its request,
 * turns it into a runtime spec change (stage writes the spec, publish adds
 * a target, unpublish removes one, unstage removes the spec), asks
 * rbd-volumed to converge, and says how it went as a CSI code. Calls on one
 * volume are served one at a time; calls on different volumes run in
 * parallel. Requests are plain values copied from the RPC; the time a call
 * may take is the caller's deadline. NodeService is the gRPC side.
 */
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "csi/csi_errors.hpp"
#include "csi/request_checks.hpp"
#include "csi/runtime_files.hpp"
#include "csi/shim_settings.hpp"
#include "csi/volume_control.hpp"
#include "csi/volume_locks.hpp"
#include "csi/volume_stats.hpp"

namespace rbdvolume::csi {

/* When the caller stops waiting for the answer. */
using Deadline = std::chrono::steady_clock::time_point;

/* The fields of each request, as sent: the operation checks them, in CSI's order. */
struct StageArgs {
	std::string volumeId;
	std::string stagingTargetPath;
	CapabilityField capability;
	std::map<std::string, std::string> secrets;
	std::map<std::string, std::string> volumeContext;
};

struct UnstageArgs {
	std::string volumeId;
	std::string stagingTargetPath;
};

struct PublishArgs {
	std::string volumeId;
	std::string stagingTargetPath;
	std::string targetPath;
	CapabilityField capability;
	bool readOnly = false;
};

struct UnpublishArgs {
	std::string volumeId;
	std::string targetPath;
};

struct StatsArgs {
	std::string volumeId;
	std::string volumePath;
};

struct ExpandArgs {
	std::string volumeId;
	std::string volumePath;
	int64_t requiredBytes = 0; /* capacity_range.required_bytes; 0: none */
};

/* What NodeGetVolumeStats answers when OK. */
struct StatsReply {
	std::optional<PathUsage> usage; /* none when the path could not be measured */
	bool abnormal = false;
	std::string condition; /* the volume condition's message */
};

struct ExpandReply {
	uint64_t capacityBytes = 0;
};

class NodeOps
{
public:
	NodeOps(ShimSettings settings, VolumeControl &control);

	const ShimSettings &settings() const { return settings_; }

	OpStatus stage(const StageArgs &request, Deadline deadline);
	OpStatus unstage(const UnstageArgs &request, Deadline deadline);
	OpStatus publish(const PublishArgs &request, Deadline deadline);
	OpStatus unpublish(const UnpublishArgs &request, Deadline deadline);
	/* Takes no lock and asks the daemon nothing but its view: kubelet asks it often. */
	OpStatus stats(const StatsArgs &request, StatsReply &reply);
	OpStatus expand(const ExpandArgs &request, Deadline deadline, ExpandReply &reply);

private:
	/* How long this call may wait for the daemon: inside its deadline, at most maxWait. */
	std::chrono::seconds waitBudget(Deadline deadline) const;
	/* The volume's name and its lock, held; ABORTED when the deadline passes first. */
	struct Locked {
		std::string name;
		VolumeLocks::Held held;
	};
	tl::expected<Locked, OpStatus> lockVolume(Deadline deadline, const std::string &volumeId);
	/* checkIdAndPath(), then lockVolume(): how unstage and unpublish begin. */
	tl::expected<Locked, OpStatus> checkAndLock(Deadline deadline, const std::string &volumeId,
						    const char *field, const std::string &path);

	/* The runtime spec staged for `volumeId` (nullopt: none, or `name` holds another ID's). */
	Result<std::optional<VolumeSpec>> stagedSpec(const std::string &name,
						     const std::string &volumeId) const;
	/* stagedSpec(), with none as NOT_FOUND (notStaged). */
	tl::expected<VolumeSpec, OpStatus> requireStaged(const std::string &name,
							 const std::string &volumeId) const;

	ShimSettings settings_;
	VolumeControl &control_;
	RuntimeFiles files_;
	VolumeLocks locks_;
};

} /* namespace rbdvolume::csi */
