/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* DeferredCall and OneShotTimer on a real sd-event loop. */
#include "daemon/event_sources.hpp"

#include <chrono>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "common/sd_ptr.hpp"

namespace rbdvolume::daemon {

namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;

class EventSources : public ::testing::Test
{
protected:
	void SetUp() override
	{
		sd_event *event = nullptr;
		ASSERT_GE(sd_event_new(&event), 0);
		event_.reset(event);
	}

	/* Runs the loop until nothing is pending for `quiet`. */
	void runFor(milliseconds quiet)
	{
		while (sd_event_run(event_.get(),
				    static_cast<uint64_t>(
					    std::chrono::microseconds(quiet).count())) > 0) {
		}
	}

	EventPtr event_;
};

} /* namespace */

TEST_F(EventSources, DeferredCallScheduledTwiceRunsOnce)
{
	int calls = 0;
	DeferredCall call(event_.get(), [&calls] { ++calls; });
	ASSERT_TRUE(call.schedule());
	ASSERT_TRUE(call.schedule());
	runFor(milliseconds(20));
	EXPECT_EQ(calls, 1);
	ASSERT_TRUE(call.schedule());
	runFor(milliseconds(20));
	EXPECT_EQ(calls, 2);
}

TEST_F(EventSources, TimerFiresOnceAfterItsDelay)
{
	std::vector<int> fired;
	OneShotTimer timer;
	ASSERT_TRUE(timer.arm(event_.get(), milliseconds(30), microseconds(1000),
			      [&fired] { fired.push_back(1); }));
	EXPECT_TRUE(timer.armed());
	runFor(milliseconds(5));
	EXPECT_TRUE(fired.empty()) << "fired before its time";
	runFor(milliseconds(100));
	EXPECT_EQ(fired, std::vector<int>{ 1 });
	EXPECT_FALSE(timer.armed());
}

TEST_F(EventSources, ArmedAgainTheLastCallAndTimeCount)
{
	std::vector<int> fired;
	OneShotTimer timer;
	ASSERT_TRUE(timer.arm(event_.get(), milliseconds(10), microseconds(1000),
			      [&fired] { fired.push_back(1); }));
	ASSERT_TRUE(timer.arm(event_.get(), milliseconds(40), microseconds(1000),
			      [&fired] { fired.push_back(2); }));
	runFor(milliseconds(20));
	EXPECT_TRUE(fired.empty()) << "the first arm still counted";
	runFor(milliseconds(100));
	EXPECT_EQ(fired, std::vector<int>{ 2 });
}

TEST_F(EventSources, CancelledOrDestroyedTimersNeverFire)
{
	int fired = 0;
	OneShotTimer cancelled;
	ASSERT_TRUE(cancelled.arm(event_.get(), milliseconds(5), microseconds(1000),
				  [&fired] { ++fired; }));
	cancelled.cancel();
	EXPECT_FALSE(cancelled.armed());
	{
		OneShotTimer gone;
		ASSERT_TRUE(gone.arm(event_.get(), milliseconds(5), microseconds(1000),
				     [&fired] { ++fired; }));
	}
	runFor(milliseconds(50));
	EXPECT_EQ(fired, 0);
}

TEST_F(EventSources, ATimerMayEndItsOwnerWhileFiring)
{
	/* As a retry timer does when the volume it belongs to is forgotten. */
	auto owner = std::make_unique<OneShotTimer>();
	int fired = 0;
	ASSERT_TRUE(owner->arm(event_.get(), milliseconds(5), microseconds(1000), [&] {
		++fired;
		owner.reset();
	}));
	runFor(milliseconds(50));
	EXPECT_EQ(fired, 1);
	EXPECT_EQ(owner, nullptr);
}

} /* namespace rbdvolume::daemon */
