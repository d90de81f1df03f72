/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* VolumeSpec: one volume as an operator declared it (spec v1), already validated. */
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/name_table.hpp"

namespace rbdvolume {

enum class Driver : uint8_t { Auto, Krbd, Nbd, Fuse };
enum class VolumeMode : uint8_t { Filesystem, Block };
enum class FsType : uint8_t { Ext4, Xfs };
enum class FormatPolicy : uint8_t { IfBlank, Never };
enum class CheckPolicy : uint8_t { Auto, Never };
enum class GrowPolicy : uint8_t { Auto, Never };

/* Each setting's names as a spec writes them, in the order a diagnostic lists them. */
inline constexpr std::array<Named<VolumeMode>, 2> VolumeModeNames = { {
	{ "filesystem", VolumeMode::Filesystem },
	{ "block", VolumeMode::Block },
} };
inline constexpr std::array<Named<Driver>, 4> DriverNames = { {
	{ "krbd", Driver::Krbd },
	{ "nbd", Driver::Nbd },
	{ "fuse", Driver::Fuse },
	{ "auto", Driver::Auto },
} };
inline constexpr std::array<Named<FsType>, 2> FsTypeNames = { {
	{ "ext4", FsType::Ext4 },
	{ "xfs", FsType::Xfs },
} };
inline constexpr std::array<Named<FormatPolicy>, 2> FormatPolicyNames = { {
	{ "if-blank", FormatPolicy::IfBlank },
	{ "never", FormatPolicy::Never },
} };
inline constexpr std::array<Named<CheckPolicy>, 2> CheckPolicyNames = { {
	{ "auto", CheckPolicy::Auto },
	{ "never", CheckPolicy::Never },
} };
inline constexpr std::array<Named<GrowPolicy>, 2> GrowPolicyNames = { {
	{ "auto", GrowPolicy::Auto },
	{ "never", GrowPolicy::Never },
} };

inline const char *driverName(Driver driver)
{
	return nameIn(DriverNames, driver);
}
inline const char *fsTypeName(FsType type)
{
	return nameIn(FsTypeNames, type);
}

/* Ensure-the-image settings: only hosts that may create images carry them. */
struct CreateSpec {
	uint64_t sizeBytes = 0;
	std::vector<std::string> features; /* empty: the cluster's defaults */

	bool operator==(const CreateSpec &) const = default;
};

struct ImageSpec {
	std::string pool;
	std::string radosNamespace; /* "" is the default namespace */
	std::string name;
	std::string snapshot; /* "" maps the image head; a snapshot is read-only */
	std::optional<CreateSpec> create;

	/* "pool/[namespace/]image[@snapshot]", the form the rbd CLI takes. */
	std::string display() const;

	bool operator==(const ImageSpec &) const = default;
};

struct ClusterSpec {
	std::string conf = "/etc/ceph/ceph.conf";
	std::string clientId = "admin"; /* without the "client." prefix */
	std::string keyring;		/* at most one of keyring and keyfile */
	std::string keyfile;
	std::vector<std::string> monitors; /* overrides the conf's mon host when set */

	bool operator==(const ClusterSpec &) const = default;
};

struct MapSpec {
	Driver driver = Driver::Auto;
	std::vector<std::string> krbdOptions; /* "key" or "key=value", as `rbd device map -o` */
	/* krbd fails writes to a full pool with ENOSPC (its abort_on_full); false: it
	 * holds them until there is room, as rbd-nbd and rbd-fuse do */
	bool krbdAbortOnFull = true;
	std::vector<std::string> nbdOptions;
	bool readOnly = false; /* true when the spec says so or maps a snapshot */
	bool exclusive = false;
	bool multiWriter = false; /* other clients may write: block mode only */

	bool operator==(const MapSpec &) const = default;
};

struct FilesystemSpec {
	FsType type = FsType::Ext4;
	std::vector<std::string> mkfsOptions;
	FormatPolicy format = FormatPolicy::IfBlank;
	CheckPolicy check = CheckPolicy::Auto;
	GrowPolicy grow = GrowPolicy::Auto;

	bool operator==(const FilesystemSpec &) const = default;
};

enum class KeySource : uint8_t { Keyfile, ImageMetadata };
enum class Pbkdf : uint8_t { Argon2id, Argon2i, Pbkdf2 };

inline constexpr std::array<Named<KeySource>, 2> KeySourceNames = { {
	{ "keyfile", KeySource::Keyfile },
	{ "image-metadata", KeySource::ImageMetadata },
} };
inline constexpr std::array<Named<Pbkdf>, 3> PbkdfNames = { {
	{ "argon2id", Pbkdf::Argon2id },
	{ "argon2i", Pbkdf::Argon2i },
	{ "pbkdf2", Pbkdf::Pbkdf2 },
} };

inline const char *pbkdfName(Pbkdf pbkdf)
{
	return nameIn(PbkdfNames, pbkdf);
}

/* cryptsetup's default; a key slot's unlock is benchmarked to cost this much */
inline constexpr std::chrono::milliseconds DefaultPbkdfTime{ 2000 };
/* Each open costs about pbkdf-time, within the device bound ([timeouts] device, 30 s). */
inline constexpr std::chrono::milliseconds MaxPbkdfTime{ 10000 };

/* LUKS2 on the mapped image; the filesystem (or the block device) lives on the mapping. */
struct EncryptionSpec {
	/* keyfile: its bytes are the passphrase. image-metadata: they unwrap the
	 * data key kept in the image's metadata, as ceph-csi keeps it. */
	KeySource source = KeySource::Keyfile;
	std::string keyfile;
	/* The bytes come with each up request instead of from keyfile (rbd-volume-csi's stage secret). */
	bool givenAtUp = false;
	std::string
		volumeId; /* image-metadata: the ID the key is wrapped for; "" is the image name */
	/* used when formatting; an existing header says its own */
	std::string cipher = "aes-xts-plain64";
	uint32_t keyBits = 512;
	Pbkdf pbkdf = Pbkdf::Argon2id;
	/* what one unlock of a new key slot costs, benchmarked: cryptsetup's --iter-time */
	std::chrono::milliseconds pbkdfTime{ DefaultPbkdfTime };

	bool operator==(const EncryptionSpec &) const = default;
};

struct StagingSpec {
	std::string path; /* defaults to /run/rbd-volume/staging/NAME */
	std::vector<std::string> options;

	bool operator==(const StagingSpec &) const = default;
};

struct PublishTarget {
	std::string path;
	bool readOnly = false; /* defaults to the volume's read-only */
	std::vector<std::string> options;

	bool operator==(const PublishTarget &) const = default;
};

struct VolumeSpec {
	std::string name;	/* the file stem */
	std::string sourceFile; /* where it came from, for messages */
	ImageSpec image;
	ClusterSpec cluster;
	MapSpec map;
	VolumeMode mode = VolumeMode::Filesystem;
	std::optional<FilesystemSpec> filesystem; /* set exactly when mode is Filesystem */
	std::optional<EncryptionSpec> encryption;
	StagingSpec staging;
	std::vector<PublishTarget> publish;

	bool readOnly() const { return map.readOnly; }
	bool operator==(const VolumeSpec &) const = default;
};

} /* namespace rbdvolume */
