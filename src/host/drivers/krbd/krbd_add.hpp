/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What rbd-volumed writes to /sys/bus/rbd/add_single_major to map an image
 * itself, as `rbd device map` would (src/krbd.cc build_map_buf), without
 * its process, its second cluster connection and its wait:
 *
 *     MON[,MON...] name=ID,key=KEYNAME[,OPTION...][,_pool_ns=NS] POOL IMAGE SNAP|-
 *
 * The secret never appears in it: KEYNAME names a key of the "ceph" type the
 * writing process added to its keyring (kernel_key.hpp).
 */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/tool_config.hpp"
#include "engine/ports.hpp"

namespace rbdvolume {

/*
 * The kernel's options for the map: the spec's, without those only the rbd
 * tool reads (udev, noudev), then ro for a read-only map, exclusive, and
 * abort_on_full as krbdMapCommand() adds it.
 */
std::vector<std::string> krbdKernelOptions(const DriverTools &tools, const MapRequest &request);

/*
 * The line for the add file: the monitors of the protocol the options'
 * ms_mode speaks (msgr1 for legacy, the default; msgr2 for every other),
 * InvalidArgument when the cluster has none of those.
 */
Result<std::string> krbdAddLine(const MapRequest &request, const KernelMapFacts &facts,
				const std::vector<std::string> &options,
				const std::string &keyName);

/*
 * "journaling data-pool", as `rbd feature disable` takes them: the features
 * of the image the kernel's `supported` lacks and would refuse it for. A
 * read-only map (ro, a snapshot) is refused only for those that change what
 * the data is (layering, striping, data-pool, dirty-cache): the kernel asks
 * the image for its read-only incompatible set, as librbd's
 * RBD_FEATURES_INCOMPATIBLE and RBD_FEATURES_RW_INCOMPATIBLE say.
 */
std::string missingFeatures(uint64_t features, uint64_t supported, bool readOnly);

} /* namespace rbdvolume */
