/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ceph-csi's volume context (the StorageClass parameters its provisioner
 * copied, plus what CreateVolume added, or a static PV's volumeAttributes)
 * read into plain values. No gRPC and no I/O; stage_spec.cpp decides what
 * the values mean for a volume.
 */
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace rbdvolume::csi {

/* ceph-csi's "mounter": "rbd" (or absent) is the kernel client, "rbd-nbd" is rbd-nbd. */
enum class Mounter : uint8_t { Krbd, Nbd };

/* mapOptions or unmapOptions, "krbd:a,b;nbd:c,d", split by the mounter they are for. */
struct MounterOptions {
	std::vector<std::string> krbd; /* "key" or "key=value", no empty entries */
	std::vector<std::string> nbd;  /* rbd-nbd long options without "--" */

	bool empty() const { return krbd.empty() && nbd.empty(); }
	bool operator==(const MounterOptions &) const = default;
};

/* ceph-csi's encryption keys as given; stage_spec.cpp decides what they mean. */
struct EncryptionContext {
	bool encrypted = false;
	std::string type;	/* encryptionType: "block", "file" or "" */
	std::string kmsId;	/* encryptionKMSID: "" is ceph-csi's default KMS */
	std::string cipher;	/* encryptionCipher */
	std::string keySize;	/* encryptionKeySize */
	std::string sectorSize; /* encryptionSectorSize */
	std::string integrity;	/* integrityMode */
};

struct VolumeContext {
	std::string clusterId;
	std::string pool;
	std::string imageName;	    /* "" when absent */
	std::string radosNamespace; /* "" when absent */
	bool staticVolume = false;
	Mounter mounter = Mounter::Krbd;
	MounterOptions mapOptions;
	MounterOptions unmapOptions;
	/* Split on whitespace; in ceph-csi they replace the default mkfs arguments. */
	std::vector<std::string> mkfsOptions;
	std::string imageFeatures; /* kept only to be reported as ignored */
	bool tryOtherMounters = false;
	EncryptionContext encryption;

	/* "KEY: ignored, REASON" for each known key this node does not act on. */
	std::vector<std::string> ignored;
	/* Keys neither ceph-csi's node plugin nor we know, for debug logging. */
	std::vector<std::string> unknownKeys;
};

/*
 * ceph-csi's map/unmap option syntax: pieces separated by ';', each
 * "krbd:LIST", "nbd:LIST" or a bare LIST (krbd). LIST is split on ',';
 * empty pieces and entries are skipped. A value containing ':' needs the
 * prefix ("krbd:crush_location=host:a"), as in ceph-csi. A mounter given
 * twice keeps its last list, as ceph-csi does; `notes` gets a line saying
 * so. `key` names the context key in messages.
 */
Result<MounterOptions> parseMounterOptions(std::string_view key, std::string_view text,
					   std::vector<std::string> &notes);

/*
 * Reads every key of `context`. An Error (InvalidArgument) names the key, the
 * value and what would be accepted: a bad staticVolume, mounter, encrypted or
 * tryOtherMounters value, or bad map/unmap option syntax. Missing keys are
 * not errors here; the caller knows which it needs.
 */
Result<VolumeContext> parseVolumeContext(const std::map<std::string, std::string> &context);

} /* namespace rbdvolume::csi */
