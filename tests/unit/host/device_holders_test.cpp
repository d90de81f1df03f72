/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Who keeps a device busy, read from fake sysfs and /proc trees. */
#include "host/device_holders.hpp"

#include <filesystem>

#include <gtest/gtest.h>

#include "temp_dir.hpp"

namespace rbdvolume::testing {
namespace {

using Lines = std::vector<std::string>;

class DeviceHoldersTest : public ::testing::Test
{
protected:
	DeviceHoldersTest() { root_.write("sys/block/rbd1/dev", "253:1\n"); }

	/* A process: its name, mount namespace and mount table, and open files. */
	void process(const std::string &pid, const std::string &comm, const std::string &ns,
		     const std::string &mountinfo, const Lines &fds = {}) const
	{
		const std::string base = "proc/" + pid + "/";
		root_.write(base + "comm", comm + "\n");
		root_.write(base + "mountinfo", mountinfo);
		link("mnt:[" + ns + "]", base + "ns/mnt");
		for (size_t i = 0; i < fds.size(); i++)
			link(fds[i], base + "fd/" + std::to_string(i + 3));
	}

	void link(const std::string &target, const std::string &relative) const
	{
		const std::filesystem::path path = std::filesystem::path(root_.path()) / relative;
		std::filesystem::create_directories(path.parent_path());
		std::filesystem::create_symlink(target, path);
	}

	Lines holders(size_t limit = 4) const
	{
		return deviceHolders(SystemRoots{ root_.path() + "/sys", root_.path() + "/proc" },
				     "/dev/rbd1", limit);
	}

	TempDir root_;
};

constexpr const char *HostMounts = "21 1 0:20 / /proc rw - proc proc rw\n"
				   "90 21 253:1 / /srv/data rw - ext4 /dev/rbd1 rw\n";

TEST_F(DeviceHoldersTest, NobodyHoldsIt)
{
	process("1", "systemd", "1", "21 1 0:20 / /proc rw - proc proc rw\n", { "/dev/null" });
	EXPECT_EQ(holders(), Lines{});
	EXPECT_EQ(deviceHoldersText(holders(), "none seen"), "none seen");
}

TEST_F(DeviceHoldersTest, ADeviceMapperTarget)
{
	root_.write("sys/block/rbd1/holders/dm-0/.keep", "");
	root_.write("sys/block/dm-0/dm/name", "rbdv-data\n");
	EXPECT_EQ(holders(), Lines{ "held by dm-0 (rbdv-data)" });
}

/* /proc/self is the test's own process: its namespace is no fake one. */
TEST_F(DeviceHoldersTest, AMountInAnotherNamespaceNamesItsProcessOnce)
{
	process("1", "systemd", "1", "21 1 0:20 / /proc rw - proc proc rw\n");
	process("812", "systemd-udevd", "77", HostMounts);
	process("813", "systemd-udevd", "77", HostMounts);
	EXPECT_EQ(
		holders(),
		Lines{ "mounted at /srv/data in the mount namespace of pid 812 (systemd-udevd)" });
}

TEST_F(DeviceHoldersTest, AnOpenFileNamesTheProcess)
{
	process("4711", "sleep", "1", "", { "/dev/null", "/dev/rbd1" });
	process("4712", "cat", "1", "", { "/dev/rbd10" });
	EXPECT_EQ(holders(), Lines{ "open by pid 4711 (sleep)" });
	EXPECT_EQ(deviceHoldersText(holders(), "none"), "open by pid 4711 (sleep)");
}

TEST_F(DeviceHoldersTest, ALongListEndsWithACount)
{
	for (int pid = 100; pid < 106; pid++)
		process(std::to_string(pid), "dd", "1", "", { "/dev/rbd1" });
	const Lines found = holders(2);
	ASSERT_EQ(found.size(), 3U);
	EXPECT_EQ(found[0], "open by pid 100 (dd)");
	EXPECT_EQ(found[2], "... and 4 more");
	EXPECT_EQ(deviceHoldersText(found, ""),
		  "open by pid 100 (dd); open by pid 101 (dd); ... and 4 more");
}

} /* namespace */
} /* namespace rbdvolume::testing */
