/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "csi/request_checks.hpp"

#include "common/paths.hpp"
#include "config/spec_values.hpp"

namespace rbdvolume::csi {

Result<void> checkVolumeId(const std::string &volumeId)
{
	if (volumeId.empty())
		return fail(Errc::InvalidArgument, "volume_id is required");
	if (const auto problem = volumeIdProblem(volumeId))
		return fail(Errc::InvalidArgument, "volume_id: " + *problem);
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

Result<void> checkIdAndPath(const std::string &volumeId, const char *field, const std::string &path)
{
	if (auto ok = checkVolumeId(volumeId); !ok)
		return ok;
	return checkPath(field, path);
}

Result<Capability> capabilityOf(const char *field, const CapabilityField &capability)
{
	const std::string name(field);
	if (!capability.present)
		return fail(Errc::InvalidArgument, name + " is required");
	Capability result;
	switch (capability.access) {
	case CapabilityField::Access::Block:
		result.block = true;
		break;
	case CapabilityField::Access::Mount:
		result.fsType = capability.fsType;
		result.mountFlags = capability.mountFlags;
		break;
	case CapabilityField::Access::None:
		return fail(Errc::InvalidArgument,
			    name + " has neither block nor mount access type");
	}
	if (capability.accessMode == 0)
		return fail(Errc::InvalidArgument, name + ".access_mode is required");
	result.mode = static_cast<AccessMode>(capability.accessMode);
	return result;
}

Result<Secret> encryptionPassphraseOf(const std::map<std::string, std::string> &secrets)
{
	const auto found = secrets.find("encryptionPassphrase");
	if (found == secrets.end() || found->second.empty())
		return fail(Errc::InvalidArgument,
			    "the volume is encrypted, and the stage secrets hold no "
			    "encryptionPassphrase: add it to the Secret the StorageClass's "
			    "csi.storage.k8s.io/node-stage-secret-name names");
	if (found->second.size() > 4096)
		return fail(Errc::InvalidArgument,
			    "the stage secret's encryptionPassphrase is longer than 4096 bytes");
	return Secret(found->second);
}

Result<CephSecret> cephSecretOf(const std::map<std::string, std::string> &secrets)
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

} /* namespace rbdvolume::csi */
