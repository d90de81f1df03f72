/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The command-line arguments that tell rbd and rbd-nbd which cluster to use, as whom. */
#pragma once

#include <string>
#include <vector>

#include "config/volume_spec.hpp"

namespace rbdvolume {

/* Appends --id ID, --keyring K or --keyfile F, -c CONF (unless Ceph's default) and -m MONS. */
void appendClusterArgs(std::vector<std::string> &argv, const ClusterSpec &cluster);

} /* namespace rbdvolume */
