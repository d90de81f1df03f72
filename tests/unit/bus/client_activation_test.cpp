/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A Down never has the bus start rbd-volumed: under systemd that start is
 * ordered after the stop of rbd-volume@NAME that runs the Down, so the call
 * would wait out the bus's activation timeout (25 s) and fail. On a private
 * bus where org.rbdvolume1 is activatable by a command that records that it
 * ran and never takes the name, a Down fails Unreachable at once, with and
 * without waiting, and nothing ran; an Up, the control, does start it, also
 * when it watches progress (as under systemd: the daemon restarting after a
 * kill has no owner for the watch yet).
 */
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "bus/client.hpp"
#include "private_bus.hpp"
#include "temp_dir.hpp"

namespace rbdvolume::bus {

namespace {

using namespace std::chrono_literals;
using testing::integrationRequired;
using testing::PrivateBus;
using testing::TempDir;

TEST(ClientActivation, ADownNeverStartsTheDaemon)
{
	const TempDir dir;
	const std::string ran = dir.path() + "/ran";
	std::string problem;
	const auto bus =
		PrivateBus::start(problem, "/bin/sh -c 'touch " + ran + "; exec sleep 10'");
	if (!bus) {
		if (integrationRequired())
			FAIL() << "RBDV_REQUIRE_INTEGRATION=1 but " << problem;
		GTEST_SKIP() << problem;
	}
	/* NOLINTNEXTLINE(concurrency-mt-unsafe): before any thread of the test */
	setenv("DBUS_SYSTEM_BUS_ADDRESS", bus->address().c_str(), 1);

	for (const bool wait : { false, true }) {
		auto client = Client::open();
		ASSERT_TRUE(client) << client.error().message;
		WaitSettings settings;
		settings.volume = "db";
		settings.timeoutSeconds = 30;
		if (wait) /* the progress path looks the volume up first */
			settings.onActivity = [](const std::string &, const std::string &) {};
		const auto began = std::chrono::steady_clock::now();
		auto down = client->setIntent("Down", "db", wait, settings);
		ASSERT_FALSE(down);
		EXPECT_EQ(down.error().code, Errc::Unreachable) << down.error().message;
		EXPECT_LT(std::chrono::steady_clock::now() - began, 5s)
			<< "waited for an activation";
	}
	EXPECT_FALSE(std::filesystem::exists(ran)) << "a Down had the bus start rbd-volumed";

	/* An Up does, its progress watched or not: with no owner yet it goes out unwatched. */
	auto client = Client::open();
	ASSERT_TRUE(client) << client.error().message;
	WaitSettings settings;
	settings.timeoutSeconds = 1;
	settings.volume = "db";
	settings.onActivity = [](const std::string &, const std::string &) {};
	(void)client->setIntent("Up", "db", true, settings);
	for (int i = 0; i < 50 && !std::filesystem::exists(ran); i++)
		std::this_thread::sleep_for(100ms);
	EXPECT_TRUE(std::filesystem::exists(ran))
		<< "the bus does not activate: the test shows nothing";
}

} /* namespace */
} /* namespace rbdvolume::bus */
