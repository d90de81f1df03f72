/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Ports: the narrow interfaces behind which every side effect sits. Each has
 * one real adapter (src/host) and one fake (tests/support). Ports carry no
 * policy: no retries, no logging above debug. Mutating calls are idempotent
 * and say whether they changed anything. A call returns only once its attempt
 * is over: on Errc::Timeout the command was killed and reaped, so what it did
 * (or not) is visible to the next read; only a tool or call stuck in the
 * kernel on a device that does not answer is left behind (boundedCall), its
 * outcome uncertain until the device answers again.
 *
 * Calls come from the daemon's worker threads, for different volumes at
 * once: an adapter is safe to call concurrently, and one volume's calls
 * never overlap (one episode per volume at a time).
 */
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "config/volume_spec.hpp"
#include "engine/model.hpp"

namespace rbdvolume {

enum class Change : uint8_t { Unchanged, Changed };

/* What ensuring an image did, for the record: "created, 256 MiB", "grown from 64 MiB to 96 MiB". */
struct ImageChange {
	Change change = Change::Unchanged;
	std::string detail;   /* empty when unchanged */
	bool created = false; /* made empty by this call: every block reads as zero */
};

/*
 * What a device holds before mkfs, as far as the caller knows: zeroes only
 * when it is an image the same run created, or one the cluster proves was
 * never written (Images::readsZeroes), and nothing has written since.
 */
enum class DeviceContents : uint8_t { Unknown, Zeroes };

/* What a mapper needs of a volume: its name, image, cluster and [map]; nothing of its filesystem. */
struct MapRequest {
	std::string volume;
	ImageSpec image;
	ClusterSpec cluster;
	MapSpec map;

	bool readOnly() const { return map.readOnly; }
	bool operator==(const MapRequest &) const = default;
};

/* What the cluster needs to ensure an image and to tell who else writes it. */
struct ImageRequest {
	std::string volume; /* whose image: for messages */
	ImageSpec image;
	ClusterSpec cluster;
	bool readOnly = false;	  /* mapped read-only: other writers do not matter */
	bool multiWriter = false; /* the volume shares the image on purpose */

	bool operator==(const ImageRequest &) const = default;
};

/* What LUKS needs of a volume: whose, how it is keyed, and where its key may be kept. */
struct CryptRequest {
	std::string volume;
	EncryptionSpec encryption;
	ImageSpec image; /* image-metadata keys live in the image */
	ClusterSpec cluster;
	bool readOnly = false;

	bool operator==(const CryptRequest &) const = default;
};

MapRequest mapRequestOf(const VolumeSpec &spec);
ImageRequest imageRequestOf(const VolumeSpec &spec);
/* Only for a spec with [encryption]. */
CryptRequest cryptRequestOf(const VolumeSpec &spec);

class MountTable
{
public:
	virtual ~MountTable() = default;
	/* The whole table, bottom of each stack first; read once per pass. */
	virtual Result<std::vector<MountEntry>> read() = 0;
};

struct MountRequest {
	std::string source; /* a block device, or a path to bind */
	std::string target; /* created (directory, or file for a device node) when missing */
	std::string fsType; /* "" for a bind mount */
	std::vector<std::string> options;
	bool readOnly = false;
	std::string owner; /* the volume name carried in our marker option */
};

/* What a mount point is: a directory for a filesystem, a file for a device node's bind. */
enum class MountPointKind : uint8_t { Directory, File };

class Mounter
{
public:
	virtual ~Mounter() = default;
	virtual Result<Change> mount(const MountRequest &request) = 0;
	/* Binds request.source on request.target; a read-only bind is bind then remount. */
	virtual Result<Change> bind(const MountRequest &request) = 0;
	/* Errc::Busy when a process holds the mount; Unchanged when nothing is mounted. */
	virtual Result<Change> unmount(const std::string &target) = 0;
	/*
	 * Takes the mount out of the tree at once (MNT_DETACH), whatever holds
	 * it; its filesystem lives on until its last user lets go. Only for a
	 * device that gets no answer while the host shuts down.
	 */
	virtual Result<Change> detach(const std::string &target) = 0;
	/*
	 * Why nothing may be mounted on `path`: a symbolic link in it (named with
	 * where it points), or something there already that is not a `kind` (a
	 * regular file where a directory is wanted). Reads only (a few
	 * syscalls); nullopt when the path is fine or does not exist yet.
	 * mount() and bind() refuse such a path too.
	 */
	virtual std::optional<std::string> pathProblem(const std::string &path,
						       MountPointKind kind) = 0;
	/*
	 * `path` is a directory this mounter made for a staging mount (below
	 * rbd-volume's staging root), now empty with nothing mounted: a crash
	 * came between an unmount and its removal. unmount() removes it.
	 */
	virtual bool mountPointLeft(const std::string &path) = 0;
};

class BlockProbe
{
public:
	virtual ~BlockProbe() = default;
	virtual ProbeResult probe(const std::string &device) = 0;
	/* The device's size in bytes (BLKGETSIZE64). */
	virtual Result<uint64_t> deviceSize(const std::string &device) = 0;
	/*
	 * What the filesystem of type fsType, mounted from the device at
	 * mountPath, says of its own errors since it was last checked or
	 * mounted ("" for none, or nothing known); from the kernel, never the
	 * device.
	 */
	virtual std::string filesystemErrors(const std::string &device, const std::string &fsType,
					     const std::string &mountPath) = 0;
};

/* What a pass sees of the mappers: list() and orphans() of one look. */
struct MapperView {
	std::vector<MappedImage> mappings;
	std::vector<std::string> orphans;
};

class Mapper
{
public:
	virtual ~Mapper() = default;
	/* Every RBD image mapped on this host, by any driver. */
	virtual Result<std::vector<MappedImage>> list() = 0;
	/* Maps the volume's image with its driver; returns the block device. */
	virtual Result<std::string> map(const MapRequest &request) = 0;
	virtual Result<Change> unmap(const MapRequest &request, const std::string &device) = 0;
	/*
	 * Volumes whose mapper process (rbd-fuse, rbd-nbd) runs or may run with
	 * no block device of theirs: a map or an unmap cut short by a crash. It
	 * holds the image open, and nothing else would ever stop it.
	 */
	virtual Result<std::vector<std::string>> orphans() = 0;
	/*
	 * Both at once, for a pass's snapshot. A driver whose two answers come
	 * from the same listing (fuse: the loop devices and their records)
	 * lists once; every pass of every episode takes one.
	 */
	virtual Result<MapperView> view()
	{
		auto mappings = list();
		if (!mappings)
			return tl::make_unexpected(mappings.error());
		auto orphaned = orphans();
		if (!orphaned)
			return tl::make_unexpected(orphaned.error());
		return MapperView{ std::move(*mappings), std::move(*orphaned) };
	}
	/* Stops the volume's orphan mapper and drops its files; Unchanged when there is none. */
	virtual Result<Change> stopOrphan(const MapRequest &request) = 0;
	/*
	 * A device that does not follow its image's size by itself is told to
	 * (fuse: the loop re-reads rbd-fuse's file). It asks the mapper's server,
	 * so it is called before a pass that acts, never from an observation
	 * alone; Changed when the device grew.
	 */
	virtual Result<Change> followImageSize(const MapRequest &request) = 0;
};

/*
 * What the kernel's rbd client needs from the cluster to map an image by
 * itself (/sys/bus/rbd/add_single_major): where the monitors listen, as
 * "IP:PORT" for each messenger protocol, and the image's feature bits, which
 * the kernel refuses to map when it lacks one.
 */
struct KernelMapFacts {
	std::vector<std::string> msgr1Monitors; /* ms_mode=legacy, krbd's default */
	std::vector<std::string> msgr2Monitors; /* every other ms_mode */
	uint64_t features = 0;			/* RBD_FEATURE_* bits of the image */

	bool operator==(const KernelMapFacts &) const = default;
};

/* The RBD images in the cluster: their existence, size and other users. */
class Images
{
public:
	virtual ~Images() = default;
	/*
	 * The image exists: created from request.image.create when missing,
	 * grown (never shrunk) to its size; a mismatch is Errc::Conflict.
	 */
	virtual Result<ImageChange> ensureImage(const ImageRequest &request) = 0;
	/*
	 * Before a read-write map: Errc::Busy, naming the clients, when another
	 * client has the image open (a watcher or the exclusive lock). Fine for
	 * read-only and multi-writer volumes.
	 */
	virtual Result<void> checkSoleWriter(const ImageRequest &request) = 0;
	/*
	 * Whether every block of the image reads as zeroes, as the cluster can
	 * prove it without reading them: no data object was ever written (its
	 * parent's overlap included). false when one was, and when it cannot
	 * tell cheaply; an error leaves the caller as unsure as false does.
	 */
	virtual Result<bool> readsZeroes(const ImageRequest &request) = 0;
	/* The value the image's metadata keeps under `key`; nullopt when it keeps none. */
	virtual Result<std::optional<std::string>> metadata(const ImageRequest &request,
							    const std::string &key) = 0;
	/* Sets `key` in the image's metadata (the image's head, even for a snapshot spec). */
	virtual Result<void> setMetadata(const ImageRequest &request, const std::string &key,
					 const std::string &value) = 0;
	/*
	 * Why writes to the image's pool fail or wait ("the pool 'rbd' is full:
	 * ..."), as last heard; "" when they do not, or nothing is known. Never
	 * waits on the cluster: an observation asks it. A cluster that is not
	 * watched knows nothing.
	 */
	virtual std::string poolFull(const ImageRequest &request) = 0;
	/* The monitors' addresses and the image's features, for krbd's own map. */
	virtual Result<KernelMapFacts> kernelMapFacts(const ImageRequest &request) = 0;
};

/* The filesystem on a mapped device: made, checked and grown by the filesystem's tools. */
class Filesystems
{
public:
	virtual ~Filesystems() = default;
	/*
	 * mkfs; the caller has just probed the device blank. Never forces.
	 * A device known to hold zeroes needs none written (ext4's journal).
	 * Answers the command line it ran, for the record.
	 */
	virtual Result<std::string> format(const std::string &device, const FilesystemSpec &fs,
					   DeviceContents contents) = 0;
	/*
	 * fsck before a read-write mount: what it found ("clean", "errors
	 * corrected", "not checked: xfs checks at mount"); Errc::Conflict when
	 * errors remain.
	 */
	virtual Result<std::string> check(const std::string &device, const FilesystemSpec &fs) = 0;
	/*
	 * Grows the filesystem to fill the device: online through `mountPoint`,
	 * or offline when it is "" (ext4 only). Unchanged when it already did.
	 */
	virtual Result<Change> grow(const std::string &device, const std::string &mountPoint,
				    const FilesystemSpec &fs) = 0;
};

/* LUKS2 on a volume's mapped device, opened as the volume's CryptMapping. */
class CryptDevices
{
public:
	virtual ~CryptDevices() = default;
	/* The LUKS mappings open on this host that carry our name prefix. */
	virtual Result<std::vector<CryptMapping>> opened() = 0;
	/*
	 * A LUKS2 header on `device`, which the caller has just probed blank, or
	 * which carries the header of a format of the caller's own cut short (the
	 * record's luksPending): that one is kept and its format finished.
	 * Afterwards the opened mapping probes blank too (where a filesystem
	 * signature would be, zeros through the cipher); it may be left open.
	 * Answers what it made, for the record ("LUKS2, aes-xts-plain64, ...").
	 */
	virtual Result<std::string> formatHeader(const CryptRequest &request,
						 const std::string &device) = 0;
	/*
	 * Opens `device` as cryptDeviceOf(volume); answers that device.
	 * PermissionDenied when the key opens no key slot; nothing is left open.
	 */
	virtual Result<std::string> open(const CryptRequest &request,
					 const std::string &device) = 0;
	/* Closes the mapping; Unchanged when it is not open, Busy while it is held. */
	virtual Result<Change> close(const std::string &volume) = 0;
	/* The mapping fills its device again after the device grew; Unchanged when it did. */
	virtual Result<Change> resize(const std::string &volume) = 0;
};

class OwnershipStore
{
public:
	virtual ~OwnershipStore() = default;
	/* An empty record when there is none. */
	virtual Result<Ownership> load(const std::string &volume) = 0;
	/* Atomic; an empty record removes the file. */
	virtual Result<void> save(const std::string &volume, const Ownership &record) = 0;
};

/* Everything the engine touches on a host. */
struct Host {
	MountTable &mountTable;
	Mounter &mounter;
	BlockProbe &probe;
	Mapper &mapper;
	Images &images;
	Filesystems &filesystems;
	OwnershipStore &records;
	CryptDevices &crypt;
};

} /* namespace rbdvolume */
