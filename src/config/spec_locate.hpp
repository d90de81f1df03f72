/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where a volume's spec lives: /run/rbd-volume/volumes (CSI) or /etc/rbd-volume/volumes. */
#pragma once

#include <string>
#include <system_error>
#include <vector>

#include "common/result.hpp"

namespace rbdvolume {

/*
 * A directory entry the daemon reads as a spec: NAME.toml, not hidden (an
 * editor's or a package manager's leftover), and not a directory. Anything
 * else of that name (a FIFO, a link to a device) is a spec that is invalid.
 */
bool isSpecFileName(const std::string &fileName);

/*
 * Every spec file directly in `dir`, sorted, as the spec store reads them;
 * false, with `error` set, when the directory cannot be read.
 */
bool listSpecFiles(const std::string &dir, std::vector<std::string> &files, std::error_code &error);

/* The spec directories, in the order they are searched. */
std::vector<std::string> defaultSpecDirs();

/*
 * The one file NAME.toml among `dirs`. NotFound when there is none;
 * Conflict when two directories both define the volume (never guess which).
 */
Result<std::string> locateSpec(const std::string &name, const std::vector<std::string> &dirs);

} /* namespace rbdvolume */
