/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Finding a volume's nbd device by its cookie, and telling a netlink device from an ioctl one. */
#include "host/drivers/nbd/nbd_devices.hpp"

#include <deque>

#include <gtest/gtest.h>

#include "fake_host.hpp"

namespace rbdvolume::testing {
namespace {

using namespace std::chrono_literals;

TEST(NbdDevices, DeviceNames)
{
	EXPECT_EQ(nbdDeviceName("/dev/nbd0"), "nbd0");
	EXPECT_EQ(nbdDeviceName("/dev/nbd15"), "nbd15");
	for (const char *bad : { "/dev/nbd", "/dev/nbd0p1", "/dev/rbd0", "nbd0", "/dev/nbd/0", "" })
		EXPECT_EQ(nbdDeviceName(bad), "") << bad;
}

TEST(NbdDevices, FoundByCookie)
{
	const TempDir root;
	addNbd(root, "nbd0", "10", "someone-else");
	addNbd(root, "nbd1", "", "-");
	addNbd(root, "nbd12", "", "rbd-volume.data.x"); /* a dead server's device: no pid needed */
	root.write("sys/block/sda/backend", "rbd-volume.data.x\n");
	const SystemRoots roots = rootsIn(root);
	EXPECT_EQ(nbdDeviceWithCookie(roots, "rbd-volume.data.x"), "/dev/nbd12");
	EXPECT_EQ(nbdDeviceWithCookie(roots, "rbd-volume.other.x"), std::nullopt);
	EXPECT_EQ(nbdDeviceWithCookie(roots, ""), std::nullopt);
	EXPECT_EQ(nbdBackend(roots, "nbd1"), std::nullopt);
	EXPECT_EQ(nbdBackend(roots, "nbd0"), "someone-else");
	EXPECT_TRUE(nbdConnected(roots, "nbd0"));
	EXPECT_FALSE(nbdConnected(roots, "nbd12"));
}

TEST(NbdDevices, ByPid)
{
	const TempDir root;
	addNbd(root, "nbd0", "10", "-");
	addNbd(root, "nbd1", "100", "-");
	addNbd(root, "nbd2", "10", "c");
	EXPECT_EQ(nbdDevicesOfPid(rootsIn(root), "10"),
		  (std::vector<std::string>{ "/dev/nbd0", "/dev/nbd2" }));
	EXPECT_TRUE(nbdDevicesOfPid(rootsIn(root), "").empty());
}

TEST(NbdDevices, Checks)
{
	const TempDir root;
	const SystemRoots roots = rootsIn(root);
	EXPECT_EQ(checkNbd(roots, "c", {}), NbdCheck{});
	/* Served by our process, connected, but no backend: the ioctl interface. */
	addNbd(root, "nbd0", "10", "-");
	EXPECT_EQ(checkNbd(roots, "c", { "/dev/nbd0" }),
		  (NbdCheck{ NbdState::NotNetlink, "/dev/nbd0" }));
	/* Our process on a device it has not connected yet says nothing. */
	EXPECT_EQ(checkNbd(roots, "c", { "/dev/nbd4" }), NbdCheck{});
	addNbd(root, "nbd3", "11", "c");
	EXPECT_EQ(checkNbd(roots, "c", { "/dev/nbd0" }),
		  (NbdCheck{ NbdState::Ready, "/dev/nbd3" }));
}

/* Answers the scripted checks in turn, then the last one forever. */
std::function<NbdCheck()> scripted(std::deque<NbdCheck> checks, int &calls)
{
	return [checks = std::move(checks), &calls]() mutable {
		calls++;
		NbdCheck next = checks.front();
		if (checks.size() > 1)
			checks.pop_front();
		return next;
	};
}

TEST(NbdDevices, WaitEndsWhenReady)
{
	int calls = 0;
	const NbdCheck ready{ NbdState::Ready, "/dev/nbd1" };
	EXPECT_EQ(waitForNbd(scripted({ {}, {}, ready }, calls),
			     std::chrono::steady_clock::now() + 5s, 1ms),
		  ready);
	EXPECT_EQ(calls, 3);
}

TEST(NbdDevices, WaitCallsNotNetlinkOnlyWhenSeenTwice)
{
	int calls = 0;
	const NbdCheck ioctl{ NbdState::NotNetlink, "/dev/nbd1" };
	const NbdCheck ready{ NbdState::Ready, "/dev/nbd1" };
	/* The instant between a netlink connect's pid and its backend. */
	EXPECT_EQ(waitForNbd(scripted({ {}, ioctl, ready }, calls),
			     std::chrono::steady_clock::now() + 5s, 1ms),
		  ready);
	calls = 0;
	EXPECT_EQ(waitForNbd(scripted({ {}, ioctl, ioctl }, calls),
			     std::chrono::steady_clock::now() + 5s, 1ms),
		  ioctl);
	EXPECT_EQ(calls, 3);
}

TEST(NbdDevices, WaitGivesUpAtTheDeadline)
{
	int calls = 0;
	const auto start = std::chrono::steady_clock::now();
	EXPECT_EQ(waitForNbd(scripted({ {} }, calls), start + 30ms, 1ms), NbdCheck{});
	EXPECT_GE(std::chrono::steady_clock::now() - start, 30ms);
	EXPECT_GT(calls, 1);
}

} /* namespace */
} /* namespace rbdvolume::testing */
