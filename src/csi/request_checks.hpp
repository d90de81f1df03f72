/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The checks every Node call makes of its request, and its parts as plain values. */
#pragma once

#include <map>
#include <string>

#include "common/result.hpp"
#include "csi.pb.h"
#include "csi/stage_spec.hpp"

namespace rbdvolume::csi {

/* volume_id: present, at most 128 bytes, no control characters. */
Result<void> checkVolumeId(const std::string &volumeId);

/* A required path field: absolute, no '.', '..' or empty component, no trailing '/'. */
Result<void> checkPath(const char *field, const std::string &path);

/* volume_capability: present, with an access type and a known access mode. */
Result<Capability> capabilityOf(const char *field, bool present,
				const ::csi::v1::VolumeCapability &capability);

/* The Ceph identity in the stage secrets. */
struct CephSecret {
	std::string userId;
	std::string key;
};

/*
 * userID and userKey, or the in-tree migration's adminId and key. The
 * message of an Error names the keys, never a value.
 */
Result<CephSecret> cephSecretOf(const google::protobuf::Map<std::string, std::string> &secrets);

std::map<std::string, std::string>
plainMap(const google::protobuf::Map<std::string, std::string> &map);

} /* namespace rbdvolume::csi */
