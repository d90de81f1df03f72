/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "common/bounded_call.hpp"

#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

namespace rbdvolume {
namespace {

using std::chrono::milliseconds;

TEST(BoundedCall, ReturnsWhatTheWorkReturns)
{
	auto value = boundedCall<int>("quick", milliseconds(1000), "adding",
				      [] { return Result<int>(42); });
	ASSERT_TRUE(value);
	EXPECT_EQ(*value, 42);
	auto error = boundedCall<int>("quick", milliseconds(1000), "adding",
				      []() -> Result<int> { return fail(Errc::Io, "no"); });
	ASSERT_FALSE(error);
	EXPECT_EQ(error.error().message, "no");
}

/* A stuck call costs its caller the limit, and one thread, however often it is asked again. */
TEST(BoundedCall, AStuckCallTimesOutAndIsNotStartedTwice)
{
	auto release = std::make_shared<std::atomic<bool>>(false);
	auto started = std::make_shared<std::atomic<int>>(0);
	const auto stuck = [release, started]() -> Result<int> {
		started->fetch_add(1);
		while (!release->load())
			std::this_thread::sleep_for(milliseconds(5));
		return 7;
	};
	const auto before = std::chrono::steady_clock::now();
	auto first = boundedCall<int>("dev", milliseconds(50), "probing /dev/x", stuck);
	EXPECT_LT(std::chrono::steady_clock::now() - before, milliseconds(1000));
	ASSERT_FALSE(first);
	EXPECT_EQ(first.error().code, Errc::Timeout);
	EXPECT_EQ(first.error().message, "probing /dev/x did not come back within 50 ms (its "
					 "device or server does not answer)");

	auto again = boundedCall<int>("dev", milliseconds(50), "probing /dev/x", stuck);
	ASSERT_FALSE(again);
	EXPECT_EQ(again.error().code, Errc::Timeout);
	EXPECT_NE(again.error().message.find("an earlier call on it has not come back"),
		  std::string::npos);
	EXPECT_EQ(started->load(), 1);

	/* Another key is not held up. */
	EXPECT_TRUE(
		boundedCall<int>("other", milliseconds(1000), "x", [] { return Result<int>(1); }));

	/* Once the stuck one comes back, the key is free again. */
	release->store(true);
	for (int i = 0; i < 200 && bounded::isStuck("dev"); i++)
		std::this_thread::sleep_for(milliseconds(5));
	EXPECT_FALSE(bounded::isStuck("dev"));
	auto later = boundedCall<int>("dev", milliseconds(1000), "probing /dev/x", stuck);
	ASSERT_TRUE(later);
	EXPECT_EQ(*later, 7);
}

} /* namespace */
} /* namespace rbdvolume */
