/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a mounted ext4 says of its own errors. After a failed journal write
 * (krbd's ENOSPC on a full pool, an I/O timeout) ext4 aborts its journal and
 * fails every later write, yet its mount still says rw: Linux 6.1's stable
 * kernels no longer mark the superblock read-only, whatever errors= says.
 * The kernel's count of recorded errors is the one sign (sysfs, never the
 * device). e2fsck's full check clears it, so a count above zero on a
 * staged volume is an error since the check before its mount.
 */
#pragma once

#include <string>

#include "host/system_roots.hpp"

namespace rbdvolume {

/*
 * "ext4 on /dev/rbd0 recorded 3 errors since its last check, the last at
 * 10:02:03", from /sys/fs/ext4/NAME/; "" when it recorded none, or when
 * it is not an ext4 the kernel has mounted.
 */
std::string ext4ErrorRecord(const SystemRoots &roots, const std::string &device);

} /* namespace rbdvolume */
