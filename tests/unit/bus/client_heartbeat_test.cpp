/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A waiting call's heartbeat (what keeps a unit's start timeout from firing
 * while the daemon works): it beats at its period for as long as the reply
 * is awaited, and not at all without one. Against a fake rbd-volumed on a
 * private dbus-daemon whose Up answers after a delay.
 */
#include <chrono>
#include <cstdlib>

#include <gtest/gtest.h>

#include "bus/client.hpp"
#include "fake_manager.hpp"
#include "private_bus.hpp"
#include "sample_volumes.hpp"

namespace rbdvolume::bus {

namespace {

using namespace std::chrono_literals;
using testing::FakeManager;
using testing::integrationRequired;
using testing::PrivateBus;
using testing::ReplyPlan;

TEST(ClientHeartbeat, BeatsWhileTheReplyIsAwaited)
{
	std::string problem;
	const auto bus = PrivateBus::start(problem);
	FakeManager daemon(testing::sampleVolumes());
	if (bus)
		problem = daemon.start(bus->address());
	if (!problem.empty()) {
		if (integrationRequired())
			FAIL() << "RBDV_REQUIRE_INTEGRATION=1 but " << problem;
		GTEST_SKIP() << problem;
	}
	/* NOLINTNEXTLINE(concurrency-mt-unsafe): before any thread of the test */
	setenv("DBUS_SYSTEM_BUS_ADDRESS", bus->address().c_str(), 1);
	constexpr auto Delay = 600ms;
	constexpr auto Every = 50ms;
	const auto delayUsec = static_cast<uint64_t>(std::chrono::microseconds(Delay).count());
	daemon.plan("Up", "logs", ReplyPlan{ {}, "", "", false, delayUsec, false });

	for (const bool beating : { true, false }) {
		auto client = Client::open();
		ASSERT_TRUE(client) << client.error().message;
		unsigned beats = 0;
		WaitSettings settings;
		settings.volume = "logs";
		if (beating) {
			settings.onHeartbeat = [&beats] { beats++; };
			settings.heartbeatEvery = Every;
		}
		const auto began = std::chrono::steady_clock::now();
		const auto up = client->setIntent("Up", "logs", true, settings);
		const auto waited = std::chrono::steady_clock::now() - began;
		ASSERT_TRUE(up) << up.error().message;
		ASSERT_GE(waited, Delay) << "the fake answered early: the test shows nothing";
		if (beating) {
			/* One per period waited, give or take the first and the last. */
			const auto periods = static_cast<unsigned>(waited / Every);
			EXPECT_GE(beats + 2, periods) << "beats " << beats;
			EXPECT_LE(beats, periods) << "beats " << beats;
		} else {
			EXPECT_EQ(beats, 0U);
		}
	}
}

} /* namespace */
} /* namespace rbdvolume::bus */
