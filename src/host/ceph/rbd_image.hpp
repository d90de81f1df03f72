/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* RbdImage: an open RBD image and the few questions rbd-volume asks it. */
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <rados/librados.h>

#include "common/result.hpp"
#include "host/ceph/ceph_errors.hpp"
#include "host/ceph/ceph_handles.hpp"

namespace rbdvolume {

/* Which image, as messages name it. */
struct ImageRef {
	std::string name;
	std::string snapshot; /* "" for the head */
	std::string display;  /* "pool/ns/name@snap" */
};

class RbdImage
{
public:
	/*
	 * A read-only open registers no header watch, so inspecting an image
	 * never makes us one of its users. NotFound when the image (or the
	 * snapshot) does not exist.
	 */
	static Result<RbdImage> openReadOnly(rados_ioctx_t ioctx, const ImageRef &ref,
					     const CallContext &context);
	/* A read-write open watches the header for as long as it lasts: keep it short. */
	static Result<RbdImage> openReadWrite(rados_ioctx_t ioctx, const ImageRef &ref,
					      const CallContext &context);

	Result<uint64_t> size() const;
	Result<uint64_t> features() const;
	/* "ADDR client.ID" for each client watching the header. */
	Result<std::vector<std::string>> watchers() const;
	/* The addresses of the clients holding a lock on the image (the exclusive lock). */
	Result<std::vector<std::string>> lockOwners() const;
	/*
	 * true when no data object of the image exists, its parent's overlap
	 * included: every block reads as zeroes. Asked of librbd's fast-diff
	 * object map where the image has a valid one; else of each object, for
	 * an image of at most MaxObjectsAsked objects (4 GiB of 4 MiB objects).
	 * false when an object exists, and for a bigger image without the map.
	 */
	Result<bool> neverWritten() const;
	static constexpr uint64_t MaxObjectsAsked = 1024;
	/* Never shrinks (allow_shrink = false). */
	Result<void> grow(uint64_t sizeBytes);
	/* The value kept under `key` in the image's metadata; nullopt when none is. */
	Result<std::optional<std::string>> metadata(const std::string &key) const;
	/* Needs a read-write open. */
	Result<void> setMetadata(const std::string &key, const std::string &value);

private:
	RbdImage(ImagePtr image, ImageRef ref, CallContext context);

	Error error(int ret, const std::string &what) const;

	ImagePtr image_;
	ImageRef ref_;
	CallContext context_;
};

} /* namespace rbdvolume */
