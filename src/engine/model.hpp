/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The reconcile core's values: what is wanted, what the host shows, what we own. */
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/name_table.hpp"
#include "config/volume_spec.hpp"

namespace rbdvolume {

/* Spec says what, intent says whether. */
enum class Intent : uint8_t { Down, Up };

inline constexpr std::array<Named<Intent>, 2> IntentNames = { {
	{ "up", Intent::Up },
	{ "down", Intent::Down },
} };

inline const char *intentName(Intent intent)
{
	return nameIn(IntentNames, intent);
}
inline std::optional<Intent> intentFromName(std::string_view name)
{
	return valueIn(IntentNames, name);
}

struct DesiredVolume {
	const VolumeSpec &spec;
	Intent intent = Intent::Down;
	/* The host shuts down: a device that gets no answer is abandoned, not waited for. */
	bool hostStopping = false;
};

/* One line of the mount table, as a MountTable port reports it. */
struct MountEntry {
	std::string target;
	std::string source; /* "/dev/loop0", or "devtmpfs"/"udev" for a bind of a device node */
	std::string root;   /* the mount's root within its filesystem ("/loop0" for a node bind) */
	std::string fsType;
	bool readOnly = false;
	std::string owner; /* the volume named by our marker option, "" when unmarked */

	bool operator==(const MountEntry &) const = default;
};

/* An RBD image mapped to a block device on this host, by any driver. */
struct MappedImage {
	std::string pool;
	std::string radosNamespace;
	std::string image;
	std::string snapshot;
	std::string device; /* "/dev/rbd0", "/dev/nbd3", "/dev/loop7" (fuse) */
	Driver driver = Driver::Krbd;
	bool readOnly = false;
	std::string fault; /* "" healthy; else why the device does no I/O, and what to do */
	std::string owner; /* the volume the driver's own marker names; "" when it has none */
	std::string stall; /* "" flowing; else why its requests get no answer (IoStallWatch) */

	bool operator==(const MappedImage &) const = default;
};

/* The mapping is of exactly this image (or snapshot). */
bool mapsImage(const MappedImage &mapped, const ImageSpec &image);

/*
 * A dm-crypt mapping of ours: named "rbdv-" + the volume, so the kernel's own
 * table says whose it is. It decrypts `backing`, the image's mapped device.
 */
struct CryptMapping {
	std::string name;    /* "rbdv-web" */
	std::string device;  /* "/dev/mapper/rbdv-web" */
	std::string backing; /* "/dev/rbd0" */
	bool readOnly = false;

	bool operator==(const CryptMapping &) const = default;
};

/* The name and device of a volume's LUKS mapping. */
std::string cryptNameOf(const std::string &volume);
std::string cryptDeviceOf(const std::string &volume);

/* What blkid calls a LUKS header. */
inline constexpr const char *LuksSignature = "crypto_LUKS";

/* What libblkid's safe probe saw on a device; only Blank may lead to a format. */
enum class ProbeKind : uint8_t {
	Unprobed,   /* nothing to probe: the image is not mapped */
	Blank,	    /* no superblock, no partition table, and zeros where data would start */
	Data,	    /* no signature libblkid knows, but data (random bytes, plain dm-crypt, a
		       database, a half-wiped image): type says where */
	Signature,  /* a filesystem, partition table, LUKS, LVM, swap, ... (type says which) */
	Ambivalent, /* several signatures: refuse, never guess */
	Failed,	    /* the probe itself failed */
};

struct ProbeResult {
	ProbeKind kind = ProbeKind::Unprobed;
	std::string type; /* "ext4", "xfs", "dos", "gpt", "crypto_LUKS", ...; or the failure */
	uint64_t deviceBytes = 0;     /* 0 when unknown */
	uint64_t filesystemBytes = 0; /* what an ext4 or xfs superblock spans; 0 when unknown */
	/* the signature's UUID, when it has one */
	std::string uuid = {}; // NOLINT(readability-redundant-member-init)

	/* The device carries exactly this filesystem. */
	bool shows(const std::string &fsType) const
	{
		return kind == ProbeKind::Signature && type == fsType;
	}
	bool operator==(const ProbeResult &) const = default;
};

/*
 * A filesystem within this much of its device fills it: tools round to their
 * block and allocation-group sizes, and a smaller grow is not worth a pass.
 */
constexpr uint64_t GrowSlackBytes = uint64_t{ 1 } << 20;

/* The device outgrew a filesystem sized for `sizedBytes` (0: unknown, so it may have). */
inline bool outgrew(uint64_t deviceBytes, uint64_t sizedBytes)
{
	return sizedBytes == 0 || deviceBytes > sizedBytes + GrowSlackBytes;
}

/* What rbd-volume itself created for a volume; persisted under /run/rbd-volume. */
struct Ownership {
	std::string mappedDevice; /* "" when we hold no mapping */
	bool mapPending = false;  /* a map was started and may have happened: adopt what appears */
	bool formatted = false;	  /* we ran mkfs on this image: never format it again */
	bool luksFormatted = false;  /* we wrote its LUKS header: never write one again */
	bool luksPending = false;    /* a LUKS format of ours was started and may be cut short:
					a header there is ours, its mapping not yet zeroed */
	uint64_t cryptSpanBytes = 0; /* the image device size the LUKS mapping was opened or
					grown for; 0 unknown (or not open) */
	bool staged = false;	     /* the staging mount is ours */
	uint64_t sizedBytes =
		0; /* the device size the filesystem was made or grown for; 0 unknown */
	std::vector<std::string> publishedTargets;

	bool ownsTarget(const std::string &path) const;
	bool empty() const;
	bool operator==(const Ownership &) const = default;
};

/* A mount seen on a path the volume cares about. */
struct ObservedMount {
	std::string path;
	std::string device; /* the block device behind it ("" when not a block device) */
	std::string fsType;
	bool readOnly = false;
	bool ours = false; /* marked by us, or recorded by us over the same device */

	bool operator==(const ObservedMount &) const = default;
};

/* A path the volume would mount on, and why it must not (a symbolic link in it). */
struct PathRefusal {
	std::string path;
	std::string reason;

	bool operator==(const PathRefusal &) const = default;
};

/* The kernel's truth for one volume, read afresh on every pass. */
struct ObservedVolume {
	std::optional<MappedImage> mapping; /* the spec's image, if mapped on this host */
	std::optional<CryptMapping> crypt;  /* our LUKS mapping of the volume, if open */
	ProbeResult rawProbe;	    /* encrypted: of mapping->device while the mapping is closed */
	ProbeResult probe;	    /* of the device the filesystem lives on (the LUKS mapping
				 when encrypted, else mapping->device) */
	uint64_t deviceBytes = 0;   /* mapping->device's size, read only when a grow may be due */
	uint64_t fsDeviceBytes = 0; /* the filesystem's device's size, likewise */
	std::optional<ObservedMount> staging;
	std::vector<ObservedMount> targets; /* mounts on desired targets and on targets we own */
	std::vector<ObservedMount>
		covered; /* our mounts on those paths, hidden under one not ours */
	std::vector<PathRefusal> refusedPaths; /* staging path or targets still to mount on */
	std::string poolFull;	   /* mapped read-write: why the pool takes no writes (Images) */
	std::string fsErrors;	   /* staged read-write: the errors its filesystem recorded */
	bool orphanMapper = false; /* our mapper process runs without a device (see Mapper) */
	bool stagingLeft = false;  /* going down: our empty staging directory is still there */
	Ownership owned;	   /* the record, tidied to what the host shows */
	Ownership stored;	   /* the record as it was read */
	bool recordStale = false;  /* `owned` differs from the stored record */

	const ObservedMount *target(const std::string &path) const;
	bool mappingIsOurs() const;
};

} /* namespace rbdvolume */
