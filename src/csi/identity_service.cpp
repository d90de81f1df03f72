/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "csi/identity_service.hpp"

#include "journal/log.hpp"

namespace rbdvolume::csi {

namespace v1 = ::csi::v1;

grpc::Status IdentityService::GetPluginInfo(grpc::ServerContext * /*context*/,
					    const v1::GetPluginInfoRequest * /*request*/,
					    v1::GetPluginInfoResponse *response)
{
	response->set_name(driverName_);
	response->set_vendor_version(RBDV_VERSION);
	return grpc::Status::OK;
}

grpc::Status
IdentityService::GetPluginCapabilities(grpc::ServerContext * /*context*/,
				       const v1::GetPluginCapabilitiesRequest * /*request*/,
				       v1::GetPluginCapabilitiesResponse *response)
{
	/* No controller service: images come from ceph-csi's provisioner. */
	if (hasTopology_)
		response->add_capabilities()->mutable_service()->set_type(
			v1::PluginCapability::Service::VOLUME_ACCESSIBILITY_CONSTRAINTS);
	response->add_capabilities()->mutable_volume_expansion()->set_type(
		v1::PluginCapability::VolumeExpansion::ONLINE);
	return grpc::Status::OK;
}

grpc::Status IdentityService::Probe(grpc::ServerContext * /*context*/,
				    const v1::ProbeRequest * /*request*/,
				    v1::ProbeResponse *response)
{
	auto answered = control_.ping();
	if (!answered)
		log::warning("probe: rbd-volumed does not answer: " + answered.error().message);
	response->mutable_ready()->set_value(answered.has_value());
	return grpc::Status::OK;
}

} /* namespace rbdvolume::csi */
