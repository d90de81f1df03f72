/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Who keeps a block device busy, for the message of an unmap the kernel
 * refused: a device-mapper or other holder in sysfs, a mount of it in any
 * mount namespace (a service's private namespace keeps a copy of a mount
 * made before it started), a process with the device open. Read from sysfs
 * and /proc only: nothing here touches the device.
 */
#pragma once

#include <string>
#include <vector>

#include "host/mapping_discovery.hpp"

namespace rbdvolume {

/*
 * One line each, at most `limit` (then "... and N more"):
 * "held by dm-0 (rbdv-data)", "mounted at /srv/x in the mount namespace of
 * pid 812 (systemd-udevd)", "open by pid 4711 (sleep)". Empty when nothing
 * shows (a holder that came and went, such as udev's probe).
 */
std::vector<std::string> deviceHolders(const SystemRoots &roots, const std::string &device,
				       size_t limit = 4);

/* The holders joined with "; ", or `none` when there are none. */
std::string deviceHoldersText(const std::vector<std::string> &holders, const std::string &none);

} /* namespace rbdvolume */
