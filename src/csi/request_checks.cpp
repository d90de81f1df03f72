/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "csi/request_checks.hpp"

#include "common/paths.hpp"
#include "csi/volume_names.hpp"

namespace rbdvolume::csi {

namespace v1 = ::csi::v1;

Result<void> checkVolumeId(const std::string &volumeId)
{
	if (const auto problem = volumeIdProblem(volumeId))
		return fail(Errc::InvalidArgument, *problem);
	return {};
}

Result<void> checkPath(const char *field, const std::string &path)
{
	if (path.empty())
		return fail(Errc::InvalidArgument, std::string(field) + " is required");
	if (path.size() > 4096 || !paths::isNormalAbsolutePath(path))
		return fail(Errc::InvalidArgument,
			    std::string(field) +
				    " must be an absolute path without '.', '..' or empty "
				    "components, found '" +
				    path + "'");
	return {};
}

Result<Capability> capabilityOf(const char *field, bool present,
				const v1::VolumeCapability &capability)
{
	const std::string name(field);
	if (!present)
		return fail(Errc::InvalidArgument, name + " is required");
	Capability result;
	switch (capability.access_type_case()) {
	case v1::VolumeCapability::kBlock:
		result.block = true;
		break;
	case v1::VolumeCapability::kMount:
		result.fsType = capability.mount().fs_type();
		result.mountFlags.assign(capability.mount().mount_flags().begin(),
					 capability.mount().mount_flags().end());
		break;
	default:
		return fail(Errc::InvalidArgument,
			    name + " has neither block nor mount access type");
	}
	if (!capability.has_access_mode() ||
	    capability.access_mode().mode() == v1::VolumeCapability::AccessMode::UNKNOWN)
		return fail(Errc::InvalidArgument, name + ".access_mode is required");
	result.mode = static_cast<AccessMode>(capability.access_mode().mode());
	return result;
}

Result<CephSecret> cephSecretOf(const google::protobuf::Map<std::string, std::string> &secrets)
{
	const auto value = [&](const char *key) {
		const auto found = secrets.find(key);
		return found == secrets.end() ? std::string() : found->second;
	};
	CephSecret secret{ value("userID"), value("userKey") };
	if (secret.userId.empty() && secret.key.empty())
		secret = CephSecret{ value("adminId"), value("key") };
	if (secret.userId.empty() || secret.key.empty())
		return fail(Errc::InvalidArgument,
			    "the stage secrets must hold userID and userKey (or adminId and key): "
			    "set the StorageClass's csi.storage.k8s.io/node-stage-secret-name, or "
			    "the PV's nodeStageSecretRef");
	for (const char c : secret.key) {
		if (static_cast<unsigned char>(c) < 0x20)
			return fail(Errc::InvalidArgument,
				    "the stage secret's key holds a control character");
	}
	return secret;
}

std::map<std::string, std::string>
plainMap(const google::protobuf::Map<std::string, std::string> &map)
{
	return { map.begin(), map.end() };
}

} /* namespace rbdvolume::csi */
