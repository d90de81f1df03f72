/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/fs_error_record.hpp"

#include <cerrno>
#include <charconv>
#include <chrono>
#include <filesystem>

#include <sys/stat.h>

#include "common/clock_time.hpp"
#include "common/file_io.hpp"

namespace rbdvolume {

namespace {

constexpr size_t AttributeBytes = 64;

/* A whole number in a sysfs attribute ("3\n"); 0 when unreadable. */
uint64_t numberIn(const std::string &path)
{
	auto text = readFileBounded(path, AttributeBytes);
	if (!text || !*text)
		return 0;
	uint64_t value = 0;
	const std::string &digits = **text;
	(void)std::from_chars(digits.data(), digits.data() + digits.size(), value);
	return value;
}

/* The kernel's name of the device: /dev/mapper/rbdv-db is a link to dm-0. */
std::string kernelName(const std::string &device)
{
	std::error_code error;
	const std::filesystem::path resolved = std::filesystem::canonical(device, error);
	return (error ? std::filesystem::path(device) : resolved).filename().string();
}

} /* namespace */

std::string ext4ErrorRecord(const SystemRoots &roots, const std::string &device)
{
	const std::string base = roots.sysfs + "/fs/ext4/" + kernelName(device);
	const uint64_t count = numberIn(base + "/errors_count");
	if (count == 0)
		return {};
	std::string text = "ext4 on " + device + " recorded " + std::to_string(count) +
			   (count == 1 ? " error" : " errors") + " since its last check";
	if (const uint64_t last = numberIn(base + "/last_error_time"); last != 0) {
		const std::chrono::system_clock::time_point when{ std::chrono::seconds(last) };
		text += ", the last at " + clockTime(when);
	}
	return text;
}

std::string xfsShutdownRecord(const std::string &device, const std::string &mountPath)
{
	struct stat root = {};
	if (::lstat(mountPath.c_str(), &root) == 0 || errno != EIO)
		return {};
	return "xfs on " + device +
	       " is shut down: the kernel stopped it after an error, and it fails every read "
	       "and write until it is unmounted";
}

} /* namespace rbdvolume */
