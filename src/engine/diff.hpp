/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Diff: the gaps between desired and observed, and the conflicts we refuse to fix. */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/model.hpp"

namespace rbdvolume {

enum class GapKind : uint8_t {
	/* teardown: things of ours that must go */
	TargetStale, /* our bind on a path no longer wanted, on an old device, or with the wrong mode */
	StagingStale, /* our staging mount of a device that is no longer the mapping */
	CryptStale,   /* our LUKS mapping while the volume is down */
	MappingStale, /* our mapping while the volume is down */
	OrphanMapper, /* our mapper process runs without a device: a map or unmap cut short */
	/* setup: things that must come */
	ImageSmall, /* mapped, but the spec asks for a larger image: grow the image */
	NotMapped,
	LuksBlank,  /* encrypted: a blank image device we may write a LUKS header on */
	LuksClosed, /* encrypted: the LUKS mapping is not open */
	LuksSmall,  /* encrypted: the image device grew under the open mapping */
	Blank,	    /* a blank device the spec lets us format */
	NotStaged,
	NotPublished,
	GrowOffline, /* ext4 about to be staged: grow it first if the device grew */
	GrowOnline,  /* staged (or xfs about to be): grow it in place if the device grew */
};

struct Gap {
	GapKind kind;
	std::string subject; /* the path or device concerned ("" for NotMapped) */

	bool operator==(const Gap &) const = default;
};

enum class ConflictKind : uint8_t {
	ForeignMount,	  /* something not ours is mounted on the staging path or a target,
			     or (going down) covers a mount of ours there */
	ForeignMapping,	  /* the image is mapped, but not by us */
	ForeignSignature, /* the device carries something other than the spec's filesystem */
	AmbivalentProbe,  /* libblkid saw more than one signature */
	ProbeFailed,	  /* the device could not be probed */
	LostFilesystem,	  /* we formatted this image, yet it now looks blank */
	BlankNoFormat,	  /* blank, and the spec says format = never or the volume is read-only */
	ReadOnlyMismatch, /* mapped or staged read-write/read-only against the spec */
	ModeMismatch,	  /* staged or published in block mode against a filesystem spec, the
			      reverse, or as another filesystem type */
	MapperLost,	  /* the mapping's server died and cannot be reattached (fuse): the
			      device fails all I/O until the volume is staged again */
	IoStalled,	  /* the device's requests get no answer: the cluster is away */
	UnsafePath,	  /* the staging path or a target has a symbolic link in it */
	UnknownData,	  /* no signature, but not blank: data nobody can name */
	Abandoned,	  /* going down at shutdown, the device gets no answer: its mounts are
			     detached and it is left mapped for the poweroff */
	FilesystemErrors, /* our read-write filesystem recorded errors since its check: an
			     aborted ext4 journal fails every write under a rw mount */
	PoolFull,	  /* mapped read-write on a pool the monitors flag full: writes fail
			     (krbd, ENOSPC) or wait (rbd-nbd, rbd-fuse) until there is room */
};

const char *conflictKindName(ConflictKind kind);

struct Conflict {
	ConflictKind kind;
	std::string subject; /* the path or device */
	std::string detail;  /* what was found, for a human */

	bool operator==(const Conflict &) const = default;
};

struct VolumeDiff {
	std::vector<Gap> gaps; /* teardown gaps first, then setup gaps in dependency order */
	std::vector<Conflict> conflicts;
	bool detach = false; /* the stale mounts leave the tree at once (Abandoned) */

	bool converged() const { return gaps.empty() && conflicts.empty(); }
};

VolumeDiff diff(const DesiredVolume &desired, const ObservedVolume &observed);

} /* namespace rbdvolume */
