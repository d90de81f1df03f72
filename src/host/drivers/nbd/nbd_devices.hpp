/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rbd-nbd devices by their kernel backend cookie (/sys/block/nbdN/backend,
 * Linux 5.14+): the proof that a device is a volume's, that it was connected
 * through netlink, and that it can be re-attached after rbd-nbd died.
 */
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "host/system_roots.hpp"

namespace rbdvolume {

/* "/dev/nbd3" for the device whose backend is `cookie`; nullopt when none is. */
std::optional<std::string> nbdDeviceWithCookie(const SystemRoots &roots, const std::string &cookie);

/* "nbd3" for "/dev/nbd3"; "" when `device` is no whole nbd device node. */
std::string nbdDeviceName(const std::string &device);

/* The device's backend attribute; nullopt when it has none (not connected through netlink). */
std::optional<std::string> nbdBackend(const SystemRoots &roots, const std::string &name);

/* The kernel maps the device read-only (its ro attribute). */
bool nbdReadOnly(const SystemRoots &roots, const std::string &name);

/* The device is connected: the kernel shows the pid of its server. */
bool nbdConnected(const SystemRoots &roots, const std::string &name);

enum class NbdState : uint8_t {
	Absent,	    /* no device of ours yet */
	Ready,	    /* a device carries our cookie */
	NotNetlink, /* our server's device has no (or another) backend: it used the ioctl interface */
};

struct NbdCheck {
	NbdState state = NbdState::Absent;
	std::string device;

	bool operator==(const NbdCheck &) const = default;
};

/* Where the volume's device stands; `served` are devices our rbd-nbd process serves. */
NbdCheck checkNbd(const SystemRoots &roots, const std::string &cookie,
		  const std::vector<std::string> &served);

/* The devices whose pid attribute is `pid` (the process rbd-nbd@.service started). */
std::vector<std::string> nbdDevicesOfPid(const SystemRoots &roots, const std::string &pid);

/*
 * Calls `check` until it reports Ready, or NotNetlink on the same device
 * twice in a row, or `deadline` passes (Absent). Twice, because a netlink
 * connect shows the device's pid an instant before its backend.
 */
NbdCheck waitForNbd(const std::function<NbdCheck()> &check,
		    std::chrono::steady_clock::time_point deadline,
		    std::chrono::milliseconds interval);

} /* namespace rbdvolume */
