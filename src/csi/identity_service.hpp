/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CSI Identity: who we are, what we can do, and whether rbd-volumed answers. */
#pragma once

#include <string>

#include "csi.grpc.pb.h"
#include "csi/volume_control.hpp"

namespace rbdvolume::csi {

class IdentityService final : public ::csi::v1::Identity::Service
{
public:
	IdentityService(std::string driverName, bool hasTopology, VolumeControl &control)
		: driverName_(std::move(driverName)), hasTopology_(hasTopology), control_(control)
	{
	}

	grpc::Status GetPluginInfo(grpc::ServerContext *context,
				   const ::csi::v1::GetPluginInfoRequest *request,
				   ::csi::v1::GetPluginInfoResponse *response) override;
	grpc::Status
	GetPluginCapabilities(grpc::ServerContext *context,
			      const ::csi::v1::GetPluginCapabilitiesRequest *request,
			      ::csi::v1::GetPluginCapabilitiesResponse *response) override;
	grpc::Status Probe(grpc::ServerContext *context, const ::csi::v1::ProbeRequest *request,
			   ::csi::v1::ProbeResponse *response) override;

private:
	std::string driverName_;
	bool hasTopology_;
	VolumeControl &control_;
};

} /* namespace rbdvolume::csi */
