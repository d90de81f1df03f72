/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Executor: what a step does on the host and in the ownership record, and what it refuses. */
#include "engine/executor.hpp"

#include <algorithm>

#include <gtest/gtest.h>

#include "engine_rig.hpp"
#include "spec_builder.hpp"

namespace rbdvolume::testing {

namespace {

bool logHas(const FakeWorld &world, const std::string &prefix)
{
	return std::any_of(world.log().begin(), world.log().end(),
			   [&](const std::string &line) { return line.rfind(prefix, 0) == 0; });
}

template<typename S> bool plans(const Plan &plan)
{
	return std::any_of(plan.steps.begin(), plan.steps.end(),
			   [](const Step &step) { return std::holds_alternative<S>(step); });
}

VolumeSpec dataSpec()
{
	return SpecBuilder("data").create(GiB).target("/srv/data").build();
}

TEST(Executor, FormatReprobesAndRefusesASignatureThatAppearedAfterPlanning)
{
	Rig rig(dataSpec());
	rig.world.addImage(rig.spec.image);
	auto planned = rig.dryRun();
	ASSERT_TRUE(planned);
	ASSERT_TRUE(plans<FormatStep>(planned->plan));

	/* Someone runs mkfs.xfs between our plan and our format step. */
	rig.world.setSignature(rig.spec.image, "xfs");
	Host host = rig.world.host();
	const ExecutionReport report =
		Executor(host).execute(planned->plan, rig.spec, planned->observed.owned);

	ASSERT_FALSE(report.ok());
	EXPECT_TRUE(std::holds_alternative<FormatStep>(report.outcomes.back().step));
	EXPECT_EQ(report.firstError()->code, Errc::Conflict);
	EXPECT_FALSE(report.uncertain());
	EXPECT_FALSE(logHas(rig.world, "mkfs"));
	EXPECT_EQ(rig.world.signature(rig.spec.image), "xfs");
	EXPECT_FALSE(rig.world.record("data").formatted);
	EXPECT_TRUE(rig.world.violations().empty());
}

/* A detach (an abandoned volume at shutdown) takes a mount out even while it is busy. */
TEST(Executor, DetachTakesABusyMountOut)
{
	Rig rig(dataSpec());
	rig.world.addImage(rig.spec.image);
	ASSERT_GT(rig.converge(), 0U);
	rig.world.setBusy("/srv/data", true);
	Plan plan;
	plan.volume = "data";
	plan.steps = { UnmountStep{ "/srv/data", false, true } };
	Ownership owned = rig.world.record("data");
	Host host = rig.world.host();
	const ExecutionReport report = Executor(host).execute(plan, rig.spec, owned);

	ASSERT_TRUE(report.ok());
	EXPECT_TRUE(logHas(rig.world, "detach /srv/data"));
	EXPECT_FALSE(logHas(rig.world, "unmount /srv/data"));
	EXPECT_TRUE(rig.world.violations().empty());
}

TEST(Executor, FormatOfTheWantedFilesystemIsUnchanged)
{
	Rig rig(dataSpec());
	rig.world.addImage(rig.spec.image, "ext4");
	auto outcome = rig.pass();
	ASSERT_TRUE(outcome && outcome->report.ok());
	const auto format = std::find_if(
		outcome->report.outcomes.begin(), outcome->report.outcomes.end(),
		[](const StepOutcome &o) { return std::holds_alternative<FormatStep>(o.step); });
	ASSERT_NE(format, outcome->report.outcomes.end());
	EXPECT_EQ(format->change, Change::Unchanged);
	EXPECT_FALSE(logHas(rig.world, "mkfs"));
	/* Not ours: a later blank device may be formatted, as on first use. */
	EXPECT_FALSE(rig.world.record("data").formatted);
}

const StepOutcome *outcomeOf(const ExecutionReport &report, const char *kind)
{
	const auto it = std::find_if(
		report.outcomes.begin(), report.outcomes.end(),
		[&](const StepOutcome &o) { return std::string(stepName(o.step)) == kind; });
	return it == report.outcomes.end() ? nullptr : &*it;
}

/* An image the run created reads as zeroes: no journal to write, and nothing for fsck to find. */
TEST(Executor, AnImageCreatedInTheRunIsFormattedAsZeroesAndNotChecked)
{
	Rig rig(dataSpec());
	auto outcome = rig.pass();
	ASSERT_TRUE(outcome && outcome->report.ok()) << rig.world.describe();
	EXPECT_EQ(rig.world.lastFormatContents(), DeviceContents::Zeroes);
	EXPECT_TRUE(logHas(rig.world, "mkfs"));
	EXPECT_FALSE(logHas(rig.world, "fsck"));
	const StepOutcome *check = outcomeOf(outcome->report, "check");
	ASSERT_NE(check, nullptr);
	EXPECT_EQ(check->change, Change::Unchanged);
	EXPECT_EQ(check->detail, "not checked: formatted in this run");
	EXPECT_TRUE(rig.world.violations().empty());
}

/* A blank image found, not made: blank to a probe is not zeroes, so mkfs writes its journal. */
TEST(Executor, ABlankImageFoundIsFormattedAsUnknownContents)
{
	Rig rig(dataSpec());
	rig.world.addImage(rig.spec.image);
	auto outcome = rig.pass();
	ASSERT_TRUE(outcome && outcome->report.ok()) << rig.world.describe();
	EXPECT_EQ(rig.world.lastFormatContents(), DeviceContents::Unknown);
	EXPECT_FALSE(logHas(rig.world, "fsck"));
	EXPECT_TRUE(rig.world.violations().empty());
}

/* Created in an earlier run that stopped before mkfs: the cluster vouches it was never written. */
TEST(Executor, AnImageCreatedInAnEarlierRunAndNeverWrittenIsFormattedAsZeroes)
{
	Rig rig(dataSpec());
	rig.world.failNext(FakeOp::Map, Errc::Io);
	auto first = rig.pass();
	ASSERT_TRUE(first);
	ASSERT_FALSE(first->report.ok());
	ASSERT_TRUE(rig.world.hasImage(rig.spec.image));
	auto second = rig.pass();
	ASSERT_TRUE(second && second->report.ok()) << rig.world.describe();
	EXPECT_EQ(rig.world.lastFormatContents(), DeviceContents::Zeroes);
	EXPECT_TRUE(rig.world.violations().empty());
}

/* Made by another tool (ceph-csi's provisioner) and never written: proven zeroes, not assumed. */
TEST(Executor, ABlankImageTheClusterProvesUnwrittenIsFormattedAsZeroes)
{
	Rig rig(dataSpec());
	rig.world.addUnwrittenImage(rig.spec.image);
	auto outcome = rig.pass();
	ASSERT_TRUE(outcome && outcome->report.ok()) << rig.world.describe();
	EXPECT_EQ(rig.world.lastFormatContents(), DeviceContents::Zeroes);
	EXPECT_TRUE(rig.world.violations().empty());
}

/* Blank to the probe but written once (wiped with zeroes): mkfs stays careful. */
TEST(Executor, ABlankImageWrittenBeforeIsFormattedAsUnknownContents)
{
	Rig rig(dataSpec());
	rig.world.addUnwrittenImage(rig.spec.image);
	rig.world.setSignature(rig.spec.image, "");
	auto outcome = rig.pass();
	ASSERT_TRUE(outcome && outcome->report.ok()) << rig.world.describe();
	EXPECT_EQ(rig.world.lastFormatContents(), DeviceContents::Unknown);
	EXPECT_TRUE(rig.world.violations().empty());
}

/* A cluster that cannot say leaves mkfs careful; the format itself goes on. */
TEST(Executor, AFailedProofOfZeroesFormatsAsUnknownContents)
{
	Rig rig(dataSpec());
	rig.world.addUnwrittenImage(rig.spec.image);
	rig.world.failNext(FakeOp::ReadsZeroes, Errc::Timeout);
	auto outcome = rig.pass();
	ASSERT_TRUE(outcome && outcome->report.ok()) << rig.world.describe();
	EXPECT_EQ(rig.world.lastFormatContents(), DeviceContents::Unknown);
}

/* A filesystem found is checked before its read-write mount. */
TEST(Executor, AFilesystemFoundIsChecked)
{
	Rig rig(dataSpec());
	rig.world.addImage(rig.spec.image, "ext4");
	auto outcome = rig.pass();
	ASSERT_TRUE(outcome && outcome->report.ok()) << rig.world.describe();
	EXPECT_TRUE(logHas(rig.world, "fsck"));
	EXPECT_FALSE(rig.world.lastFormatContents());
}

TEST(Executor, ReadOnlyVolumeIsNeverFormatted)
{
	Rig rig(SpecBuilder("data").readOnly().build());
	rig.world.addImage(rig.spec.image);
	Plan plan;
	plan.volume = "data";
	plan.intent = Intent::Up;
	plan.steps = { MapStep{}, FormatStep{} };
	Host host = rig.world.host();
	const ExecutionReport report = Executor(host).execute(plan, rig.spec, Ownership{});
	ASSERT_FALSE(report.ok());
	EXPECT_EQ(report.firstError()->code, Errc::Conflict);
	EXPECT_FALSE(logHas(rig.world, "mkfs"));
	EXPECT_TRUE(rig.world.violations().empty());
}

TEST(Executor, TimedOutMapIsResolvedAtOnce)
{
	Rig rig(dataSpec());
	rig.world.failNext(FakeOp::Map, Errc::Timeout, true);
	auto first = rig.pass();
	ASSERT_TRUE(first);
	ASSERT_FALSE(first->report.ok());
	EXPECT_TRUE(std::holds_alternative<MapStep>(first->report.outcomes.back().step));
	EXPECT_TRUE(first->report.uncertain());
	/* The map happened after all: the executor looked and recorded it. */
	const std::string device = rig.world.deviceOf(rig.spec.image);
	ASSERT_NE(device, "");
	EXPECT_EQ(rig.world.record("data").mappedDevice, device);
	EXPECT_FALSE(rig.world.record("data").mapPending);
	EXPECT_EQ(rig.converge(), 2U);
	EXPECT_EQ(rig.world.mappings().size(), 1U);
}

TEST(Executor, TimedOutMapThatDidNotHappenAdoptsNoLaterMapping)
{
	Rig rig(dataSpec());
	rig.world.failNext(FakeOp::Map, Errc::Timeout, false);
	auto first = rig.pass();
	ASSERT_TRUE(first);
	EXPECT_TRUE(first->report.uncertain());
	EXPECT_TRUE(rig.world.record("data").empty());

	/* Someone else maps the image before our next pass: theirs, not ours. */
	const std::string theirs = rig.world.mapForeign(rig.spec.image);
	auto next = rig.dryRun();
	ASSERT_TRUE(next);
	EXPECT_FALSE(next->observed.mappingIsOurs());
	ASSERT_EQ(next->plan.conflicts.size(), 1U);
	EXPECT_EQ(next->plan.conflicts.front().kind, ConflictKind::ForeignMapping);
	rig.intent = Intent::Down;
	EXPECT_EQ(rig.converge(), 1U);
	EXPECT_EQ(rig.world.deviceOf(rig.spec.image), theirs);
	EXPECT_TRUE(rig.world.violations().empty());
}

TEST(Executor, PendingMapIsAdoptedOnTheNextPass)
{
	/* The map timed out and even listing the mappings failed: the record stays pending. */
	Rig rig(dataSpec());
	rig.world.failNext(FakeOp::Map, Errc::Timeout, true);
	rig.world.failNext(FakeOp::List, Errc::Io, false, 1);
	auto first = rig.pass();
	ASSERT_TRUE(first);
	EXPECT_TRUE(first->report.uncertain());
	const Ownership pending = rig.world.record("data");
	EXPECT_TRUE(pending.mapPending);
	EXPECT_EQ(pending.mappedDevice, "");
	const std::string device = rig.world.deviceOf(rig.spec.image);
	ASSERT_NE(device, "");

	auto next = rig.dryRun();
	ASSERT_TRUE(next);
	EXPECT_TRUE(next->observed.mappingIsOurs());
	EXPECT_EQ(next->observed.owned.mappedDevice, device);
	EXPECT_FALSE(next->observed.owned.mapPending);
	EXPECT_TRUE(next->observed.recordStale);
	EXPECT_TRUE(next->plan.conflicts.empty());
	EXPECT_FALSE(plans<MapStep>(next->plan));
	EXPECT_EQ(std::get<FormatStep>(next->plan.steps.front()).device, device);

	EXPECT_EQ(rig.converge(), 2U);
	EXPECT_EQ(rig.world.record("data").mappedDevice, device);
	EXPECT_EQ(rig.world.mappings().size(), 1U);
}

TEST(Executor, PendingMapThatDidNotHappenIsForgottenAndRetried)
{
	Rig rig(dataSpec());
	rig.world.failNext(FakeOp::Map, Errc::Timeout, false);
	rig.world.failNext(FakeOp::List, Errc::Io, false, 1);
	auto first = rig.pass();
	ASSERT_TRUE(first);
	EXPECT_TRUE(first->report.uncertain());
	EXPECT_TRUE(rig.world.record("data").mapPending);
	EXPECT_TRUE(rig.world.mappings().empty());

	auto next = rig.dryRun();
	ASSERT_TRUE(next);
	EXPECT_FALSE(next->observed.owned.mapPending);
	EXPECT_TRUE(plans<MapStep>(next->plan));
	EXPECT_EQ(rig.converge(), 2U);
	EXPECT_FALSE(rig.world.record("data").mapPending);
}

TEST(Executor, FailedMapClearsThePendingMark)
{
	Rig rig(dataSpec());
	rig.world.failNext(FakeOp::Map, Errc::Io);
	auto first = rig.pass();
	ASSERT_TRUE(first);
	EXPECT_EQ(first->report.firstError()->code, Errc::Io);
	EXPECT_FALSE(first->report.uncertain());
	EXPECT_FALSE(rig.world.record("data").mapPending);
}

TEST(Executor, TimedOutFormatIsRecordedOnlyWhenItHappened)
{
	Rig happened(dataSpec());
	happened.world.failNext(FakeOp::Format, Errc::Timeout, true);
	auto first = happened.pass();
	ASSERT_TRUE(first);
	EXPECT_TRUE(first->report.uncertain());
	EXPECT_TRUE(happened.world.record("data").formatted);

	Rig didNot(dataSpec());
	didNot.world.failNext(FakeOp::Format, Errc::Timeout, false);
	auto second = didNot.pass();
	ASSERT_TRUE(second);
	EXPECT_TRUE(second->report.uncertain());
	EXPECT_FALSE(didNot.world.record("data").formatted);
	/* So the next pass formats the still blank device instead of calling it lost. */
	EXPECT_EQ(didNot.converge(), 2U);
	EXPECT_TRUE(didNot.world.record("data").formatted);
	EXPECT_TRUE(didNot.world.violations().empty());
}

TEST(Executor, PublishesAReadOnlyTargetReadOnly)
{
	Rig rig(SpecBuilder("data").create(GiB).target("/srv/rw").target("/srv/ro", true).build());
	EXPECT_EQ(rig.converge(), 2U);
	EXPECT_TRUE(logHas(rig.world, "bind /run/rbd-volume/staging/data /srv/ro ro"));
	EXPECT_TRUE(logHas(rig.world, "bind /run/rbd-volume/staging/data /srv/rw rw"));
	auto seen = rig.dryRun();
	ASSERT_TRUE(seen);
	ASSERT_NE(seen->observed.target("/srv/ro"), nullptr);
	EXPECT_TRUE(seen->observed.target("/srv/ro")->readOnly);
	EXPECT_FALSE(seen->observed.target("/srv/rw")->readOnly);
	EXPECT_FALSE(seen->observed.staging->readOnly);
}

TEST(Executor, RecordsBeforeItCreates)
{
	/* Saves of a fresh up: map (before, after), format (after), staging (before), ... */
	Rig rig(dataSpec());
	rig.world.failNext(FakeOp::Save, Errc::Io, false, 3);
	auto outcome = rig.pass();
	ASSERT_TRUE(outcome);
	ASSERT_FALSE(outcome->report.ok());
	EXPECT_TRUE(std::holds_alternative<MountStagingStep>(outcome->report.outcomes.back().step));
	/* The staging mount was not attempted, as it could not be recorded first. */
	EXPECT_FALSE(logHas(rig.world, "mount "));
	EXPECT_TRUE(rig.world.mounts().empty());
}

TEST(Executor, NeverMapsReadWriteWhatAnotherClientUses)
{
	Rig rig(dataSpec());
	rig.world.addImage(rig.spec.image, "ext4");
	rig.world.setUsers(rig.spec.image, { "127.0.0.1:0/42 client.4242" });
	auto outcome = rig.pass();
	ASSERT_TRUE(outcome);
	const Error *error = outcome->report.firstError();
	ASSERT_NE(error, nullptr);
	EXPECT_EQ(error->code, Errc::Busy);
	EXPECT_NE(error->message.find("client.4242"), std::string::npos) << error->message;
	EXPECT_TRUE(std::holds_alternative<MapStep>(outcome->report.outcomes.back().step));
	EXPECT_TRUE(rig.world.mappings().empty());
	EXPECT_TRUE(rig.world.record("data").empty()) << "nothing was attempted, nothing recorded";

	/* The other client goes: the next pass maps. */
	rig.world.setUsers(rig.spec.image, {});
	EXPECT_GE(rig.converge(), 1U);
	EXPECT_EQ(rig.world.mappings().size(), 1U);
}

TEST(Executor, ReadOnlyVolumesShareTheImage)
{
	Rig rig(SpecBuilder("data").create(GiB).target("/srv/data").readOnly().build());
	rig.world.addImage(rig.spec.image, "ext4");
	rig.world.setUsers(rig.spec.image, { "127.0.0.1:0/42 client.4242" });
	EXPECT_GE(rig.converge(), 1U);
	EXPECT_EQ(rig.world.mappings().size(), 1U);
}

TEST(Executor, StopsAtTheFirstFailure)
{
	Rig rig(dataSpec());
	rig.world.addImage(rig.spec.image, "ext4");
	rig.world.failNext(FakeOp::Check, Errc::Conflict);
	auto outcome = rig.pass();
	ASSERT_TRUE(outcome);
	const auto &outcomes = outcome->report.outcomes;
	ASSERT_EQ(outcomes.size(), 4U); /* ensure-image, map, format (found ext4), check */
	EXPECT_TRUE(std::holds_alternative<CheckStep>(outcomes.back().step));
	EXPECT_EQ(outcomes.back().error->code, Errc::Conflict);
	EXPECT_EQ(outcomes[1].change, Change::Changed);
	EXPECT_TRUE(rig.world.mounts().empty());
}

/* A map cut short left our mapper running: it is stopped before a map, which it would block. */
TEST(Executor, AnOrphanMapperIsStoppedBeforeTheMap)
{
	Rig rig(SpecBuilder("data").create(GiB).driver(Driver::Fuse).target("/srv/data").build());
	rig.world.addImage(rig.spec.image, "ext4");
	rig.world.addOrphan("data");
	auto outcome = rig.dryRun();
	ASSERT_TRUE(outcome);
	ASSERT_TRUE(plans<StopOrphanStep>(outcome->plan));
	EXPECT_EQ(stepName(outcome->plan.steps.front()), std::string("stop-orphan"));
	EXPECT_GE(rig.converge(), 1U) << rig.world.describe();
	EXPECT_TRUE(logHas(rig.world, "stop-orphan data"));
	EXPECT_EQ(rig.world.mappings().size(), 1U);
	EXPECT_TRUE(rig.world.violations().empty());
}

/* Going down, an orphan is all that is left of the volume: it goes too. */
TEST(Executor, AnOrphanMapperGoesAtDown)
{
	Rig rig(SpecBuilder("data").create(GiB).driver(Driver::Fuse).build(), Intent::Down);
	rig.world.addOrphan("data");
	EXPECT_GE(rig.converge(), 1U);
	EXPECT_TRUE(logHas(rig.world, "stop-orphan data"));
	EXPECT_TRUE(rig.world.orphans().value_or(std::vector<std::string>{ "?" }).empty());
}

/* The record lost (deleted, emptied, the directory gone): the drivers' markers say what is ours. */
TEST(Executor, ALostRecordStillKnowsOurMappingAndMountsAndDownRemovesThem)
{
	Rig rig(SpecBuilder("data").create(GiB).driver(Driver::Fuse).target("/srv/data").build());
	ASSERT_GE(rig.converge(), 1U);
	ASSERT_TRUE(rig.world.save("data", Ownership{}));
	auto seen = rig.dryRun();
	ASSERT_TRUE(seen);
	EXPECT_TRUE(seen->plan.conflicts.empty()) << formatPlan(seen->plan, rig.spec);
	/* Only the size the record knew is lost: at most a grow that finds nothing to do. */
	EXPECT_TRUE(std::all_of(
		seen->plan.steps.begin(), seen->plan.steps.end(),
		[](const Step &step) { return std::holds_alternative<GrowStep>(step); }))
		<< formatPlan(seen->plan, rig.spec);

	rig.intent = Intent::Down;
	EXPECT_GE(rig.converge(), 1U) << rig.world.describe();
	EXPECT_TRUE(rig.world.mappings().empty()) << rig.world.describe();
	EXPECT_TRUE(rig.world.mounts().empty()) << rig.world.describe();
	EXPECT_TRUE(rig.world.violations().empty());
}

} /* namespace */

} /* namespace rbdvolume::testing */
