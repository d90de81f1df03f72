/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/drivers/choose_driver.hpp"

#include "common/fs_util.hpp"

namespace rbdvolume {

/*
 * krbd first: no userspace server in the I/O path and nothing to restart.
 * nbd next: it survives its server's restart, but each volume costs a
 * process. fuse last: a loop device over a FUSE file is the slowest path.
 * Only loaded modules count; rbd and rbd-nbd could modprobe themselves, but
 * a choice that changes with load order would move volumes between drivers
 * across reboots. Hosts that want krbd or nbd load the module at boot.
 */
Driver chooseDriver(const SystemRoots &roots, Driver requested)
{
	if (requested != Driver::Auto)
		return requested;
	if (isDirectory(roots.sysfs + "/bus/rbd"))
		return Driver::Krbd;
	return driverAfterKrbd(roots);
}

Driver driverAfterKrbd(const SystemRoots &roots)
{
	return isDirectory(roots.sysfs + "/module/nbd") ? Driver::Nbd : Driver::Fuse;
}

} /* namespace rbdvolume */
