/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel's word that a block device changed (a new size, among other
 * things): its "change" uevents, from a NETLINK_KOBJECT_UEVENT socket. A
 * waiter sleeps in poll() until one comes for its device or its time is up.
 */
#pragma once

#include <chrono>
#include <string>

#include <sys/types.h>

#include "common/unique_fd.hpp"

namespace rbdvolume::csi {

class DeviceChanges
{
public:
	/* Listens from now on. Without a socket (refused here) every wait lasts to its end. */
	DeviceChanges();

	/*
	 * True when a change of the block device at `device` was announced
	 * before `until`, or may have been (the kernel dropped events); false
	 * at `until`.
	 */
	bool wait(const std::string &device, std::chrono::steady_clock::time_point until);

private:
	/* Reads what is queued; true when one is a change of `device`, or some were lost. */
	bool drain(dev_t device);

	UniqueFd socket_;
};

} /* namespace rbdvolume::csi */
