/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Where the external programs are and how long each may run: defined once
 * here, set by rbd-volumed.toml's [tools] and [timeouts] (DaemonConfig holds
 * both structs), handed as they are to the host's formatter and drivers.
 */
#pragma once

#include <chrono>
#include <string>

#include "common/paths.hpp"
namespace rbdvolume {

/* The filesystem programs, and the bound of a call through a mapped device. */
struct ToolConfig {
	std::string mkfsExt4 = "/usr/sbin/mkfs.ext4";	/* [tools] mkfs-ext4 */
	std::string mkfsXfs = "/usr/sbin/mkfs.xfs";	/* [tools] mkfs-xfs */
	std::string e2fsck = "/usr/sbin/e2fsck";	/* [tools] e2fsck */
	std::string resize2fs = "/usr/sbin/resize2fs";	/* [tools] resize2fs */
	std::string xfsGrowfs = "/usr/sbin/xfs_growfs"; /* [tools] xfs-growfs */

	std::chrono::milliseconds mkfsTimeout{ std::chrono::minutes(10) }; /* [timeouts] mkfs */
	std::chrono::milliseconds fsckTimeout{ std::chrono::minutes(10) }; /* [timeouts] fsck */
	std::chrono::milliseconds growTimeout{ std::chrono::minutes(10) }; /* [timeouts] grow */
	/* [timeouts] device: a call through a mapped device (probe, mount, unmount, loop detach). */
	std::chrono::milliseconds deviceTimeout{ std::chrono::seconds(30) };

	bool operator==(const ToolConfig &) const = default;
};

/* The mapping programs. */
struct DriverTools {
	std::string rbd = "/usr/bin/rbd";	      /* [tools] rbd */
	std::string rbdNbd = "/usr/bin/rbd-nbd";      /* [tools] rbd-nbd */
	std::string systemctl = "/usr/bin/systemctl"; /* [tools] systemctl: the mapper units */
	/* Per-volume rbd-nbd settings, read by rbd-nbd@NAME.service's helper. */
	std::string nbdConfigDir{ paths::NbdConfigDir };

	/*
	 * [timeouts] map: `rbd device map`, longer than krbd's mount_timeout
	 * (60 s) on the sysfs write plus a cluster connect, so rbd's own error
	 * comes back instead of an uncertain kill.
	 */
	std::chrono::milliseconds mapTimeout{ std::chrono::seconds(120) };
	/*
	 * [timeouts] unmap: krbd retries a busy unmap after `udevadm settle
	 * --timeout 10`; rbd-nbd drains its I/O.
	 */
	std::chrono::milliseconds unmapTimeout{ std::chrono::seconds(90) };
	/*
	 * After the unit's start: under systemd its ExecStartPost waited for the
	 * device already, so it shows at once; without systemd (the test tiers)
	 * this waits for rbd-nbd to connect.
	 */
	std::chrono::milliseconds nbdReadyTimeout{ std::chrono::seconds(30) };
	std::chrono::milliseconds nbdPollInterval{ 100 };
	/* Between tries of a krbd unmap the kernel found busy while nobody holds the device. */
	std::chrono::milliseconds busyRetryInterval{ 1000 };
	/*
	 * krbd maps read-write with abort_on_full: on a full pool (or cluster)
	 * writes fail with ENOSPC instead of waiting, unanswered, for space.
	 * Not a setting: the host's adapters turn it on where the running
	 * kernel knows the option (5.0 and later).
	 */
	bool krbdAbortOnFull = false;

	bool operator==(const DriverTools &) const = default;
};

} /* namespace rbdvolume */
