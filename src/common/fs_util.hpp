/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Small file-system helpers: directories, mount roots, bounded reads of small files. */
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

#include "common/file_io.hpp"
#include "common/result.hpp"

namespace rbdvolume {

/* mkdir -p; existing directories are fine. */
Result<void> makeDirectories(const std::string &path, mode_t mode = 0755);

/* An empty regular file at `path` (parents made), as a bind target for a device node. */
Result<void> ensureFile(const std::string &path);

bool isDirectory(const std::string &path);

/* True when `path` is the root of a mount (statx STATX_ATTR_MOUNT_ROOT): O(1), no table read. */
bool isMountPoint(const std::string &path);

/*
 * A state file of ours, or a /proc or /sys attribute: readFileBounded() with
 * the path in its errors ("'PATH': expected a file, found a FIFO").
 */
Result<std::optional<std::string>> readFile(const std::string &path,
					    size_t maxBytes = SmallFileBytes,
					    Symlinks symlinks = Symlinks::Refuse);

/* The names in `dir`, sorted; none when it cannot be read (a sysfs or /proc directory). */
std::vector<std::string> sortedEntries(const std::string &dir);

/* A one-value file (a sysfs attribute, /proc/PID/comm) without its newline; "" when absent. */
std::string attributeText(const std::string &path);

/* "pid 1234 (sleep)" for up to `limit` processes with a file, cwd or root below `path`. */
std::string processesUsing(const std::string &path, size_t limit = 3);

} /* namespace rbdvolume */
