/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ext4ErrorRecord reads the kernel's count of a mounted ext4's errors in sysfs. */
#include "host/fs_error_record.hpp"

#include <chrono>
#include <ctime>

#include <gtest/gtest.h>

#include "common/clock_time.hpp"
#include "temp_dir.hpp"

namespace rbdvolume::testing {
namespace {

SystemRoots rootsIn(const TempDir &root)
{
	return SystemRoots{ root.path() + "/sys", root.path() + "/proc" };
}

TEST(Ext4ErrorRecord, NoErrorsNoRecord)
{
	TempDir root;
	root.write("sys/fs/ext4/rbd0/errors_count", "0\n");
	EXPECT_EQ(ext4ErrorRecord(rootsIn(root), "/dev/rbd0"), "");
	/* Not an ext4 the kernel has mounted: nothing to say. */
	EXPECT_EQ(ext4ErrorRecord(rootsIn(root), "/dev/nbd0"), "");
}

TEST(Ext4ErrorRecord, TheCountAndTheLastErrorsTime)
{
	TempDir root;
	const std::time_t last = 1764455495;
	root.write("sys/fs/ext4/nbd3/errors_count", "3\n");
	root.write("sys/fs/ext4/nbd3/last_error_time", std::to_string(last) + "\n");
	EXPECT_EQ(ext4ErrorRecord(rootsIn(root), "/dev/nbd3"),
		  "ext4 on /dev/nbd3 recorded 3 errors since its last check, the last at " +
			  clockTime(std::chrono::system_clock::from_time_t(last)));
	root.write("sys/fs/ext4/rbd1/errors_count", "1\n");
	EXPECT_EQ(ext4ErrorRecord(rootsIn(root), "/dev/rbd1"),
		  "ext4 on /dev/rbd1 recorded 1 error since its last check");
}

} /* namespace */
} /* namespace rbdvolume::testing */
