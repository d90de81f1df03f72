/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where the mapping tools are and how long they may run (from the daemon config). */
#pragma once

#include <chrono>
#include <string>

namespace rbdvolume {

struct DriverTools {
	std::string rbd = "/usr/bin/rbd";
	std::string rbdNbd = "/usr/bin/rbd-nbd";
	std::string systemctl =
		"/usr/bin/systemctl"; /* for the SystemctlUnits the nbd driver uses */
	/* Per-volume rbd-nbd settings, read by rbd-nbd@NAME.service's helper. */
	std::string nbdConfigDir = "/run/rbd-volume/nbd";

	/*
	 * `rbd device map`: longer than krbd's mount_timeout (60 s) on the
	 * sysfs write plus a cluster connect, so rbd's own error comes back
	 * instead of an uncertain kill.
	 */
	std::chrono::milliseconds mapTimeout{ std::chrono::seconds(120) };
	/* krbd retries a busy unmap after `udevadm settle --timeout 10`; rbd-nbd drains its I/O. */
	std::chrono::milliseconds unmapTimeout{ std::chrono::seconds(90) };
	/*
	 * After the unit's start: under systemd its ExecStartPost waited for the
	 * device already, so it shows at once; without systemd (the test tiers) this waits for rbd-nbd to connect.
	 */
	std::chrono::milliseconds nbdReadyTimeout{ std::chrono::seconds(30) };
	std::chrono::milliseconds nbdPollInterval{ 100 };
};

} /* namespace rbdvolume */
