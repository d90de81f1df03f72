/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Volume status: what one observation shows (sight) and the bus's view of a volume (statusOf). */
#include "daemon/volume_status.hpp"

#include <array>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "printers.hpp"

namespace rbdvolume::testing {

namespace {

using daemon::Condition;
using daemon::Sighting;
using daemon::statusOf;
using daemon::VolumeFacts;

const std::string SpecFile = "/etc/rbd-volume/volumes/data.toml";

Conflict foreignMount()
{
	return Conflict{ ConflictKind::ForeignMount, "/srv/data",
			 "/dev/sdb mounted by someone else" };
}

Conflict mapperLost()
{
	return Conflict{ ConflictKind::MapperLost, "/dev/loop3", "rbd-fuse exited" };
}

/* A usable spec, observed up and converged. */
VolumeFacts upFacts()
{
	VolumeFacts facts;
	facts.specFile = SpecFile;
	facts.specUsable = true;
	facts.intent = Intent::Up;
	Sighting seen;
	seen.stage = bus::Stage::Published;
	seen.device = "/dev/rbd0";
	seen.stagingPath = "/run/rbd-volume/staging/data";
	seen.targets = { "/srv/data" };
	seen.converged = true;
	seen.anythingOurs = true;
	facts.sighting = seen;
	facts.generation = 3;
	facts.observedGeneration = 3;
	return facts;
}

/* A usable spec, observed with nothing on the host. */
VolumeFacts absentFacts(std::optional<Intent> intent)
{
	VolumeFacts facts;
	facts.specFile = SpecFile;
	facts.specUsable = true;
	facts.intent = intent;
	facts.sighting = Sighting{};
	facts.sighting->intent = intent.value_or(Intent::Up);
	facts.sighting->converged = intent != Intent::Up;
	facts.sighting->planned = intent == Intent::Up;
	return facts;
}

Diagnostic problem()
{
	return Diagnostic{ SpecFile, 4, 10, "map.driver",
			   "expected one of 'krbd', 'nbd', 'fuse', 'auto', found 'rbd'" };
}

struct PhaseCase {
	const char *what;
	VolumeFacts facts;
	const char *phase;
};

std::vector<PhaseCase> phaseCases()
{
	std::vector<PhaseCase> cases;
	const auto add = [&cases](const char *what, VolumeFacts facts, const char *phase) {
		cases.push_back({ what, std::move(facts), phase });
	};

	VolumeFacts facts = upFacts();
	add("up and converged", facts, "up");

	facts = absentFacts(Intent::Down);
	add("down and converged", facts, "down");

	facts = upFacts();
	facts.specProblems = { problem() };
	add("a problem in the file, a valid spec still loaded", facts, "invalid");

	facts = upFacts();
	facts.specUsable = false;
	add("never a valid spec", facts, "invalid");

	facts = upFacts();
	facts.specProblems = { problem() };
	facts.sighting->conflicts = { foreignMount() };
	facts.lastError = Error{ Errc::Io, "mount failed", 0 };
	add("invalid wins over conflicts and errors", facts, "invalid");

	facts = upFacts();
	facts.sighting.reset();
	add("not observed yet", facts, "unknown");

	facts = upFacts();
	facts.sighting.reset();
	facts.lastError = Error{ Errc::Io, "mount failed", 0 };
	add("not observed yet, whatever failed", facts, "unknown");

	facts = upFacts();
	facts.sighting->conflicts = { foreignMount() };
	facts.sighting->converged = false;
	add("a conflict", facts, "degraded");

	facts = upFacts();
	facts.sighting->conflicts = { mapperLost() };
	facts.sighting->converged = false;
	add("the mapper lost", facts, "degraded");

	facts = upFacts();
	facts.sighting->conflicts = { foreignMount() };
	facts.lastError = Error{ Errc::Conflict, "refused", 0 };
	facts.busy = true;
	add("a conflict wins over an error and a running episode", facts, "degraded");

	facts = upFacts();
	facts.lastError = Error{ Errc::Timeout, "mkfs timed out", 0 };
	add("the last episode failed", facts, "failed");

	facts = upFacts();
	facts.lastError = Error{ Errc::Timeout, "mkfs timed out", 0 };
	facts.busy = true;
	add("failed, retrying", facts, "failed");

	facts = absentFacts(std::nullopt);
	add("no intent, nothing on the host", facts, "down");

	facts = upFacts();
	facts.intent.reset();
	add("no intent, ours on the host", facts, "unmanaged");

	facts = absentFacts(Intent::Up);
	add("up wanted, nothing there yet", facts, "pending");

	facts = upFacts();
	facts.busy = true;
	add("converged but an episode runs", facts, "pending");

	facts = absentFacts(Intent::Down);
	facts.busy = true;
	add("down, an episode runs", facts, "pending");

	facts = upFacts();
	facts.intent = Intent::Down;
	facts.sighting->converged = false;
	facts.sighting->planned = true;
	add("down wanted, still up", facts, "pending");

	facts = upFacts();
	facts.intent = Intent::Down;
	add("down just asked, the last sighting converged for up", facts, "pending");

	facts = absentFacts(Intent::Down);
	facts.intent = Intent::Up;
	add("up just asked, the last sighting converged for down", facts, "pending");
	return cases;
}

TEST(VolumeStatus, PhaseOfEachCombination)
{
	for (const PhaseCase &c : phaseCases())
		EXPECT_STREQ(bus::phaseName(statusOf("a", c.facts).phase), c.phase) << c.what;
}

TEST(VolumeStatus, CopiesWhatTheSightingShows)
{
	VolumeFacts facts = upFacts();
	facts.busy = true;
	facts.activity = "publish /srv/data";
	facts.generation = 5;
	facts.observedGeneration = 4;
	const daemon::VolumeStatus status = statusOf("a", facts);
	EXPECT_EQ(status.specFile, SpecFile);
	EXPECT_EQ(status.intent, "up");
	EXPECT_STREQ(bus::stageName(status.stage), "published");
	EXPECT_EQ(status.device, "/dev/rbd0");
	EXPECT_EQ(status.stagingPath, "/run/rbd-volume/staging/data");
	EXPECT_EQ(status.publishTargets, std::vector<std::string>{ "/srv/data" });
	EXPECT_TRUE(status.busy);
	EXPECT_EQ(status.activity, "publish /srv/data");
	EXPECT_EQ(status.generation, 5U);
	EXPECT_EQ(status.observedGeneration, 4U);
	EXPECT_TRUE(status.conditions.empty());
	EXPECT_EQ(status.lastErrorName, "");
	EXPECT_EQ(status.lastErrorMessage, "");
}

TEST(VolumeStatus, IntentSpelling)
{
	VolumeFacts facts = upFacts();
	EXPECT_EQ(statusOf("a", facts).intent, "up");
	facts.intent = Intent::Down;
	EXPECT_EQ(statusOf("a", facts).intent, "down");
	facts.intent.reset();
	EXPECT_EQ(statusOf("a", facts).intent, "");
}

TEST(VolumeStatus, UnobservedShowsNothingOfTheHost)
{
	VolumeFacts facts = upFacts();
	facts.sighting.reset();
	const daemon::VolumeStatus status = statusOf("a", facts);
	EXPECT_STREQ(bus::stageName(status.stage), "absent");
	EXPECT_EQ(status.device, "");
	EXPECT_EQ(status.stagingPath, "");
	EXPECT_TRUE(status.publishTargets.empty());
}

TEST(VolumeStatus, SpecInvalidConditionCarriesFileLineColumn)
{
	VolumeFacts facts = upFacts();
	Diagnostic second = problem();
	second.line = 9;
	second.column = 1;
	second.field = "publish[0].path";
	second.message = "expected an absolute path";
	facts.specProblems = { problem(), second };
	const auto conditions = statusOf("a", facts).conditions;
	ASSERT_EQ(conditions.size(), 2U);
	EXPECT_EQ(conditions[0],
		  (Condition{ "SpecInvalid",
			      SpecFile + ":4:10: map.driver: expected one of "
					 "'krbd', 'nbd', 'fuse', 'auto', found 'rbd'" }));
	EXPECT_EQ(conditions[1],
		  (Condition{ "SpecInvalid", SpecFile + ":9:1: publish[0].path: "
							"expected an absolute path" }));
}

TEST(VolumeStatus, ConflictConditionsNameTheirKind)
{
	VolumeFacts facts = upFacts();
	facts.sighting->conflicts = { foreignMount(), mapperLost() };
	const auto conditions = statusOf("a", facts).conditions;
	ASSERT_EQ(conditions.size(), 2U);
	EXPECT_EQ(conditions[0].type, "Conflict");
	EXPECT_EQ(conditions[0].message,
		  "foreign-mount /srv/data: /dev/sdb mounted by someone else");
	EXPECT_EQ(conditions[1].type, "MapperLost");
	EXPECT_EQ(conditions[1].message, "mapper-lost /dev/loop3: rbd-fuse exited");
	EXPECT_EQ(conditions[1].message, daemon::conflictText(mapperLost()));
}

/* Requests that get no answer: degraded, with a condition type of its own. */
TEST(VolumeStatus, AStalledDeviceIsDegradedWithIoStalled)
{
	VolumeFacts facts = upFacts();
	facts.sighting->conflicts = { Conflict{
		ConflictKind::IoStalled, "/dev/rbd0",
		"no answer from the cluster since 10:02:03 (requests wait on /dev/rbd0)" } };
	const daemon::VolumeStatus status = statusOf("a", facts);
	EXPECT_STREQ(bus::phaseName(status.phase), "degraded");
	ASSERT_EQ(status.conditions.size(), 1U);
	EXPECT_EQ(status.conditions[0].type, "IoStalled");
	EXPECT_EQ(status.conditions[0].message,
		  "io-stalled /dev/rbd0: no answer from the cluster since 10:02:03 (requests wait "
		  "on /dev/rbd0)");
}

TEST(VolumeStatus, FailedConditionAndLastError)
{
	VolumeFacts facts = upFacts();
	facts.lastError = Error{ Errc::Timeout, "mkfs.ext4 /dev/rbd0 timed out", 0 };
	const daemon::VolumeStatus status = statusOf("a", facts);
	EXPECT_EQ(status.lastErrorName, "org.rbdvolume1.Error.Timeout");
	EXPECT_EQ(status.lastErrorMessage, "mkfs.ext4 /dev/rbd0 timed out");
	ASSERT_EQ(status.conditions.size(), 1U);
	EXPECT_EQ(status.conditions[0], (Condition{ "Failed", "mkfs.ext4 /dev/rbd0 timed out" }));
}

TEST(VolumeStatus, MissingSpecCondition)
{
	VolumeFacts facts = upFacts();
	facts.specMissing = true;
	const daemon::VolumeStatus status = statusOf("a", facts);
	EXPECT_STREQ(bus::phaseName(status.phase), "up") << "the last valid spec still serves";
	ASSERT_EQ(status.conditions.size(), 1U);
	EXPECT_EQ(status.conditions[0].type, "SpecMissing");
	EXPECT_NE(status.conditions[0].message.find(SpecFile), std::string::npos)
		<< status.conditions[0].message;
}

TEST(VolumeStatus, ConditionsInOrder)
{
	VolumeFacts facts = upFacts();
	facts.specProblems = { problem() };
	facts.specMissing = true;
	facts.sighting->conflicts = { mapperLost(), foreignMount() };
	facts.lastError = Error{ Errc::Io, "boom", 0 };
	std::vector<std::string> types;
	for (const Condition &condition : statusOf("a", facts).conditions)
		types.push_back(condition.type);
	EXPECT_EQ(types, (std::vector<std::string>{ "SpecInvalid", "SpecMissing", "MapperLost",
						    "Conflict", "Failed" }));
}

ObservedMount mountOf(const std::string &path, bool ours)
{
	return ObservedMount{ path, "/dev/rbd0", "ext4", false, ours };
}

MappedImage mapping()
{
	MappedImage mapped;
	mapped.pool = "rbd";
	mapped.image = "data";
	mapped.device = "/dev/rbd0";
	return mapped;
}

TEST(Sight, NothingThere)
{
	const Sighting seen = daemon::sight(ObservedVolume{}, Plan{});
	EXPECT_STREQ(bus::stageName(seen.stage), "absent");
	EXPECT_EQ(seen.device, "");
	EXPECT_TRUE(seen.converged);
	EXPECT_FALSE(seen.planned);
	EXPECT_FALSE(seen.anythingOurs);
}

TEST(Sight, Stages)
{
	ObservedVolume observed;
	observed.mapping = mapping();
	observed.owned.mappedDevice = "/dev/rbd0";
	Sighting seen = daemon::sight(observed, Plan{});
	EXPECT_STREQ(bus::stageName(seen.stage), "mapped");
	EXPECT_EQ(seen.device, "/dev/rbd0");
	EXPECT_TRUE(seen.anythingOurs);

	observed.staging = mountOf("/run/rbd-volume/staging/data", true);
	seen = daemon::sight(observed, Plan{});
	EXPECT_STREQ(bus::stageName(seen.stage), "staged");
	EXPECT_EQ(seen.stagingPath, "/run/rbd-volume/staging/data");

	observed.targets = { mountOf("/srv/data", true), mountOf("/srv/other", false) };
	seen = daemon::sight(observed, Plan{});
	EXPECT_STREQ(bus::stageName(seen.stage), "published");
	EXPECT_EQ(seen.targets, std::vector<std::string>{ "/srv/data" }) << "only ours";
}

TEST(Sight, ForeignMountsAreNotOurStage)
{
	ObservedVolume observed;
	observed.mapping = mapping();
	observed.staging = mountOf("/run/rbd-volume/staging/data", false);
	observed.targets = { mountOf("/srv/data", true) };
	const Sighting seen = daemon::sight(observed, Plan{});
	EXPECT_STREQ(bus::stageName(seen.stage), "mapped");
	EXPECT_EQ(seen.stagingPath, "");
	EXPECT_EQ(seen.targets, std::vector<std::string>{ "/srv/data" });
}

TEST(Sight, PlanAndConflicts)
{
	Plan plan;
	plan.steps = { MapStep{} };
	Sighting seen = daemon::sight(ObservedVolume{}, plan);
	EXPECT_TRUE(seen.planned);
	EXPECT_FALSE(seen.converged);

	plan.steps.clear();
	plan.conflicts = { foreignMount() };
	seen = daemon::sight(ObservedVolume{}, plan);
	EXPECT_FALSE(seen.planned);
	EXPECT_FALSE(seen.converged) << "a conflict is never converged";
	EXPECT_EQ(seen.conflicts, std::vector<Conflict>{ foreignMount() });
}

/* What we formatted stays recorded after a full down; nothing of it is on the host. */
TEST(Sight, FormattedRecordAloneIsNotOnTheHost)
{
	ObservedVolume observed;
	observed.owned.formatted = true;
	observed.owned.sizedBytes = uint64_t{ 1 } << 30;
	EXPECT_FALSE(daemon::sight(observed, Plan{}).anythingOurs);

	observed.owned.staged = true;
	EXPECT_TRUE(daemon::sight(observed, Plan{}).anythingOurs);
	observed.owned.staged = false;
	observed.owned.publishedTargets = { "/srv/data" };
	EXPECT_TRUE(daemon::sight(observed, Plan{}).anythingOurs);
}

} /* namespace */

} /* namespace rbdvolume::testing */
