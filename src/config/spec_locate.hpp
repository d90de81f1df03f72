/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where a volume's spec lives: /run/rbd-volume/volumes (CSI) or /etc/rbd-volume/volumes. */
#pragma once

#include <string>
#include <vector>

#include "common/result.hpp"

namespace rbdvolume {

/*
 * A directory entry the daemon reads as a spec: NAME.toml, not hidden (an
 * editor's or a package manager's leftover), and not a directory. Anything
 * else of that name (a FIFO, a link to a device) is a spec that is invalid.
 */
bool isSpecFileName(const std::string &fileName);

/* The spec directories, in the order they are searched. */
std::vector<std::string> defaultSpecDirs();

/*
 * The one file NAME.toml among `dirs`. NotFound when there is none;
 * Conflict when two directories both define the volume (never guess which).
 */
Result<std::string> locateSpec(const std::string &name, const std::vector<std::string> &dirs);

} /* namespace rbdvolume */
