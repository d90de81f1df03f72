/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a mounted filesystem says of its own errors, never reading the
 * device. After a failed journal write (krbd's ENOSPC on a full pool, an
 * I/O timeout) ext4 aborts its journal and fails every later write, yet its
 * mount still says rw: Linux 6.1's stable kernels no longer mark the
 * superblock read-only, whatever errors= says. The kernel's count of
 * recorded errors is the one sign (sysfs). e2fsck's full check clears it,
 * so a count above zero on a staged volume is an error since the check
 * before its mount. xfs shuts itself down instead, its mount unchanged
 * too; from then on it answers even a stat of its root with EIO, from
 * memory.
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

/*
 * "xfs on /dev/rbd0 is shut down ...", when the xfs mounted at mountPath
 * (ours: no symlink is followed) answers a stat of its root with EIO; ""
 * otherwise.
 */
std::string xfsShutdownRecord(const std::string &device, const std::string &mountPath);

} /* namespace rbdvolume */
