/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Loop devices over image files: the fuse driver's block device, and the test mapper's. */
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "engine/ports.hpp"

namespace rbdvolume {

struct LoopInfo {
	std::string device;	 /* "/dev/loop3" */
	std::string backingFile; /* as the kernel reports it */
	bool readOnly = false;
	uint64_t diskseq = 0; /* new at every attach (Linux 5.15); 0 when unknown */
};

/* Attaches a free loop device over `file` (LOOP_CONFIGURE, direct I/O off). */
Result<std::string> attachLoop(const std::string &file, bool readOnly);

/* Detaches; Unchanged-like success when the device has no backing file any more. */
Result<void> detachLoop(const std::string &device);

/*
 * Detaches `device` unless it is in use (Busy): mounted here, or still held
 * by a filesystem elsewhere after `letGo` (an unmount not yet finished
 * writing back, another mount namespace), which LOOP_CLR_FD would only
 * defer. Unchanged when it is not attached. LOOP_CLR_FD waits for the
 * device's I/O: a boundedCall of `limit`.
 */
Result<Change> detachUnmountedLoop(const std::string &device,
				   std::chrono::milliseconds limit = std::chrono::seconds(30),
				   std::chrono::milliseconds letGo = std::chrono::seconds(10));

/* Re-reads the backing file's size (losetup -c), after an image grew. */
Result<void> refreshLoopSize(const std::string &device);

/* The file a loop device holds open: its filesystem's device and its inode. */
struct LoopBacking {
	uint64_t device = 0; /* st_dev of the backing file, as stat() encodes it */
	uint64_t inode = 0;

	bool operator==(const LoopBacking &) const = default;
};

/* From LOOP_GET_STATUS64: what the loop holds, whatever its backing path now shows. */
Result<LoopBacking> loopBacking(const std::string &device);

/* One loop device by its name ("loop3"), nullopt when it is not attached. */
std::optional<LoopInfo> readLoop(const std::string &name, const std::string &sysfsRoot = "/sys");

/*
 * Every attached loop device, from the backing_file of each loop under
 * sysfsRoot/devices/virtual/block (else sysfsRoot/block): the kernel's own
 * strings, no I/O through a backing file.
 */
Result<std::vector<LoopInfo>> listLoops(const std::string &sysfsRoot = "/sys");

} /* namespace rbdvolume */
