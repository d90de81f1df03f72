/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which RBD images are mapped on this host, by any driver, read from sysfs
 * (and /proc for rbd-nbd's command line). The roots are parameters so the
 * parsing is tested on fake trees.
 */
#pragma once

#include <string>
#include <vector>

#include "engine/model.hpp"

namespace rbdvolume {

struct SystemRoots {
	std::string sysfs = "/sys";
	std::string proc = "/proc";
};

/* krbd: /sys/bus/rbd/devices/ID/{pool,pool_ns,name,current_snap}, device /dev/rbdID. */
std::vector<MappedImage> listKrbdMappings(const SystemRoots &roots);

/* rbd-nbd: /sys/block/nbdN/pid names the process; its command line names the image. */
std::vector<MappedImage> listNbdMappings(const SystemRoots &roots);

/*
 * The volume named in rbd-volume's nbd cookie "rbd-volume.NAME.HASH" (made
 * by nbdCookie(), drivers/nbd_config.hpp); "" for anyone else's cookie.
 */
std::string nbdCookieOwner(const std::string &cookie);

/* "pool/[namespace/]image[@snap]" into a MappedImage's image fields; false when malformed. */
bool parseImageSpec(const std::string &text, MappedImage &image);

/* The image spec in an rbd-nbd command line (after "map" or "attach"), or "". */
std::string nbdImageArgument(const std::vector<std::string> &argv);

} /* namespace rbdvolume */
