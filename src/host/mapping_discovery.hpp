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
#include "host/system_roots.hpp"

namespace rbdvolume {

/* krbd: /sys/bus/rbd/devices/ID/{pool,pool_ns,name,current_snap}, device /dev/rbdID. */
std::vector<MappedImage> listKrbdMappings(const SystemRoots &roots);

/*
 * rbd-nbd: /sys/block/nbdN/pid names the process, or (after a re-attach,
 * which leaves that pid stale) an `rbd-nbd attach --device /dev/nbdN`
 * process does; its command line names the image. A stopped server is a fault.
 */
std::vector<MappedImage> listNbdMappings(const SystemRoots &roots);

/*
 * The volume named in rbd-volume's nbd cookie "rbd-volume.NAME.HASH" (made
 * by nbdCookie(), drivers/nbd_config.hpp); "" for anyone else's cookie.
 */
std::string nbdCookieOwner(const std::string &cookie);

/* The state letter of PROC/PID/stat ('R', 'S', 'D', 'T', 'Z', ...); '\0' when gone. */
char processState(const SystemRoots &roots, const std::string &pid);

/* "pool/[namespace/]image[@snap]" into a MappedImage's image fields; false when malformed. */
bool parseImageSpec(const std::string &text, MappedImage &image);

/* The image spec in an rbd-nbd command line (after "map" or "attach"), or "". */
std::string nbdImageArgument(const std::vector<std::string> &argv);

} /* namespace rbdvolume */
