/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Waiting for udev to have handled a block disk's coming or going, as `rbd
 * device map` and `unmap` wait: once its "add" event comes out of udev, the
 * device node and its /dev/rbd/POOL/IMAGE link are there and udev's own
 * blkid probe is over, so our probe and mkfs do not race it; once its
 * "remove" does, the link is gone.
 */
#pragma once

#include <chrono>
#include <memory>
#include <set>
#include <string>

#include <systemd/sd-device.h>

#include "common/c_handle.hpp"
#include "common/result.hpp"
#include "common/sd_ptr.hpp"

namespace rbdvolume {

class UdevDiskWatch
{
public:
	/*
	 * Listens to udev's block disk events from now on: started before the
	 * change, it cannot miss its event. Without udev on the host (no
	 * /run/udev/control: a container), nothing is awaited.
	 */
	static Result<UdevDiskWatch> start();

	/* Until udev has sent "add" ("remove") for the disk `sysname` ("rbd3"), at most `limit`. */
	Result<void> waitForAdd(const std::string &sysname, std::chrono::milliseconds limit);
	Result<void> waitForRemove(const std::string &sysname, std::chrono::milliseconds limit);

private:
	using MonitorPtr = CHandle<sd_device_monitor, sd_device_monitor_unref>;

	static int onEvent(sd_device_monitor *monitor, sd_device *device, void *userdata);
	Result<void> waitFor(const std::string &event, std::chrono::milliseconds limit);

	/* "add rbd3", "remove rbd3": what udev said since start(); on the heap, where onEvent writes. */
	std::unique_ptr<std::set<std::string>> seen_ = std::make_unique<std::set<std::string>>();
	EventPtr event_;
	MonitorPtr monitor_; /* goes first, and its source with it */
};

} /* namespace rbdvolume */
