/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * NodeStageVolume's request, as plain values, turned into the runtime spec
 * the daemon acts on. No gRPC and no I/O here: the node service copies the
 * request in, and writes what comes out.
 */
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "config/volume_spec.hpp"
#include "csi/cluster_map.hpp"
#include "csi/kms_config.hpp"

namespace rbdvolume::csi {

/* csi.v1 VolumeCapability.AccessMode.Mode, same numbers. */
enum class AccessMode : uint8_t {
	Unknown = 0,
	SingleNodeWriter = 1,
	SingleNodeReaderOnly = 2,
	MultiNodeReaderOnly = 3,
	MultiNodeSingleWriter = 4,
	MultiNodeMultiWriter = 5,
	SingleNodeSingleWriter = 6,
	SingleNodeMultiWriter = 7,
};

/* True for the *_READER_ONLY modes. */
bool readerOnly(AccessMode mode);

struct Capability {
	bool block = false;		     /* access_type block; else mount */
	std::string fsType;		     /* mount.fs_type; "" means ext4 */
	std::vector<std::string> mountFlags; /* mount.mount_flags */
	AccessMode mode = AccessMode::Unknown;
};

/* What NodeStageVolume carries, minus the secrets (the key goes to a file first). */
struct StageRequest {
	std::string volumeId;
	std::string stagingTargetPath; /* validated by the caller: absolute, normalised */
	Capability capability;
	std::map<std::string, std::string> volumeContext;
	std::string clientId; /* from the secrets: userID (or adminId) */
};

/* The shim's settings that shape a spec. */
struct StageSettings {
	/* When set, every volume uses this driver, whatever the context's mounter says. */
	std::optional<Driver> forcedDriver;
	std::string keyfile; /* where the caller wrote this volume's key (0600) */
	std::string conf;    /* a ceph.conf for tools that insist on one; "" keeps the default */
	/* ceph-csi's KMS config entry of an encryptionKMSID (the caller reads the file). */
	std::function<Result<KmsEntry>(const std::string &kmsId)> kmsEntry;
};

/* A staged block volume's device is bound onto this file inside the staging directory. */
constexpr const char *BlockStagingFile = "rbd-volume.block";

/*
 * The spec of volume `name` for `request`: its image from the volume
 * context (ceph-csi's keys: clusterID, pool, imageName, radosNamespace,
 * staticVolume, mounter, mapOptions, mkfsOptions, ...), its monitors from
 * `clusters`, its filesystem and mount options from the capability. The
 * spec has no publish targets. With encrypted = "true" it has [encryption]
 * with given-at-up (the stage secret's encryptionPassphrase): ceph-csi's
 * default KMS (no encryptionKMSID) keys LUKS with the passphrase itself,
 * its "metadata" KMS with a data key in the image's metadata that the
 * passphrase unwraps for the volume ID; every other KMS is refused by name. An Error (InvalidArgument, NotFound for an
 * unknown clusterID) says what is wrong in words an operator acts on.
 * `ignored` receives one line per context key that does not apply here
 * ("unmapOptions: ignored, rbd-volume unmaps only what it mapped"), for
 * debug logging.
 */
Result<VolumeSpec> stageSpec(const std::string &name, const StageRequest &request,
			     const ClusterMap &clusters, const StageSettings &settings,
			     std::vector<std::string> &ignored);

} /* namespace rbdvolume::csi */
