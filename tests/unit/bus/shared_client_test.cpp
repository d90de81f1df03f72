/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The shared client against a fake rbd-volumed on a private dbus-daemon:
 * calls from many threads on one connection, each bounded by its own
 * timeout and none waiting behind another; calls left at the end answered.
 */
#include "bus/shared_client.hpp"

#include <chrono>
#include <cstdlib>
#include <future>
#include <memory>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

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

class SharedClientTest : public ::testing::Test
{
protected:
	void SetUp() override
	{
		std::string problem;
		bus_ = PrivateBus::start(problem);
		if (bus_) {
			daemon_ = std::make_unique<FakeManager>(testing::sampleVolumes());
			problem = daemon_->start(bus_->address());
		}
		if (!problem.empty()) {
			if (integrationRequired())
				FAIL() << "RBDV_REQUIRE_INTEGRATION=1 but " << problem;
			GTEST_SKIP() << problem;
		}
		/* NOLINTNEXTLINE(concurrency-mt-unsafe): before any thread of the test */
		setenv("DBUS_SYSTEM_BUS_ADDRESS", bus_->address().c_str(), 1);
		auto started = SharedClient::start();
		ASSERT_TRUE(started) << started.error().message;
		client_ = std::move(*started);
	}

	void TearDown() override
	{
		client_.reset();
		daemon_.reset();
		bus_.reset();
	}

	std::unique_ptr<PrivateBus> bus_;
	std::unique_ptr<FakeManager> daemon_;
	std::unique_ptr<SharedClient> client_;
};

TEST_F(SharedClientTest, CallsReachTheDaemonAndRepliesComeBack)
{
	ASSERT_TRUE(client_->setIntent("Up", "db", 10s));
	ASSERT_TRUE(client_->setIntent("Down", "logs", 10s));
	ASSERT_TRUE(client_->reconcile("db", 10s));
	EXPECT_EQ(daemon_->calls(),
		  (std::vector<std::string>{ "Up db wait", "Down logs wait", "Reconcile db" }));

	auto volumes = client_->listVolumes(10s);
	ASSERT_TRUE(volumes) << volumes.error().message;
	ASSERT_EQ(volumes->size(), 3U);
	EXPECT_EQ(volumes->at(1).name, "db");
	EXPECT_EQ(volumes->at(1).phase, Phase::Up);

	auto db = client_->volume("db", 10s);
	ASSERT_TRUE(db) << db.error().message;
	ASSERT_TRUE(*db);
	EXPECT_EQ(**db, testing::upVolume());
	auto none = client_->volume("nosuch", 10s);
	ASSERT_TRUE(none) << none.error().message;
	EXPECT_FALSE(*none);
}

TEST_F(SharedClientTest, APassphraseTravelsWithItsUpExactly)
{
	/* Any byte, NUL and newline too, none dropped at the end. */
	const std::string bytes("k\0e\nk\n", 6);
	ASSERT_TRUE(client_->upWithPassphrase("db", Secret(bytes), 10s));
	EXPECT_EQ(daemon_->calls(),
		  (std::vector<std::string>{ "UpWithPassphrase db wait " + bytes }));

	ReplyPlan refused;
	refused.errorName = "org.rbdvolume1.Error.PermissionDenied";
	refused.errorMessage = "the passphrase does not unwrap the volume's data key";
	daemon_->plan("UpWithPassphrase", "db", refused);
	auto up = client_->upWithPassphrase("db", Secret(std::string_view("wrong")), 10s);
	ASSERT_FALSE(up);
	EXPECT_EQ(up.error().code, Errc::PermissionDenied);
	EXPECT_EQ(up.error().message, refused.errorMessage);
}

TEST_F(SharedClientTest, AnErrorReplyIsTheDaemonsError)
{
	ReplyPlan refused;
	refused.errorName = "org.rbdvolume1.Error.Conflict";
	refused.errorMessage = "/srv/db is mounted by another process";
	daemon_->plan("Up", "db", refused);
	auto up = client_->setIntent("Up", "db", 10s);
	ASSERT_FALSE(up);
	EXPECT_EQ(up.error().code, Errc::Conflict);
	EXPECT_EQ(up.error().message, refused.errorMessage);
}

TEST_F(SharedClientTest, ACallThatNeverEndsHoldsNoOtherAndEndsAtItsTimeout)
{
	ReplyPlan stuck;
	stuck.neverReply = true;
	daemon_->plan("Up", "logs", stuck);
	const auto start = std::chrono::steady_clock::now();
	auto waiting = std::async(std::launch::async,
				  [this] { return client_->setIntent("Up", "logs", 3s); });
	/* Meanwhile another thread's call is answered at once. */
	ASSERT_TRUE(client_->setIntent("Up", "db", 10s));
	EXPECT_LT(std::chrono::steady_clock::now() - start, 3s) << "the other call waited";

	const Result<void> timedOut = waiting.get();
	ASSERT_FALSE(timedOut);
	EXPECT_EQ(timedOut.error().code, Errc::Timeout);
	EXPECT_EQ(timedOut.error().message,
		  "no reply within 3 s; rbd-volumed carries on (see 'rbd-volumectl status logs')");
	EXPECT_GE(std::chrono::steady_clock::now() - start, 3s);
	/* The connection still serves. */
	EXPECT_TRUE(client_->reconcile("db", 10s));
}

TEST_F(SharedClientTest, ACallLeftWhenTheClientStopsIsAnswered)
{
	ReplyPlan stuck;
	stuck.neverReply = true;
	daemon_->plan("Down", "db", stuck);
	auto waiting = std::async(std::launch::async,
				  [this] { return client_->setIntent("Down", "db", 60s); });
	/* The call is on the bus once the fake has seen it. */
	for (int i = 0; i < 500 && daemon_->calls().empty(); i++)
		std::this_thread::sleep_for(10ms);
	ASSERT_EQ(daemon_->calls(), std::vector<std::string>{ "Down db wait" });
	client_.reset();
	ASSERT_EQ(waiting.wait_for(5s), std::future_status::ready) << "left waiting";
	const Result<void> stopped = waiting.get();
	ASSERT_FALSE(stopped);
	EXPECT_EQ(stopped.error().code, Errc::ShuttingDown);
}

TEST(SharedClientAlone, NoBusIsUnreachable)
{
	/* NOLINTNEXTLINE(concurrency-mt-unsafe): no other thread runs yet */
	setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/bus", 1);
	auto client = SharedClient::start();
	ASSERT_TRUE(client) << client.error().message;
	auto volumes = (*client)->listVolumes(2s);
	ASSERT_FALSE(volumes);
	EXPECT_EQ(volumes.error().code, Errc::Unreachable) << volumes.error().message;
}

} /* namespace */

} /* namespace rbdvolume::bus */
