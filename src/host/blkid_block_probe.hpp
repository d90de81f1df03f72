/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The BlockProbe port over libblkid's safe probe: superblocks AND partitions. */
#pragma once

#include <chrono>
#include <cstdint>
#include <utility>
#include <vector>

#include "engine/ports.hpp"

namespace rbdvolume {

/* A run of bytes on a device: where it starts and how long it is. */
struct ByteRange {
	uint64_t offset = 0;
	uint64_t length = 0;
};

/*
 * Where a device with no signature must read zeros to be Blank: the first
 * and last MiB (where a filesystem, a partition table or a data file starts
 * or ends) and 64 KiB at each quarter. About 2.3 MiB; all of a small device.
 */
std::vector<ByteRange> blankRegions(uint64_t deviceBytes);

/*
 * Only a probe that finds nothing in both chains, and zeros where data
 * would start, is Blank. A filesystem, a partition table (dos, gpt), LUKS,
 * LVM, swap or RAID member is a Signature named by its TYPE or PTTYPE;
 * several at once is Ambivalent; none but data is Data. The probe reads
 * the device: it runs as a boundedCall, so a device whose server is gone
 * fails it after `deviceTimeout` instead of holding its caller.
 */
class BlkidBlockProbe : public BlockProbe
{
public:
	explicit BlkidBlockProbe(std::chrono::milliseconds deviceTimeout = std::chrono::seconds(30))
		: deviceTimeout_(deviceTimeout)
	{
	}

	ProbeResult probe(const std::string &device) override;
	/* BLKGETSIZE64: the kernel's number, no I/O through the device. */
	Result<uint64_t> deviceSize(const std::string &device) override;
	/* ext4's error count in sysfs, an xfs shut down (see fs_error_record.hpp). */
	std::string filesystemErrors(const std::string &device, const std::string &fsType,
				     const std::string &mountPath) override;

private:
	std::chrono::milliseconds deviceTimeout_;
};

} /* namespace rbdvolume */
