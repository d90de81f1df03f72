/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/blkid_block_probe.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <optional>
#include <unistd.h>
#include <utility>
#include <vector>

#include <blkid/blkid.h>

#include "common/bounded_call.hpp"
#include "common/c_handle.hpp"
#include "common/errno_text.hpp"
#include "common/file_io.hpp"
#include "common/unique_fd.hpp"
#include "host/fs_error_record.hpp"

namespace rbdvolume {

namespace {

using ProbePtr = CHandle<blkid_struct_probe, blkid_free_probe>;

ProbePtr openProbe(const std::string &device)
{
	ProbePtr probe(blkid_new_probe_from_filename(device.c_str()));
	if (!probe)
		return probe;
	blkid_probe_enable_superblocks(probe.get(), 1);
	blkid_probe_set_superblocks_flags(probe.get(), BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE |
							       BLKID_SUBLKS_UUID);
	blkid_probe_enable_partitions(probe.get(), 1);
	blkid_probe_set_partitions_flags(probe.get(), BLKID_PARTS_MAGIC);
	return probe;
}

std::string value(blkid_probe probe, const char *name)
{
	const char *data = nullptr;
	size_t size = 0;
	if (blkid_probe_lookup_value(probe, name, &data, &size) != 0 || !data)
		return {};
	return { data, strnlen(data, size) };
}

/* Every signature there is, wipefs-style, to name an ambivalent result. */
std::string allSignatures(const std::string &device)
{
	const ProbePtr probe = openProbe(device);
	if (!probe)
		return "unknown";
	std::string found;
	while (blkid_do_probe(probe.get()) == 0) {
		std::string type = value(probe.get(), "TYPE");
		if (type.empty())
			type = value(probe.get(), "PTTYPE");
		if (type.empty())
			continue;
		found += (found.empty() ? "" : ",") + type;
	}
	return found.empty() ? "unknown" : found;
}

uint64_t littleEndian(const unsigned char *bytes, size_t size)
{
	uint64_t value = 0;
	for (size_t i = size; i-- > 0;)
		value = (value << 8) | bytes[i];
	return value;
}

uint64_t bigEndian(const unsigned char *bytes, size_t size)
{
	uint64_t value = 0;
	for (size_t i = 0; i < size; i++)
		value = (value << 8) | bytes[i];
	return value;
}

/*
 * What the filesystem spans, from its primary superblock (libblkid 2.38 has
 * no FSSIZE): ext4 blocks_count (hi half with the 64bit feature) times its
 * block size; xfs dblocks times blocksize. 0 when unreadable or unknown.
 */
uint64_t filesystemBytes(int fd, const std::string &type)
{
	std::array<unsigned char, 1024> sb{};
	if (type == "ext4") {
		if (pread(fd, sb.data(), sb.size(), 1024) != static_cast<ssize_t>(sb.size()))
			return 0;
		const uint64_t logBlock = littleEndian(&sb.at(24), 4);
		if (logBlock > 6)
			return 0;
		uint64_t blocks = littleEndian(&sb.at(4), 4);
		constexpr uint64_t Incompat64Bit = 0x80;
		if ((littleEndian(&sb.at(0x60), 4) & Incompat64Bit) != 0)
			blocks |= littleEndian(&sb.at(0x150), 4) << 32;
		return blocks * (uint64_t{ 1024 } << logBlock);
	}
	if (type == "xfs") {
		if (pread(fd, sb.data(), 16, 0) != 16 || bigEndian(sb.data(), 4) != 0x58465342)
			return 0;
		return bigEndian(&sb.at(8), 8) * bigEndian(&sb.at(4), 4);
	}
	return 0;
}

constexpr uint64_t Sample = uint64_t{ 64 } << 10;

/*
 * The first non-zero byte of the blank regions of a device with no
 * signature. A fresh or discarded RBD image reads zeros there; random
 * bytes, plain dm-crypt, a database or a half-wiped image do not. Read
 * once, before a format.
 */
std::optional<ProbeResult> dataFound(int fd, uint64_t deviceBytes)
{
	std::vector<unsigned char> buffer(Sample);
	for (const auto &[start, length] : blankRegions(deviceBytes)) {
		for (uint64_t at = start; at < start + length; at += Sample) {
			const size_t want =
				static_cast<size_t>(std::min(Sample, start + length - at));
			const ssize_t got = pread(fd, buffer.data(), want, static_cast<off_t>(at));
			if (got < 0)
				return ProbeResult{ ProbeKind::Failed,
						    "cannot read at offset " + std::to_string(at) +
							    ": " + errnoText(errno),
						    deviceBytes, 0 };
			const auto end = buffer.begin() + got;
			const auto nonZero = std::find_if(buffer.begin(), end,
							  [](unsigned char b) { return b != 0; });
			if (nonZero != end)
				return ProbeResult{ ProbeKind::Data,
						    "non-zero bytes at offset " +
							    std::to_string(at +
									   static_cast<uint64_t>(
										   nonZero -
										   buffer.begin())),
						    deviceBytes, 0 };
		}
	}
	return std::nullopt;
}

ProbeResult probeNow(const std::string &device)
{
	const ProbePtr probe = openProbe(device);
	if (!probe)
		return ProbeResult{ ProbeKind::Failed,
				    "cannot open " + device + ": " + errnoText(errno) };

	const auto deviceBytes =
		static_cast<uint64_t>(std::max<blkid_loff_t>(0, blkid_probe_get_size(probe.get())));
	switch (blkid_do_safeprobe(probe.get())) {
	case 1:
		if (auto data = dataFound(blkid_probe_get_fd(probe.get()), deviceBytes))
			return *data;
		return ProbeResult{ ProbeKind::Blank, "", deviceBytes, 0 };
	case 0: {
		std::string type = value(probe.get(), "TYPE");
		if (type.empty())
			type = value(probe.get(), "PTTYPE");
		if (type.empty())
			type = "unknown";
		const uint64_t fsBytes = filesystemBytes(blkid_probe_get_fd(probe.get()), type);
		return ProbeResult{ ProbeKind::Signature, type, deviceBytes, fsBytes,
				    value(probe.get(), "UUID") };
	}
	case -2:
		return ProbeResult{ ProbeKind::Ambivalent, allSignatures(device), deviceBytes, 0 };
	default:
		return ProbeResult{ ProbeKind::Failed, "libblkid could not probe " + device,
				    deviceBytes, 0 };
	}
}

} /* namespace */

std::vector<ByteRange> blankRegions(uint64_t deviceBytes)
{
	constexpr uint64_t Edge = uint64_t{ 1 } << 20;
	if (deviceBytes <= 2 * Edge)
		return { { 0, deviceBytes } };
	std::vector<ByteRange> regions = { { 0, Edge } };
	for (const uint64_t quarter : { 1U, 2U, 3U })
		regions.push_back({ (deviceBytes / 4 * quarter) & ~(Sample - 1), Sample });
	regions.push_back({ deviceBytes - Edge, Edge });
	return regions;
}

ProbeResult BlkidBlockProbe::probe(const std::string &device)
{
	auto probed =
		boundedCall<ProbeResult>(device, deviceTimeout_, "probing " + device, [device] {
			return Result<ProbeResult>(probeNow(device));
		});
	if (!probed)
		return ProbeResult{ ProbeKind::Failed, probed.error().message };
	return *probed;
}

Result<uint64_t> BlkidBlockProbe::deviceSize(const std::string &device)
{
	return blockDeviceSize(device);
}

std::string BlkidBlockProbe::filesystemErrors(const std::string &device, const std::string &fsType,
					      const std::string &mountPath)
{
	if (fsType == "ext4")
		return ext4ErrorRecord(SystemRoots{}, device);
	if (fsType != "xfs")
		return {};
	/* xfs answers from memory; bounded all the same, as every look at a mount is. */
	auto record = boundedCall<std::string>(
		"stat " + mountPath, deviceTimeout_, "looking at " + mountPath,
		[device, mountPath] {
			return Result<std::string>(xfsShutdownRecord(device, mountPath));
		});
	return record ? *record : std::string();
}

} /* namespace rbdvolume */
