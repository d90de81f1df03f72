/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* IoStallWatch reads a device's counters in sysfs: requests waiting, none completed, for a while. */
#include "host/io_stall_watch.hpp"

#include <gtest/gtest.h>

#include "temp_dir.hpp"

namespace rbdvolume::testing {
namespace {

using std::chrono::seconds;

/* A clock the test moves; its wall time starts at 10:02:03 local time. */
class TestClock
{
public:
	TestClock()
	{
		std::tm parts{};
		parts.tm_year = 126;
		parts.tm_mon = 10;
		parts.tm_mday = 28;
		parts.tm_hour = 10;
		parts.tm_min = 2;
		parts.tm_sec = 3;
		parts.tm_isdst = -1;
		wall_ = std::chrono::system_clock::from_time_t(std::mktime(&parts));
	}

	void advance(seconds by) { offset_ += by; }
	IoStallWatch::Clock clock()
	{
		return [this] {
			return IoInstant{ std::chrono::steady_clock::time_point(offset_),
					  wall_ + offset_ };
		};
	}

private:
	std::chrono::system_clock::time_point wall_;
	seconds offset_{ 0 };
};

/* /sys/block/NAME/stat with `completed` writes and `inFlight` requests in flight. */
void writeStat(const TempDir &root, const std::string &name, uint64_t completed, uint64_t inFlight)
{
	root.write("sys/block/" + name + "/stat",
		   "     120        0     9336       61 " + std::to_string(completed) +
			   "        3     1024      870 " + std::to_string(inFlight) +
			   "     1004      931        0        0        0        0       12      "
			   "2\n");
}

struct Watched {
	TempDir root;
	TestClock time;
	IoStallWatch watch{ SystemRoots{ root.path() + "/sys", root.path() + "/proc" },
			    std::chrono::milliseconds(10000), time.clock() };
};

/* Idle, or busy and answered: never stalled, however long. */
TEST(IoStallWatch, FlowingDevicesAreNeverStalled)
{
	Watched w;
	writeStat(w.root, "rbd0", 40, 0);
	writeStat(w.root, "nbd0", 40, 2);
	EXPECT_EQ(w.watch.look("/dev/rbd0"), "");
	EXPECT_EQ(w.watch.look("/dev/nbd0"), "");
	for (uint64_t done = 41; done < 45; done++) {
		w.time.advance(seconds(8));
		writeStat(w.root, "nbd0", done, 2);
		EXPECT_FALSE(w.watch.changed());
		EXPECT_EQ(w.watch.look("/dev/rbd0"), "");
		EXPECT_EQ(w.watch.look("/dev/nbd0"), "");
	}
}

/* Requests wait and none completes: stalled after `after`, named by the last answer's time. */
TEST(IoStallWatch, WaitingWithoutAnAnswerIsAStall)
{
	Watched w;
	writeStat(w.root, "rbd0", 40, 3);
	EXPECT_EQ(w.watch.look("/dev/rbd0"), "");
	w.time.advance(seconds(9));
	EXPECT_FALSE(w.watch.changed());
	EXPECT_EQ(w.watch.look("/dev/rbd0"), "");
	w.time.advance(seconds(1));
	EXPECT_TRUE(w.watch.changed()) << "the periodic check sees it first";
	EXPECT_EQ(w.watch.look("/dev/rbd0"),
		  "no answer from the cluster since 10:02:03 (requests wait on /dev/rbd0)");
	EXPECT_FALSE(w.watch.changed()) << "reported: no survey is due any more";
	w.time.advance(seconds(300));
	EXPECT_EQ(w.watch.look("/dev/rbd0"),
		  "no answer from the cluster since 10:02:03 (requests wait on /dev/rbd0)")
		<< "the text stays the same while it lasts";
}

/* One completion ends the stall, and the check says so before the next survey. */
TEST(IoStallWatch, AnAnswerEndsTheStall)
{
	Watched w;
	writeStat(w.root, "loop3", 7, 1);
	(void)w.watch.look("/dev/loop3");
	w.time.advance(seconds(30));
	EXPECT_NE(w.watch.look("/dev/loop3"), "");
	writeStat(w.root, "loop3", 8, 1);
	EXPECT_TRUE(w.watch.changed());
	EXPECT_EQ(w.watch.look("/dev/loop3"), "");
	EXPECT_FALSE(w.watch.changed());
}

/* A device without counters (gone, or not a block device) is no stall, and is forgotten. */
TEST(IoStallWatch, UnreadableCountersAreNoStall)
{
	Watched w;
	EXPECT_EQ(w.watch.look("/dev/rbd9"), "");
	w.root.write("sys/block/rbd9/stat", "garbage\n");
	EXPECT_EQ(w.watch.look("/dev/rbd9"), "");
	EXPECT_EQ(w.watch.look("/dev/.."), "");
	EXPECT_FALSE(w.watch.changed());
}

/* Devices no longer mapped are forgotten: a later device of that name starts afresh. */
TEST(IoStallWatch, KeepOnlyForgetsUnmappedDevices)
{
	Watched w;
	writeStat(w.root, "rbd0", 5, 1);
	writeStat(w.root, "rbd1", 5, 1);
	(void)w.watch.look("/dev/rbd0");
	(void)w.watch.look("/dev/rbd1");
	w.watch.keepOnly({ "/dev/rbd1" });
	w.time.advance(seconds(20));
	EXPECT_TRUE(w.watch.changed()) << "rbd1 is still watched";
	EXPECT_EQ(w.watch.look("/dev/rbd0"), "") << "rbd0 starts afresh";
	EXPECT_NE(w.watch.look("/dev/rbd1"), "");
	EXPECT_TRUE(w.watch.watching());
	w.watch.keepOnly({});
	EXPECT_FALSE(w.watch.watching()) << "nothing mapped: the periodic check may sleep";
}

} /* namespace */
} /* namespace rbdvolume::testing */
