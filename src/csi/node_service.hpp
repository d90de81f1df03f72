/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * CSI Node over gRPC: a thin adapter. Each RPC goes through one prologue
 * (the caller's deadline, the request as plain values, the node operation,
 * its code as a gRPC status, the response, one journal line); the work is
 * NodeOps's.
 */
#pragma once

#include <cstdint>
#include <string>

#include "csi.grpc.pb.h"
#include "csi/node_ops.hpp"
#include "csi/shim_settings.hpp"
#include "csi/volume_control.hpp"

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
	/* Which outcomes get a journal line. */
	enum class Log : uint8_t { Always, FailuresOnly };

	/* The prologue of every volume RPC. */
	template<typename Request, typename Response>
	grpc::Status serve(const char *rpc, const grpc::ServerContext &context,
			   const Request &request, Response &response, Log log = Log::Always);

	NodeOps ops_;
};

} /* namespace rbdvolume::csi */
