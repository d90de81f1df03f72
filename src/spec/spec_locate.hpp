/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where a volume's spec lives: /run/rbd-volume/volumes (CSI) or /etc/rbd-volume/volumes. */
#pragma once

#include <string>
#include <vector>

#include "common/result.hpp"

namespace rbdvolume {

/* The spec directories, in the order they are searched. */
std::vector<std::string> defaultSpecDirs();

/*
 * The one file NAME.toml among `dirs`. NotFound when there is none;
 * Conflict when two directories both define the volume (never guess which).
 */
Result<std::string> locateSpec(const std::string &name, const std::vector<std::string> &dirs);

} /* namespace rbdvolume */
