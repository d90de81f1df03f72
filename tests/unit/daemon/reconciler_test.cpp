/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The Reconciler on the fake world, driven by a real sd_event loop and a worker pool. */
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "daemon_rig.hpp"
#include "printers.hpp"

namespace rbdvolume::testing {

namespace {

using daemon::VolumeStatus;
using std::chrono::milliseconds;

ImageSpec imageOf(const std::string &name)
{
	ImageSpec image;
	image.pool = "rbd";
	image.name = name;
	return image;
}

std::string stagingOf(const std::string &name)
{
	return "/run/rbd-volume/staging/" + name;
}

/* The mount on `target` in the fake, "" when none. */
std::string mountedOn(ReconcilerRig &rig, const std::string &target)
{
	const auto held = rig.world.lock();
	for (const FakeMount &mount : rig.world.mounts()) {
		if (mount.entry.target == target)
			return mount.entry.source + " " + mount.entry.fsType;
	}
	return "";
}

bool isUpInTheFake(ReconcilerRig &rig, const std::string &name)
{
	return !mountedOn(rig, stagingOf(name)).empty() && !mountedOn(rig, "/srv/" + name).empty();
}

std::string describe(ReconcilerRig &rig)
{
	const auto held = rig.world.lock();
	return rig.world.describe();
}

/* Every status the listener was told of differs from the one before; the last is current. */
void expectToldEachChange(const ReconcilerRig &rig, const std::string &name)
{
	const auto found = rig.told.find(name);
	ASSERT_NE(found, rig.told.end()) << "never told of '" << name << "'";
	const std::vector<VolumeStatus> &told = found->second;
	for (size_t i = 1; i < told.size(); i++)
		EXPECT_FALSE(told[i] == told[i - 1])
			<< "statusChanged #" << i << " without a change (phase "
			<< bus::phaseName(told[i].phase) << ")";
	EXPECT_TRUE(told.back() == rig.status(name)) << "the last change was not told";
}

bool toldAny(const ReconcilerRig &rig, const std::string &name,
	     const std::function<bool(const VolumeStatus &)> &test)
{
	const auto found = rig.told.find(name);
	return found != rig.told.end() &&
	       std::any_of(found->second.begin(), found->second.end(), test);
}

TEST(Reconciler, StartObservesOnlyThenAppliesRecordedIntents)
{
	ReconcilerRig rig;
	rig.addVolume("a");
	rig.addVolume("b");
	ASSERT_TRUE(rig.intents.save("a", Intent::Up));

	std::vector<std::string> logAtReady;
	unsigned savesAtReady = 1000;
	unsigned mapsAtReady = 1000;
	auto started = rig.reconciler->start([&] {
		rig.readyCalls++;
		const auto held = rig.world.lock();
		logAtReady = rig.world.log();
		savesAtReady = rig.world.calls(FakeOp::Save);
		mapsAtReady = rig.world.calls(FakeOp::Map);
	});
	ASSERT_TRUE(started);
	EXPECT_EQ(rig.events, (std::vector<std::string>{ "added a", "added b" }));
	EXPECT_STREQ(bus::phaseName(rig.status("a").phase), "unknown") << "not observed yet";
	EXPECT_EQ(rig.status("a").intent, "up") << "the recorded intent is loaded";
	EXPECT_EQ(rig.status("b").intent, "");

	ASSERT_TRUE(rig.loop.runUntil([&] { return rig.readyCalls > 0; }, "ready"));
	EXPECT_EQ(logAtReady, std::vector<std::string>{}) << "changed the host before ready";
	EXPECT_EQ(savesAtReady, 0U);
	EXPECT_EQ(mapsAtReady, 0U);
	{
		const auto held = rig.world.lock();
		EXPECT_GT(rig.world.calls(FakeOp::ReadTable), 0U) << "ready without observing";
	}

	/* Then the recorded intent is acted on without being asked again. */
	ASSERT_TRUE(rig.loop.runUntil([&] { return rig.settledIn("a", "up"); }, "a to come up"))
		<< describe(rig);
	EXPECT_TRUE(isUpInTheFake(rig, "a")) << describe(rig);
	EXPECT_STREQ(bus::phaseName(rig.status("b").phase), "down");
	EXPECT_EQ(mountedOn(rig, "/srv/b"), "") << "b has no intent: it is only observed";
	rig.loop.runFor(milliseconds(50));
	EXPECT_EQ(rig.readyCalls, 1U);
}

TEST(Reconciler, UpWithWaitPublishes)
{
	ReconcilerRig rig;
	rig.addVolume("a");
	ASSERT_TRUE(rig.start());
	const VolumeStatus before = rig.status("a");
	EXPECT_STREQ(bus::phaseName(before.phase), "down");
	EXPECT_EQ(before.generation, 1U);

	const auto error = rig.setIntentAndWait("a", Intent::Up);
	EXPECT_FALSE(error) << error->message;

	std::string device;
	{
		const auto held = rig.world.lock();
		device = rig.world.deviceOf(imageOf("a"));
		EXPECT_TRUE(rig.world.violations().empty());
	}
	ASSERT_FALSE(device.empty()) << describe(rig);
	EXPECT_EQ(mountedOn(rig, stagingOf("a")), device + " ext4") << describe(rig);
	EXPECT_NE(mountedOn(rig, "/srv/a"), "") << describe(rig);

	const VolumeStatus status = rig.status("a");
	EXPECT_STREQ(bus::phaseName(status.phase), "up");
	EXPECT_STREQ(bus::stageName(status.stage), "published");
	EXPECT_EQ(status.intent, "up");
	EXPECT_EQ(status.device, device);
	EXPECT_EQ(status.stagingPath, stagingOf("a"));
	EXPECT_EQ(status.publishTargets, std::vector<std::string>{ "/srv/a" });
	EXPECT_FALSE(status.busy);
	EXPECT_EQ(status.activity, "");
	EXPECT_TRUE(status.conditions.empty());
	EXPECT_EQ(status.lastErrorName, "");
	EXPECT_EQ(status.generation, 2U) << "the intent bumps it";
	EXPECT_EQ(status.observedGeneration, status.generation);
	EXPECT_EQ(status.specFile, rig.specDir() + "/a.toml");
	EXPECT_EQ(readText(rig.intentDir() + "/a"), "up\n");

	expectToldEachChange(rig, "a");
	EXPECT_TRUE(toldAny(rig, "a", [](const VolumeStatus &s) { return s.busy; }));
	EXPECT_TRUE(toldAny(rig, "a",
			    [](const VolumeStatus &s) { return s.phase == bus::Phase::Pending; }));
	EXPECT_TRUE(toldAny(rig, "a", [](const VolumeStatus &s) { return !s.activity.empty(); }))
		<< "no step was shown as the activity";
	EXPECT_EQ(rig.reconciler->summary(), "1 volume: 1 up");

	/* Up again: nothing to do, yet it answers. */
	const size_t logSize = [&] {
		const auto held = rig.world.lock();
		return rig.world.log().size();
	}();
	EXPECT_FALSE(rig.setIntentAndWait("a", Intent::Up));
	const auto held = rig.world.lock();
	EXPECT_EQ(rig.world.log().size(), logSize);
	EXPECT_EQ(rig.status("a").generation, 2U) << "the same intent is no new generation";
}

TEST(Reconciler, DownTearsDown)
{
	ReconcilerRig rig;
	rig.addVolume("a");
	ASSERT_TRUE(rig.start());
	ASSERT_FALSE(rig.setIntentAndWait("a", Intent::Up));
	ASSERT_TRUE(isUpInTheFake(rig, "a"));

	const auto error = rig.setIntentAndWait("a", Intent::Down);
	EXPECT_FALSE(error) << error->message;
	{
		const auto held = rig.world.lock();
		EXPECT_TRUE(rig.world.mounts().empty()) << rig.world.describe();
		EXPECT_TRUE(rig.world.mappings().empty()) << rig.world.describe();
		EXPECT_TRUE(rig.world.violations().empty());
	}
	const VolumeStatus status = rig.status("a");
	EXPECT_STREQ(bus::phaseName(status.phase), "down");
	EXPECT_STREQ(bus::stageName(status.stage), "absent");
	EXPECT_EQ(status.intent, "down");
	EXPECT_EQ(status.device, "");
	EXPECT_TRUE(status.publishTargets.empty());
	EXPECT_EQ(status.generation, 3U);
	EXPECT_EQ(status.observedGeneration, 3U);
	EXPECT_EQ(readText(rig.intentDir() + "/a"), "down\n");
	expectToldEachChange(rig, "a");
}

TEST(Reconciler, FailureAnswersThenBackOffConverges)
{
	daemon::ReconcilerSettings settings = fastSettings();
	settings.backoffInitial = milliseconds(300);
	settings.backoffMax = milliseconds(300);
	ReconcilerRig rig(1, settings);
	rig.addVolume("a");
	ASSERT_TRUE(rig.start());
	{
		const auto held = rig.world.lock();
		rig.world.failNext(FakeOp::Mount, Errc::Io);
	}
	const auto error = rig.setIntentAndWait("a", Intent::Up);
	ASSERT_TRUE(error);
	EXPECT_EQ(error->code, Errc::Io) << error->message;

	VolumeStatus status = rig.status("a");
	EXPECT_STREQ(bus::phaseName(status.phase), "failed");
	EXPECT_EQ(status.lastErrorName, "org.rbdvolume1.Error.Failed");
	EXPECT_NE(status.lastErrorMessage.find("injected"), std::string::npos)
		<< status.lastErrorMessage;
	ASSERT_FALSE(status.conditions.empty());
	EXPECT_EQ(status.conditions.back().type, "Failed");
	EXPECT_STREQ(bus::stageName(status.stage), "mapped") << "observed afresh after the failure";

	/* Not at once: the retry waits for its back-off. */
	unsigned mounts = 0;
	{
		const auto held = rig.world.lock();
		mounts = rig.world.calls(FakeOp::Mount);
	}
	rig.loop.runFor(milliseconds(50));
	{
		const auto held = rig.world.lock();
		EXPECT_EQ(rig.world.calls(FakeOp::Mount), mounts) << "retried before the back-off";
	}

	ASSERT_TRUE(rig.loop.runUntil([&] { return rig.settledIn("a", "up"); },
				      "a retried after its back-off"))
		<< describe(rig);
	status = rig.status("a");
	EXPECT_EQ(status.lastErrorName, "");
	EXPECT_EQ(status.lastErrorMessage, "");
	EXPECT_TRUE(status.conditions.empty());
	EXPECT_TRUE(isUpInTheFake(rig, "a"));
	EXPECT_TRUE(toldAny(rig, "a",
			    [](const VolumeStatus &s) { return s.phase == bus::Phase::Failed; }));
	expectToldEachChange(rig, "a");
}

/* A teardown that failed waits out its back-off, unless the host shuts down. */
TEST(Reconciler, AShutdownRetriesAFailedTeardownAtOnce)
{
	daemon::ReconcilerSettings settings = fastSettings();
	settings.backoffInitial = std::chrono::minutes(10);
	settings.backoffMax = std::chrono::minutes(10);
	ReconcilerRig rig(1, settings);
	rig.addVolume("a");
	ASSERT_TRUE(rig.start());
	ASSERT_FALSE(rig.setIntentAndWait("a", Intent::Up));
	{
		const auto held = rig.world.lock();
		rig.world.failNext(FakeOp::Unmount, Errc::Timeout);
	}
	ASSERT_TRUE(rig.setIntentAndWait("a", Intent::Down));
	rig.loop.runFor(milliseconds(50));
	EXPECT_STREQ(bus::phaseName(rig.status("a").phase), "failed") << "backing off for 10 min";

	rig.reconciler->hostStopping();
	ASSERT_TRUE(rig.loop.runUntil([&] { return rig.settledIn("a", "down"); },
				      "a torn down at once"))
		<< describe(rig);
	const auto held = rig.world.lock();
	EXPECT_TRUE(rig.world.mappings().empty()) << rig.world.describe();
}

/* A teardown running when the news comes is not the last word: the next one, told, answers. */
TEST(Reconciler, ATeardownRunningAsTheShutdownBeginsIsTriedAgainTold)
{
	daemon::ReconcilerSettings settings = fastSettings();
	settings.backoffInitial = std::chrono::minutes(10);
	settings.backoffMax = std::chrono::minutes(10);
	ReconcilerRig rig(1, settings);
	rig.addVolume("a");
	ASSERT_TRUE(rig.start());
	ASSERT_FALSE(rig.setIntentAndWait("a", Intent::Up));
	rig.world.hold(FakeOp::Unmount);
	auto down = std::make_shared<Answer>();
	ASSERT_TRUE(rig.reconciler->setIntent("a", Intent::Down, replyInto(down)));
	ASSERT_TRUE(rig.loop.runUntil([&] { return rig.world.held(); }, "the unmount"));
	{
		const auto held = rig.world.lock();
		rig.world.failNext(FakeOp::Unmount, Errc::Timeout);
	}
	rig.reconciler->hostStopping();
	rig.world.release();
	ASSERT_TRUE(rig.loop.runUntil([&] { return down->answered(); }, "the down answered"))
		<< describe(rig);
	EXPECT_FALSE(down->error) << down->error->message;
	const auto held = rig.world.lock();
	EXPECT_TRUE(rig.world.mappings().empty()) << rig.world.describe();
}

TEST(Reconciler, BackOffDoublesUpToItsMaximum)
{
	daemon::ReconcilerSettings settings = fastSettings();
	settings.backoffInitial = milliseconds(20);
	settings.backoffMax = milliseconds(40);
	ReconcilerRig rig(1, settings);
	rig.addVolume("a");
	ASSERT_TRUE(rig.start());
	constexpr unsigned Failures = 5;
	{
		const auto held = rig.world.lock();
		for (unsigned i = 0; i < Failures; i++)
			rig.world.failNext(FakeOp::Map, Errc::Timeout);
	}
	auto answer = std::make_shared<Answer>();
	ASSERT_TRUE(rig.reconciler->setIntent("a", Intent::Up, replyInto(answer)));
	ASSERT_TRUE(rig.loop.runUntil([&] { return rig.settledIn("a", "up"); },
				      "a up after five failed maps"));
	const auto attempts = rig.world.callTimes(FakeOp::Map);
	ASSERT_EQ(attempts.size(), Failures + 1);
	/* 20, 40, then capped at 40 ms: each retry waits at least that long after the last. */
	const std::vector<int> least = { 20, 40, 40, 40, 40 };
	for (size_t i = 0; i < least.size(); i++) {
		const auto gap =
			std::chrono::duration_cast<milliseconds>(attempts[i + 1] - attempts[i]);
		EXPECT_GE(gap.count(), least[i] - 2) << "retry #" << i + 1;
	}
	/* Uncapped, the fifth retry would wait 320 ms. */
	EXPECT_LT(attempts[Failures] - attempts[Failures - 1], milliseconds(250));
	EXPECT_EQ(rig.status("a").retries, Failures) << "each failed episode is retried once";
	/* The steps of the episode that succeeded: each with how long it took. */
	const auto steps = rig.status("a").stepUsec;
	EXPECT_TRUE(steps.contains("map") && steps.contains("mount-staging") &&
		    steps.contains("publish"))
		<< steps.size() << " steps";
	EXPECT_EQ(answer->calls, 1U);
	ASSERT_TRUE(answer->error) << "the first episode's failure is the answer";
	EXPECT_EQ(answer->error->code, Errc::Timeout);
}

TEST(Reconciler, DriftIsRestoredAfterASurvey)
{
	ReconcilerRig rig;
	rig.addVolume("a");
	ASSERT_TRUE(rig.start());
	ASSERT_FALSE(rig.setIntentAndWait("a", Intent::Up));
	{
		const auto held = rig.world.lock();
		ASSERT_TRUE(rig.world.unmountByHand("/srv/a"));
		rig.world.clearLog();
	}
	rig.loop.runFor(milliseconds(30));
	EXPECT_EQ(mountedOn(rig, "/srv/a"), "") << "nothing happens before anything looks";

	rig.reconciler->requestSurvey();
	ASSERT_TRUE(rig.loop.runUntil(
		[&] { return !mountedOn(rig, "/srv/a").empty() && rig.settledIn("a", "up"); },
		"/srv/a published again"))
		<< describe(rig);
	const auto held = rig.world.lock();
	ASSERT_EQ(rig.world.log().size(), 1U) << rig.world.describe();
	EXPECT_EQ(rig.world.log()[0].rfind("bind ", 0), 0U) << rig.world.log()[0];
}

/* A mapper that stops and resumes announces neither: a degraded volume is looked at again by itself. */
TEST(Reconciler, ADegradedVolumeIsLookedAtAgainUntilItRecovers)
{
	daemon::ReconcilerSettings settings = fastSettings();
	settings.degradedRecheck = milliseconds(50);
	ReconcilerRig rig(2, settings);
	rig.addVolume("a");
	rig.addVolume("b");
	ASSERT_TRUE(rig.start());
	ASSERT_FALSE(rig.setIntentAndWait("a", Intent::Up));
	ASSERT_FALSE(rig.setIntentAndWait("b", Intent::Up));
	std::string device;
	{
		const auto held = rig.world.lock();
		device = rig.world.mappings().front().mapped.device;
		ASSERT_TRUE(rig.world.setMappingFault(device, "its server is stopped"));
	}
	rig.reconciler->requestSurvey();
	ASSERT_TRUE(rig.loop.runUntil(
		[&] {
			return rig.status("a").phase == bus::Phase::Degraded ||
			       rig.status("b").phase == bus::Phase::Degraded;
		},
		"a volume degraded"))
		<< describe(rig);
	const std::string lost = rig.status("a").phase == bus::Phase::Degraded ? "a" : "b";
	const std::string other = lost == "a" ? "b" : "a";
	uint64_t surveys = 0;
	const uint64_t degradedSince = rig.status(lost).phaseSince;
	EXPECT_GT(degradedSince, 0U);
	EXPECT_EQ(rig.status(lost).heals, 0U);
	{
		const auto held = rig.world.lock();
		ASSERT_TRUE(rig.world.setMappingFault(device, ""));
		surveys = rig.reconciler->surveys();
	}
	ASSERT_TRUE(rig.loop.runUntil([&] { return rig.settledIn(lost, "up"); },
				      lost + " up again, with no event to say so"))
		<< describe(rig);
	EXPECT_GT(rig.reconciler->surveys(), surveys);
	EXPECT_EQ(rig.status(lost).heals, 1U) << "degraded, then up: one heal";
	EXPECT_GE(rig.status(lost).phaseSince, degradedSince);
	EXPECT_EQ(rig.status(other).heals, 0U);
	EXPECT_EQ(rig.status(other).phase, bus::Phase::Up);
	/* Recovered, nothing degraded: no more rechecks. */
	const uint64_t after = rig.reconciler->surveys();
	rig.loop.runFor(milliseconds(200));
	EXPECT_EQ(rig.reconciler->surveys(), after) << "rechecked with nothing degraded";
}

/* A burst of mount events is surveyed once, after the burst, and repairs the drift. */
TEST(Reconciler, AMountBurstIsSurveyedOnce)
{
	daemon::ReconcilerSettings settings = fastSettings();
	/* Far above a 2 ms step's wall time, even sanitized beside a busy guest
	 * (40 ms was not: a step stalled past it and the burst was surveyed). */
	settings.mountSettle = milliseconds(1000);
	ReconcilerRig rig(1, settings);
	rig.addVolume("a");
	ASSERT_TRUE(rig.start());
	ASSERT_FALSE(rig.setIntentAndWait("a", Intent::Up));
	{
		const auto held = rig.world.lock();
		ASSERT_TRUE(rig.world.unmountByHand("/srv/a"));
	}
	const uint64_t before = rig.reconciler->surveys();
	for (int event = 0; event < 50; event++) {
		rig.reconciler->mountTableChanged();
		rig.loop.runFor(milliseconds(2));
	}
	EXPECT_EQ(rig.reconciler->surveys(), before) << "surveyed during the burst";
	ASSERT_TRUE(rig.loop.runUntil(
		[&] { return !mountedOn(rig, "/srv/a").empty() && rig.settledIn("a", "up"); },
		"/srv/a published again"))
		<< describe(rig);
	rig.loop.runFor(milliseconds(100));
	EXPECT_EQ(rig.reconciler->surveys(), before + 1);
}

/* A mount event while an episode runs waits for it, but only up to mountSettleMax. */
TEST(Reconciler, AMountChangeWaitsForARunningEpisodeUpToALimit)
{
	daemon::ReconcilerSettings settings = fastSettings();
	settings.mountSettle = milliseconds(20);
	settings.mountSettleMax = milliseconds(300);
	ReconcilerRig rig(2, settings);
	rig.addVolume("a");
	rig.addVolume("b");
	ASSERT_TRUE(rig.start());
	const uint64_t before = rig.reconciler->surveys();
	rig.world.hold(FakeOp::Mount);
	ASSERT_TRUE(rig.reconciler->setIntent("a", Intent::Up, nullptr));
	ASSERT_TRUE(rig.loop.runUntil([&] { return rig.world.held(); }, "a's episode to mount"));
	rig.reconciler->mountTableChanged();
	rig.loop.runFor(milliseconds(150));
	EXPECT_EQ(rig.reconciler->surveys(), before) << "surveyed while the episode ran";
	ASSERT_TRUE(rig.loop.runUntil([&] { return rig.reconciler->surveys() == before + 1; },
				      "the survey at the limit, the episode still stuck"));
	rig.world.release();
	ASSERT_TRUE(rig.loop.runUntil([&] { return rig.settledIn("a", "up"); }, "a up"));
}

TEST(Reconciler, InvalidSpecIsRefused)
{
	ReconcilerRig rig;
	rig.writeSpec("bad", "[image]\nname = \"x\"\n");
	rig.addVolume("good");
	ASSERT_TRUE(rig.start());

	const VolumeStatus status = rig.status("bad");
	EXPECT_STREQ(bus::phaseName(status.phase), "invalid");
	ASSERT_EQ(status.conditions.size(), 1U);
	EXPECT_EQ(status.conditions[0].type, "SpecInvalid");
	EXPECT_EQ(status.conditions[0].message.rfind(rig.specDir() + "/bad.toml:1:1: ", 0), 0U)
		<< status.conditions[0].message;

	for (const Intent intent : { Intent::Up, Intent::Down }) {
		auto refused = rig.reconciler->setIntent("bad", intent, nullptr);
		ASSERT_FALSE(refused);
		EXPECT_EQ(refused.error().code, Errc::InvalidArgument);
	}
	auto refused = rig.reconciler->setIntent("bad", Intent::Up, nullptr);
	EXPECT_NE(refused.error().message.find("bad.toml:1:1"), std::string::npos)
		<< refused.error().message;
	EXPECT_FALSE(rig.intents.loadAll().count("bad")) << "a refused intent is not recorded";
	auto plan = rig.reconciler->plan("bad", Intent::Up, [](const Result<std::string> &) {});
	ASSERT_FALSE(plan);
	EXPECT_EQ(plan.error().code, Errc::InvalidArgument);
}

TEST(Reconciler, InvalidEditOfAnUpVolume)
{
	ReconcilerRig rig;
	rig.addVolume("a");
	ASSERT_TRUE(rig.start());
	ASSERT_FALSE(rig.setIntentAndWait("a", Intent::Up));

	rig.writeSpec("a", volumeSpecText("a") + "[map]\ndriver = \"rbd\"\n");
	auto reloaded = std::make_shared<Answer>();
	rig.reconciler->reload(replyInto(reloaded));
	ASSERT_TRUE(rig.loop.runUntil([&] { return reloaded->answered(); }, "reload"));
	EXPECT_STREQ(bus::phaseName(rig.status("a").phase), "invalid");
	EXPECT_TRUE(isUpInTheFake(rig, "a")) << "an invalid edit changes nothing on the host";

	/* Up is refused, but down still works with the last valid spec. */
	auto refused = rig.reconciler->setIntent("a", Intent::Up, nullptr);
	ASSERT_FALSE(refused);
	EXPECT_EQ(refused.error().code, Errc::InvalidArgument);
	const auto error = rig.setIntentAndWait("a", Intent::Down);
	EXPECT_FALSE(error) << error->message;
	EXPECT_FALSE(isUpInTheFake(rig, "a")) << describe(rig);
}

TEST(Reconciler, SpecEditIsReconciled)
{
	ReconcilerRig rig;
	rig.addVolume("a");
	ASSERT_TRUE(rig.start());
	ASSERT_FALSE(rig.setIntentAndWait("a", Intent::Up));

	rig.writeSpec("a", volumeSpecText("a") + "\n[[publish]]\npath = \"/srv/a_too\"\n");
	rig.reconciler->reload(nullptr);
	ASSERT_TRUE(rig.loop.runUntil(
		[&] { return !mountedOn(rig, "/srv/a_too").empty() && rig.settledIn("a", "up"); },
		"the new target published"))
		<< describe(rig);
	const VolumeStatus status = rig.status("a");
	EXPECT_EQ(status.generation, 3U);
	EXPECT_EQ(status.observedGeneration, 3U);
	EXPECT_EQ(status.publishTargets, (std::vector<std::string>{ "/srv/a", "/srv/a_too" }));
}

TEST(Reconciler, UpReadsASpecRewrittenJustBefore)
{
	/* The CSI shim rewrites a spec and calls Up at once, long before inotify settles. */
	ReconcilerRig rig;
	rig.addVolume("a");
	ASSERT_TRUE(rig.start());
	ASSERT_FALSE(rig.setIntentAndWait("a", Intent::Up));

	rig.writeSpec("a", volumeSpecText("a") + "\n[[publish]]\npath = \"/srv/a_too\"\n");
	ASSERT_FALSE(rig.setIntentAndWait("a", Intent::Up));
	EXPECT_NE(mountedOn(rig, "/srv/a_too"), "") << describe(rig);
	EXPECT_EQ(rig.status("a").publishTargets,
		  (std::vector<std::string>{ "/srv/a", "/srv/a_too" }));

	/* The same for Reconcile, and for a spec written after the start. */
	rig.writeSpec("a", volumeSpecText("a"));
	bool answered = false;
	ASSERT_TRUE(rig.reconciler->reconcile("a", [&](const Error *) { answered = true; }));
	ASSERT_TRUE(rig.loop.runUntil([&] { return answered; }, "the reconcile answered"));
	EXPECT_EQ(mountedOn(rig, "/srv/a_too"), "") << describe(rig);

	rig.addVolume("b");
	EXPECT_FALSE(rig.setIntentAndWait("b", Intent::Up));
	EXPECT_STREQ(bus::phaseName(rig.status("b").phase), "up");
}

TEST(Reconciler, UnknownVolumeIsNotFound)
{
	ReconcilerRig rig;
	rig.addVolume("a");
	ASSERT_TRUE(rig.start());
	auto intent = rig.reconciler->setIntent("nope", Intent::Up, nullptr);
	ASSERT_FALSE(intent);
	EXPECT_EQ(intent.error().code, Errc::NotFound);
	auto reconcile = rig.reconciler->reconcile("nope", nullptr);
	ASSERT_FALSE(reconcile);
	EXPECT_EQ(reconcile.error().code, Errc::NotFound);
	auto plan = rig.reconciler->plan("nope", std::nullopt, [](const Result<std::string> &) {});
	ASSERT_FALSE(plan);
	EXPECT_EQ(plan.error().code, Errc::NotFound);
	EXPECT_EQ(rig.reconciler->status("nope"), nullptr);
	EXPECT_EQ(rig.reconciler->names(), std::vector<std::string>{ "a" });
}

TEST(Reconciler, RecordedIntentWithoutSpecIsIgnored)
{
	ReconcilerRig rig;
	rig.addVolume("a");
	ASSERT_TRUE(rig.intents.save("ghost", Intent::Up));
	ASSERT_TRUE(rig.start());
	EXPECT_EQ(rig.reconciler->names(), std::vector<std::string>{ "a" });
}

TEST(Reconciler, ReconcileAllAnswersOnce)
{
	ReconcilerRig rig;
	for (const char *name : { "a", "b", "c", "d" })
		rig.addVolume(name);
	ASSERT_TRUE(rig.start());
	ASSERT_FALSE(rig.setIntentAndWait("a", Intent::Up));
	ASSERT_FALSE(rig.setIntentAndWait("b", Intent::Up));
	ASSERT_FALSE(rig.setIntentAndWait("c", Intent::Down));
	{
		const auto held = rig.world.lock();
		ASSERT_TRUE(rig.world.unmountByHand("/srv/a"));
		ASSERT_TRUE(rig.world.unmountByHand("/srv/b"));
	}

	auto answer = std::make_shared<Answer>();
	ASSERT_TRUE(rig.reconciler->reconcile("", replyInto(answer)));
	ASSERT_TRUE(rig.loop.runUntil([&] { return answer->answered(); }, "reconcile all"));
	EXPECT_FALSE(answer->error) << answer->error->message;
	EXPECT_TRUE(isUpInTheFake(rig, "a")) << describe(rig);
	EXPECT_TRUE(isUpInTheFake(rig, "b")) << describe(rig);
	rig.loop.runFor(milliseconds(50));
	EXPECT_EQ(answer->calls, 1U);
	EXPECT_EQ(rig.status("d").intent, "") << "no intent: not reconciled";

	/* With nothing to do at all it still answers, once. */
	ReconcilerRig idle;
	idle.addVolume("x");
	ASSERT_TRUE(idle.start());
	auto none = std::make_shared<Answer>();
	ASSERT_TRUE(idle.reconciler->reconcile("", replyInto(none)));
	idle.loop.runFor(milliseconds(20));
	EXPECT_EQ(none->calls, 1U);
	EXPECT_FALSE(none->error);
}

TEST(Reconciler, ReconcileAllReportsTheFirstError)
{
	ReconcilerRig rig;
	rig.addVolume("a");
	rig.addVolume("b");
	ASSERT_TRUE(rig.start());
	ASSERT_FALSE(rig.setIntentAndWait("a", Intent::Up));
	ASSERT_FALSE(rig.setIntentAndWait("b", Intent::Up));
	rig.writeSpec("b", volumeSpecText("b") + "colour = 1\n");
	rig.reconciler->reload(nullptr);

	auto answer = std::make_shared<Answer>();
	ASSERT_TRUE(rig.reconciler->reconcile("", replyInto(answer)));
	ASSERT_TRUE(rig.loop.runUntil([&] { return answer->answered(); }, "reconcile all"));
	rig.loop.runFor(milliseconds(50));
	EXPECT_EQ(answer->calls, 1U);
	ASSERT_TRUE(answer->error);
	EXPECT_EQ(answer->error->code, Errc::InvalidArgument) << answer->error->message;
}

TEST(Reconciler, ReconcileOneVolume)
{
	ReconcilerRig rig;
	rig.addVolume("a");
	rig.addVolume("b");
	ASSERT_TRUE(rig.start());

	/* Without an intent it only looks. */
	auto looked = std::make_shared<Answer>();
	ASSERT_TRUE(rig.reconciler->reconcile("a", replyInto(looked)));
	ASSERT_TRUE(rig.loop.runUntil([&] { return looked->answered(); }, "reconcile a"));
	EXPECT_FALSE(looked->error);
	{
		const auto held = rig.world.lock();
		EXPECT_TRUE(rig.world.log().empty()) << rig.world.describe();
	}

	ASSERT_FALSE(rig.setIntentAndWait("a", Intent::Up));
	{
		const auto held = rig.world.lock();
		ASSERT_TRUE(rig.world.unmountByHand("/srv/a"));
	}
	auto answer = std::make_shared<Answer>();
	ASSERT_TRUE(rig.reconciler->reconcile("a", replyInto(answer)));
	ASSERT_TRUE(rig.loop.runUntil([&] { return answer->answered(); }, "reconcile a"));
	EXPECT_FALSE(answer->error);
	EXPECT_TRUE(isUpInTheFake(rig, "a"));
	EXPECT_EQ(mountedOn(rig, "/srv/b"), "");
}

/*
 * Following the image's size costs a unit reload per volume under fuse: an
 * episode asks for it in its first pass over a mapped device only, never in
 * the pass that checks what the episode itself just mapped.
 */
TEST(Reconciler, OnlyAnEpisodesFirstPassFollowsTheImageSize)
{
	ReconcilerRig rig;
	rig.addVolume("a");
	ASSERT_TRUE(rig.start());
	ASSERT_FALSE(rig.setIntentAndWait("a", Intent::Up));
	const auto follows = [&] {
		const auto held = rig.world.lock();
		return rig.world.calls(FakeOp::FollowSize);
	};
	EXPECT_EQ(follows(), 0U) << "the device was mapped by this very episode";

	{
		const auto held = rig.world.lock();
		ASSERT_TRUE(rig.world.unmountByHand("/srv/a"));
	}
	auto answer = std::make_shared<Answer>();
	ASSERT_TRUE(rig.reconciler->reconcile("a", replyInto(answer)));
	ASSERT_TRUE(rig.loop.runUntil([&] { return answer->answered(); }, "reconcile a"));
	EXPECT_FALSE(answer->error);
	EXPECT_TRUE(isUpInTheFake(rig, "a"));
	EXPECT_EQ(follows(), 1U) << "a pass over a device found mapped follows it, once";
}

/* A recorded intent for a spec that was never valid: Reconcile must answer, not hang. */
TEST(Reconciler, ReconcileOfANeverValidSpecAnswers)
{
	ReconcilerRig rig;
	rig.writeSpec("bad", "[image]\nname = \"x\"\n");
	ASSERT_TRUE(rig.intents.save("bad", Intent::Down));
	ASSERT_TRUE(rig.start());
	EXPECT_EQ(rig.status("bad").intent, "down");

	auto answer = std::make_shared<Answer>();
	auto accepted = rig.reconciler->reconcile("bad", replyInto(answer));
	if (!accepted) {
		EXPECT_EQ(accepted.error().code, Errc::InvalidArgument);
		return;
	}
	ASSERT_TRUE(rig.loop.runUntil([&] { return answer->answered(); }, "reconcile bad"));
	EXPECT_TRUE(answer->error);
}

TEST(Reconciler, PlanIsADryRun)
{
	ReconcilerRig rig;
	rig.addVolume("a");
	ASSERT_TRUE(rig.start());
	std::optional<Result<std::string>> planned;
	ASSERT_TRUE(rig.reconciler->plan(
		"a", Intent::Up, [&](Result<std::string> text) { planned = std::move(text); }));
	ASSERT_TRUE(rig.loop.runUntil([&] { return planned.has_value(); }, "the plan"));
	ASSERT_TRUE(*planned) << planned->error().message;
	EXPECT_NE((*planned)->find("map rbd/a"), std::string::npos) << **planned;
	EXPECT_NE((*planned)->find("/srv/a"), std::string::npos) << **planned;
	{
		const auto held = rig.world.lock();
		EXPECT_TRUE(rig.world.log().empty()) << rig.world.describe();
	}
	EXPECT_EQ(rig.status("a").intent, "") << "a plan records no intent";

	/* No intent given: the recorded one, none being "as if up"; down plans nothing here. */
	planned.reset();
	ASSERT_TRUE(rig.reconciler->plan(
		"a", Intent::Down, [&](Result<std::string> text) { planned = std::move(text); }));
	ASSERT_TRUE(rig.loop.runUntil([&] { return planned.has_value(); }, "the plan"));
	ASSERT_TRUE(*planned);
	EXPECT_EQ((*planned)->find("map rbd/a"), std::string::npos) << **planned;
}

TEST(Reconciler, ShutdownWaitsForTheRunningEpisode)
{
	ReconcilerRig rig;
	rig.addVolume("a");
	ASSERT_TRUE(rig.start());
	rig.world.hold(FakeOp::Mount);
	auto up = std::make_shared<Answer>();
	ASSERT_TRUE(rig.reconciler->setIntent("a", Intent::Up, replyInto(up)));
	ASSERT_TRUE(rig.loop.runUntil([&] { return rig.world.held(); }, "the episode to mount"));
	EXPECT_TRUE(rig.status("a").busy);

	auto down = std::make_shared<Answer>();
	ASSERT_TRUE(rig.reconciler->setIntent("a", Intent::Down, replyInto(down)));
	bool stopped = false;
	rig.reconciler->shutdown([&] { stopped = true; });
	rig.loop.runFor(milliseconds(50));
	EXPECT_FALSE(stopped) << "stopped while an episode ran";
	EXPECT_FALSE(up->answered());
	EXPECT_FALSE(down->answered());

	auto late = rig.reconciler->setIntent("a", Intent::Up, nullptr);
	ASSERT_FALSE(late);
	EXPECT_EQ(late.error().code, Errc::ShuttingDown);
	auto reconcile = rig.reconciler->reconcile("", nullptr);
	ASSERT_FALSE(reconcile);
	EXPECT_EQ(reconcile.error().code, Errc::ShuttingDown);

	rig.world.release();
	ASSERT_TRUE(rig.loop.runUntil([&] { return stopped; }, "the shutdown"));
	ASSERT_TRUE(up->answered());
	EXPECT_FALSE(up->error) << "the running episode finished: " << up->error->message;
	ASSERT_TRUE(down->answered()) << "a waiter left unanswered at shutdown";
	ASSERT_TRUE(down->error);
	EXPECT_EQ(down->error->code, Errc::ShuttingDown);
	EXPECT_TRUE(isUpInTheFake(rig, "a")) << "no episode starts once stopping";
	EXPECT_EQ(up->calls, 1U);
	EXPECT_EQ(down->calls, 1U);
}

TEST(Reconciler, ShutdownWhenIdleIsImmediate)
{
	ReconcilerRig rig;
	rig.addVolume("a");
	ASSERT_TRUE(rig.start());
	bool stopped = false;
	rig.reconciler->shutdown([&] { stopped = true; });
	EXPECT_TRUE(stopped);
}

daemon::ReconcilerSettings shortStopGrace()
{
	daemon::ReconcilerSettings settings = fastSettings();
	settings.stopGrace = milliseconds(300);
	return settings;
}

/* A map that never returns (a stopped cluster) holds the stop for the grace only. */
TEST(Reconciler, ShutdownLeavesAStuckEpisodeAfterTheGrace)
{
	ReconcilerRig rig(1, shortStopGrace());
	rig.addVolume("a");
	ASSERT_TRUE(rig.start());
	rig.world.hold(FakeOp::Map);
	auto up = std::make_shared<Answer>();
	ASSERT_TRUE(rig.reconciler->setIntent("a", Intent::Up, replyInto(up)));
	ASSERT_TRUE(rig.loop.runUntil([&] { return rig.world.held(); }, "the episode to map"));

	bool stopped = false;
	const auto asked = std::chrono::steady_clock::now();
	rig.reconciler->shutdown([&] { stopped = true; });
	rig.loop.runFor(milliseconds(100));
	EXPECT_FALSE(stopped) << "the grace is not over";
	ASSERT_TRUE(rig.loop.runUntil([&] { return stopped; }, "the stop past the grace"));
	/* sd-event's time is the loop's last wakeup, a little before `asked` */
	EXPECT_GE(std::chrono::steady_clock::now() - asked, milliseconds(250));
	EXPECT_TRUE(rig.reconciler->leftInFlight());
	ASSERT_TRUE(up->answered()) << "a waiter left unanswered at the stop";
	ASSERT_TRUE(up->error);
	EXPECT_EQ(up->error->code, Errc::ShuttingDown);
	EXPECT_TRUE(rig.status("a").busy) << "the map still runs";
	rig.world.release(); /* the workers are joined at the end of the test */
}

/* Once the stop left an episode, a filesystem step it reaches later is not begun. */
TEST(Reconciler, ShutdownLeavesNoFormatBegunAfterIt)
{
	ReconcilerRig rig(1, shortStopGrace());
	rig.addVolume("a");
	ASSERT_TRUE(rig.start());
	rig.world.hold(FakeOp::Map);
	ASSERT_TRUE(rig.reconciler->setIntent("a", Intent::Up, nullptr));
	ASSERT_TRUE(rig.loop.runUntil([&] { return rig.world.held(); }, "the episode to map"));
	bool stopped = false;
	rig.reconciler->shutdown([&] { stopped = true; });
	ASSERT_TRUE(rig.loop.runUntil([&] { return stopped; }, "the stop past the grace"));
	ASSERT_TRUE(rig.reconciler->leftInFlight());

	rig.world.release(); /* the map returns; the blank device's format comes next */
	rig.loop.runFor(milliseconds(300));
	EXPECT_TRUE(rig.world.callTimes(FakeOp::Format).empty())
		<< "mkfs began after the stop left";
}

/* mkfs cut short would leave a filesystem half made: the stop waits for it. */
TEST(Reconciler, ShutdownWaitsForAFormatPastTheGrace)
{
	ReconcilerRig rig(1, shortStopGrace());
	rig.addVolume("a");
	ASSERT_TRUE(rig.start());
	rig.world.hold(FakeOp::Format);
	auto up = std::make_shared<Answer>();
	ASSERT_TRUE(rig.reconciler->setIntent("a", Intent::Up, replyInto(up)));
	ASSERT_TRUE(rig.loop.runUntil([&] { return rig.world.held(); }, "the episode to format"));

	bool stopped = false;
	rig.reconciler->shutdown([&] { stopped = true; });
	rig.loop.runFor(milliseconds(900));
	EXPECT_FALSE(stopped) << "stopped during mkfs";
	rig.world.release();
	/* Past the grace, the steps after mkfs (a mount) are left, or done first. */
	ASSERT_TRUE(rig.loop.runUntil([&] { return stopped; }, "the stop once mkfs ended"));
	EXPECT_TRUE(up->answered());
}

TEST(Reconciler, RemovedSpecIsForgottenOnceDown)
{
	ReconcilerRig rig;
	rig.addVolume("a");
	rig.addVolume("b");
	ASSERT_TRUE(rig.start());
	ASSERT_FALSE(rig.setIntentAndWait("a", Intent::Up));
	ASSERT_FALSE(rig.setIntentAndWait("a", Intent::Down));
	ASSERT_FALSE(rig.setIntentAndWait("b", Intent::Up));

	rig.removeSpec("a");
	rig.removeSpec("b");
	auto reloaded = std::make_shared<Answer>();
	rig.reconciler->reload(replyInto(reloaded));
	ASSERT_TRUE(rig.loop.runUntil([&] { return reloaded->answered(); }, "reload"));

	EXPECT_EQ(rig.reconciler->status("a"), nullptr) << "down and gone: forgotten";
	EXPECT_EQ(rig.specs.find("a"), nullptr);
	EXPECT_NE(std::find(rig.events.begin(), rig.events.end(), "removed a"), rig.events.end());

	/* Still up: kept, and says why. */
	ASSERT_NE(rig.reconciler->status("b"), nullptr);
	const VolumeStatus status = rig.status("b");
	EXPECT_STREQ(bus::phaseName(status.phase), "up");
	ASSERT_FALSE(status.conditions.empty());
	EXPECT_EQ(status.conditions[0].type, "SpecMissing");
	EXPECT_EQ(rig.reconciler->names(), std::vector<std::string>{ "b" });

	/* Taken down with its last valid spec, it goes too. */
	ASSERT_FALSE(rig.setIntentAndWait("b", Intent::Down));
	EXPECT_EQ(rig.reconciler->status("b"), nullptr);
	EXPECT_TRUE(rig.reconciler->names().empty());
	EXPECT_NE(std::find(rig.events.begin(), rig.events.end(), "removed b"), rig.events.end());
	const auto held = rig.world.lock();
	EXPECT_TRUE(rig.world.mounts().empty()) << rig.world.describe();
}

/* Many triggers on several volumes with four workers: never two episodes of one volume at once. */
TEST(Reconciler, NeverTwoEpisodesOfOneVolumeAtOnce)
{
	ReconcilerRig rig(4);
	rig.world.setCallDelay(std::chrono::microseconds(2000));
	const std::vector<std::string> names = { "a", "b", "c" };
	for (const std::string &name : names)
		rig.addVolume(name);
	ASSERT_TRUE(rig.start());

	for (unsigned round = 0; round < 24; round++) {
		for (size_t i = 0; i < names.size(); i++) {
			const bool up = (round + i) % 3 != 0;
			ASSERT_TRUE(rig.reconciler->setIntent(
				names[i], up ? Intent::Up : Intent::Down, nullptr));
		}
		if (round % 4 == 0)
			rig.reconciler->requestSurvey();
		if (round % 5 == 0) {
			ASSERT_TRUE(rig.reconciler->reconcile("", nullptr));
		}
		rig.loop.runFor(milliseconds(3));
	}
	for (const std::string &name : names) {
		const auto error = rig.setIntentAndWait(name, Intent::Up);
		EXPECT_FALSE(error) << name << ": " << error->message;
	}
	ASSERT_TRUE(rig.loop.runUntil(
		[&] {
			return std::all_of(
				names.begin(), names.end(),
				[&](const std::string &name) { return rig.settledIn(name, "up"); });
		},
		"every volume up"));
	EXPECT_EQ(rig.world.overlaps(), 0U) << "two episodes of one volume overlapped";
	EXPECT_GT(rig.world.trackedCalls(), 30U) << "too little happened to tell";
	const auto held = rig.world.lock();
	EXPECT_TRUE(rig.world.violations().empty());
}

} /* namespace */

} /* namespace rbdvolume::testing */
