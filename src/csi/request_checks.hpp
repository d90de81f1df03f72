/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The checks every Node call makes of its request, and its parts as plain
 * values. No gRPC here: the node service copies the request's fields in.
 */
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "common/secret.hpp"
#include "csi/stage_spec.hpp"

namespace rbdvolume::csi {

/* volume_id: present, and what a spec's volume-id may be (config::volumeIdProblem). */
Result<void> checkVolumeId(const std::string &volumeId);

/* A required path field: absolute, no '.', '..' or empty component, no trailing '/'. */
Result<void> checkPath(const char *field, const std::string &path);

/* checkVolumeId(), then checkPath(): what every node operation checks first. */
Result<void> checkIdAndPath(const std::string &volumeId, const char *field,
			    const std::string &path);

/* A volume_capability as the request carries it, nothing checked yet. */
struct CapabilityField {
	enum class Access : uint8_t { None, Block, Mount };

	bool present = false;
	Access access = Access::None;
	std::string fsType;		     /* mount.fs_type */
	std::vector<std::string> mountFlags; /* mount.mount_flags */
	int accessMode = 0;		     /* access_mode.mode; 0 (UNKNOWN) when absent */
};

/* volume_capability: present, with an access type and a known access mode. */
Result<Capability> capabilityOf(const char *field, const CapabilityField &capability);

/* The Ceph identity in the stage secrets. */
/*
 * The stage secret's encryptionPassphrase, which encrypted volumes need.
 * The message of an Error names the key, never a value.
 */
Result<Secret> encryptionPassphraseOf(const std::map<std::string, std::string> &secrets);

struct CephSecret {
	std::string userId;
	std::string key;
};

/*
 * userID and userKey, or the in-tree migration's adminId and key. The
 * message of an Error names the keys, never a value.
 */
Result<CephSecret> cephSecretOf(const std::map<std::string, std::string> &secrets);

} /* namespace rbdvolume::csi */
