/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * CSI Node: each call checks its request, turns it into a runtime spec
 * change (stage writes the spec, publish adds a target, unpublish removes
 * one, unstage removes the spec), asks rbd-volumed to converge, and maps
 * the outcome to a CSI code. Calls on one volume are served one at a time;
 * calls on different volumes run in parallel.
 */
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "csi.grpc.pb.h"
#include "csi/runtime_files.hpp"
#include "csi/shim_settings.hpp"
#include "csi/volume_control.hpp"
#include "csi/volume_locks.hpp"

namespace rbdvolume::csi {

class NodeService final : public ::csi::v1::Node::Service
{
public:
	NodeService(ShimSettings settings, VolumeControl &control);

	grpc::Status NodeStageVolume(grpc::ServerContext *context,
				     const ::csi::v1::NodeStageVolumeRequest *request,
				     ::csi::v1::NodeStageVolumeResponse *response) override;
	grpc::Status NodeUnstageVolume(grpc::ServerContext *context,
				       const ::csi::v1::NodeUnstageVolumeRequest *request,
				       ::csi::v1::NodeUnstageVolumeResponse *response) override;
	grpc::Status NodePublishVolume(grpc::ServerContext *context,
				       const ::csi::v1::NodePublishVolumeRequest *request,
				       ::csi::v1::NodePublishVolumeResponse *response) override;
	grpc::Status NodeUnpublishVolume(grpc::ServerContext *context,
					 const ::csi::v1::NodeUnpublishVolumeRequest *request,
					 ::csi::v1::NodeUnpublishVolumeResponse *response) override;
	grpc::Status NodeGetVolumeStats(grpc::ServerContext *context,
					const ::csi::v1::NodeGetVolumeStatsRequest *request,
					::csi::v1::NodeGetVolumeStatsResponse *response) override;
	grpc::Status NodeExpandVolume(grpc::ServerContext *context,
				      const ::csi::v1::NodeExpandVolumeRequest *request,
				      ::csi::v1::NodeExpandVolumeResponse *response) override;
	grpc::Status NodeGetCapabilities(grpc::ServerContext *context,
					 const ::csi::v1::NodeGetCapabilitiesRequest *request,
					 ::csi::v1::NodeGetCapabilitiesResponse *response) override;
	grpc::Status NodeGetInfo(grpc::ServerContext *context,
				 const ::csi::v1::NodeGetInfoRequest *request,
				 ::csi::v1::NodeGetInfoResponse *response) override;

private:
	/* How long this call may wait for the daemon: inside its deadline, at most maxWait. */
	std::chrono::seconds waitBudget(const grpc::ServerContext *context) const;
	/* The volume's lock; ABORTED (in `status`) when the deadline passes first. */
	VolumeLocks::Held lockVolume(const grpc::ServerContext *context,
				     const std::string &volumeId, const std::string &name,
				     grpc::Status &status);

	/* The runtime spec staged for `volumeId` (nullopt: none, or `name` holds another ID's). */
	Result<std::optional<VolumeSpec>> stagedSpec(const std::string &name,
						     const std::string &volumeId) const;

	grpc::Status stage(const grpc::ServerContext *context,
			   const ::csi::v1::NodeStageVolumeRequest &request);
	grpc::Status unstage(const grpc::ServerContext *context,
			     const ::csi::v1::NodeUnstageVolumeRequest &request);
	grpc::Status publish(const grpc::ServerContext *context,
			     const ::csi::v1::NodePublishVolumeRequest &request);
	grpc::Status unpublish(const grpc::ServerContext *context,
			       const ::csi::v1::NodeUnpublishVolumeRequest &request);
	grpc::Status stats(const ::csi::v1::NodeGetVolumeStatsRequest &request,
			   ::csi::v1::NodeGetVolumeStatsResponse &response);
	grpc::Status expand(const grpc::ServerContext *context,
			    const ::csi::v1::NodeExpandVolumeRequest &request,
			    ::csi::v1::NodeExpandVolumeResponse &response);

	ShimSettings settings_;
	VolumeControl &control_;
	RuntimeFiles files_;
	VolumeLocks locks_;
};

} /* namespace rbdvolume::csi */
