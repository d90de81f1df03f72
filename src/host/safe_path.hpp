/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Paths we mount on, reached without following a symbolic link anywhere in
 * them. Anyone who may create a link below a publish path could otherwise
 * send a root-owned mount onto /etc. Each component is opened in the
 * directory opened before it (O_PATH|O_NOFOLLOW), made there (mkdirat) when
 * missing, and a link found on the way is refused, never followed: the
 * mount then goes onto the descriptor, not onto a path resolved again.
 */
#pragma once

#include <optional>
#include <string>

#include "common/result.hpp"
#include "common/unique_fd.hpp"

namespace rbdvolume {

enum class PathKind : uint8_t {
	Directory, /* a mount point for a filesystem or a bind of one */
	File,	   /* a bind target for a device node */
	Any,	   /* whatever is there (a bind source: a mount point or a device node) */
};

/*
 * An O_PATH descriptor of `path` (normal and absolute), or of the root of the
 * mount on it. NotFound when a component is missing; Conflict, naming the
 * link and where it points, when one is a symbolic link.
 */
Result<UniqueFd> openNoSymlinks(const std::string &path, PathKind kind = PathKind::Directory);

/* The same, making what is missing: directories 0755 and, for a File, an empty file 0600 (not Any). */
Result<UniqueFd> makeNoSymlinks(const std::string &path, PathKind kind);

/*
 * Why nothing of `kind` may be mounted on `path`: a symbolic link in it, a
 * component that is not a directory, or a last one of the wrong kind. Reads
 * only; nullopt when fine, missing, or not readable (the mount then says why).
 */
std::optional<std::string> pathProblem(const std::string &path, PathKind kind);

/* The descriptor is the root of a mount (statx STATX_ATTR_MOUNT_ROOT). */
bool isMountRoot(int fd);

/* "/proc/self/fd/N": how mount(2) and friends are pointed at a descriptor. */
std::string procFdPath(int fd);

} /* namespace rbdvolume */
