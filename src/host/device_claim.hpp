/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Whether a filesystem (or another exclusive opener) still holds a block
 * device, asked the kernel's way: an exclusive open fails with EBUSY while
 * anything has it mounted, in any mount namespace, or claimed. Detaching a
 * loop or disconnecting an nbd under such a holder would only defer the
 * teardown or fail the filesystem's I/O, so both drivers ask first.
 */
#pragma once

#include <chrono>
#include <string>

namespace rbdvolume {

/*
 * True while `device` is held. Only EBUSY counts: a missing node (a
 * container's /dev) says nothing. The probe's fd is closed at once: held, it
 * would turn a loop detach into a deferred one.
 */
bool deviceClaimed(const std::string &device);

/*
 * Waits up to `letGo` for the holder to let go; true once it has. A mount
 * gone from every table can still hold the device: an unmount elsewhere
 * (systemd's at shutdown, an operator's) is writing the filesystem back,
 * and a dying service's mount namespace releases its copy of the mount
 * only as its last process exits. Those end by themselves; a mount in a
 * live namespace does not, and costs the caller `letGo`.
 */
bool waitUntilUnclaimed(const std::string &device,
			std::chrono::milliseconds letGo = std::chrono::seconds(10));

} /* namespace rbdvolume */
