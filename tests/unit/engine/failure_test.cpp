/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Failure injection: every port call of a fresh up and of a full down fails in
 * turn (an error, a timeout that did nothing, a timeout that happened anyway).
 * The failing pass must stop there and say so; fault-free passes must then
 * reach the fault-free outcome without harming data.
 */
#include <algorithm>
#include <array>
#include <iostream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "engine_rig.hpp"
#include "spec_builder.hpp"

namespace rbdvolume::testing {

namespace {

constexpr unsigned PassBound = 3;

struct Fault {
	Errc code;
	bool effect;
	const char *name;
};

constexpr std::array<Fault, 3> Faults = { {
	{ Errc::Io, false, "io" },
	{ Errc::Timeout, false, "timeout" },
	{ Errc::Timeout, true, "timeout-with-effect" },
} };

constexpr std::array<FakeOp, 18> Ops = {
	FakeOp::ReadTable,  FakeOp::Mount,	 FakeOp::Bind,	    FakeOp::Unmount,
	FakeOp::List,	    FakeOp::Map,	 FakeOp::Unmap,	    FakeOp::EnsureImage,
	FakeOp::Format,	    FakeOp::Check,	 FakeOp::Save,	    FakeOp::Grow,
	FakeOp::LuksFormat, FakeOp::LuksOpen,	 FakeOp::LuksClose, FakeOp::LuksGrow,
	FakeOp::Metadata,   FakeOp::SetMetadata,
};

enum class Journey : uint8_t { FreshUp, FullDown, EncryptedUp, EncryptedDown };

const char *journeyName(Journey journey)
{
	constexpr std::array<const char *, 4> Names = { "fresh up", "full down",
							"encrypted fresh up",
							"encrypted full down" };
	return Names.at(static_cast<size_t>(journey));
}

std::unique_ptr<Rig> startOf(Journey journey)
{
	SpecBuilder spec("data");
	spec.create(10 * GiB).target("/srv/data").target("/srv/backup", true);
	if (journey == Journey::EncryptedUp || journey == Journey::EncryptedDown)
		spec.encrypted();
	auto rig = std::make_unique<Rig>(spec.build());
	if (journey == Journey::FullDown || journey == Journey::EncryptedDown) {
		EXPECT_NE(rig->converge(), 0U);
		rig->intent = Intent::Down;
	}
	return rig;
}

/* The host without the ownership records. */
std::string hostState(const FakeWorld &world)
{
	std::istringstream lines(world.describe());
	std::string line;
	std::string out;
	while (std::getline(lines, line)) {
		if (line.rfind("record ", 0) != 0)
			out += line + '\n';
	}
	return out;
}

struct Reference {
	std::map<FakeOp, unsigned> calls; /* per op, in the one pass that does the journey */
	std::string host;
	Ownership record;
};

Reference referenceOf(Journey journey)
{
	Reference ref;
	auto rig = startOf(journey);
	std::map<FakeOp, unsigned> before;
	for (FakeOp op : Ops)
		before[op] = rig->world.calls(op);
	auto outcome = rig->pass();
	EXPECT_TRUE(outcome && outcome->report.ok() && !outcome->plan.empty());
	for (FakeOp op : Ops)
		ref.calls[op] = rig->world.calls(op) - before[op];
	EXPECT_EQ(rig->converge(1), 1U) << "the fault-free journey takes more than one pass";
	ref.host = hostState(rig->world);
	ref.record = rig->world.record(rig->spec.name);
	return ref;
}

bool logHas(const FakeWorld &world, const std::string &prefix)
{
	return std::ranges::any_of(
		world.log(), [&](const std::string &line) { return line.rfind(prefix, 0) == 0; });
}

void runJourney(Journey journey)
{
	const Reference ref = referenceOf(journey);
	unsigned cases = 0;
	unsigned uncertainSaves = 0; /* failed saves after a change: each journey has some */
	for (FakeOp op : Ops) {
		for (unsigned call = 0; call < ref.calls.at(op); call++) {
			for (const Fault &fault : Faults) {
				SCOPED_TRACE(std::string(journeyName(journey)) + ": " + fault.name +
					     " in " + fakeOpName(op) + " call " +
					     std::to_string(call + 1));
				auto rig = startOf(journey);
				const std::string before = rig->world.describe();
				rig->world.failNext(op, fault.code, fault.effect, call);

				bool formatUnrecorded = false;
				const size_t logBefore = rig->world.log().size();
				const size_t savesBefore = rig->world.logAtSaves().size();
				auto outcome = rig->pass();
				ASSERT_TRUE(
					logHas(rig->world, std::string("fault ") + fakeOpName(op)))
					<< "the fault was not reached";
				if (op == FakeOp::ReadTable || op == FakeOp::List) {
					/* Observing failed: nothing planned, nothing done. */
					ASSERT_FALSE(outcome);
					EXPECT_EQ(outcome.error().code, fault.code);
					EXPECT_EQ(rig->world.describe(), before);
				} else if (op == FakeOp::SetMetadata) {
					/* The image's record of a format not kept: the step says so, nothing fails. */
					ASSERT_TRUE(outcome) << outcome.error().message;
					EXPECT_TRUE(outcome->report.ok());
					EXPECT_TRUE(std::ranges::any_of(
						outcome->report.outcomes, [](const StepOutcome &o) {
							return o.detail.find("not recorded in the "
									     "image") !=
							       std::string::npos;
						}));
				} else {
					ASSERT_TRUE(outcome) << outcome.error().message;
					const ExecutionReport &report = outcome->report;
					ASSERT_FALSE(report.outcomes.empty());
					ASSERT_LE(report.outcomes.size(),
						  outcome->plan.steps.size());
					const StepOutcome &last = report.outcomes.back();
					ASSERT_TRUE(last.error)
						<< "the pass did not stop at the fault";
					for (size_t i = 0; i + 1 < report.outcomes.size(); i++)
						EXPECT_FALSE(report.outcomes[i].error);
					EXPECT_EQ(report.firstError(), &*last.error);
					EXPECT_EQ(last.error->code, fault.code);
					if (op != FakeOp::Save) {
						EXPECT_EQ(last.uncertain,
							  fault.code == Errc::Timeout);
					} else if (fault.code != Errc::Timeout) {
						/* A failed save is uncertain only when the host changed
						 * since the save before it: the record lags the host. A
						 * step that records first (map, mount, publish) and
						 * fails to leaves the host as the record says. */
						const std::vector<size_t> &marks =
							rig->world.logAtSaves();
						const size_t at = savesBefore + call;
						ASSERT_LT(at, marks.size());
						/* (After a format, the open step reports the open the
						 * format did: it may be uncertain without a change of its own.) */
						const bool openAfterFormat =
							std::holds_alternative<LuksOpenStep>(
								last.step);
						if (last.uncertain && !openAfterFormat) {
							EXPECT_GT(marks.at(at),
								  call == 0 ? logBefore
									    : marks.at(at - 1));
							uncertainSaves++;
						}
					}
					EXPECT_EQ(report.uncertain(), last.uncertain);
					formatUnrecorded =
						op == FakeOp::Save &&
						std::holds_alternative<FormatStep>(last.step) &&
						last.error->uncertain();
				}
				EXPECT_TRUE(rig->world.violations().empty())
					<< rig->world.violations().front();

				const unsigned passes = rig->converge(PassBound);
				EXPECT_NE(passes, 0U) << rig->world.describe();
				EXPECT_TRUE(rig->world.violations().empty())
					<< rig->world.describe();
				EXPECT_EQ(hostState(rig->world), ref.host);
				/*
				 * The one loss a single fault can cause: mkfs ran but the record
				 * of it could not be saved, and no later pass can tell our
				 * filesystem from anyone's. (A LUKS format is recorded as
				 * pending before it starts: it is finished, never lost.)
				 */
				Ownership expected = ref.record;
				if (formatUnrecorded)
					expected.formatted = false;
				EXPECT_EQ(rig->world.record(rig->spec.name), expected);
				cases++;
			}
		}
	}
	EXPECT_GT(uncertainSaves, 0U) << "no failed save after a change was uncertain";
	std::cout << "  " << cases << " faults injected into the " << journeyName(journey) << '\n';
}

TEST(FailureInjection, EveryCallOfAFreshUp)
{
	runJourney(Journey::FreshUp);
}

TEST(FailureInjection, EveryCallOfAFullDown)
{
	runJourney(Journey::FullDown);
}

TEST(FailureInjection, EveryCallOfAnEncryptedFreshUp)
{
	runJourney(Journey::EncryptedUp);
}

TEST(FailureInjection, EveryCallOfAnEncryptedFullDown)
{
	runJourney(Journey::EncryptedDown);
}

TEST(FailureInjection, BusyTargetFailsTheDownAndLeavesEverythingMounted)
{
	auto rig = startOf(Journey::FullDown);
	const std::string before = hostState(rig->world);
	rig->world.setBusy("/srv/data", true);

	auto outcome = rig->pass();
	ASSERT_TRUE(outcome);
	const Error *error = outcome->report.firstError();
	ASSERT_NE(error, nullptr);
	EXPECT_EQ(error->code, Errc::Busy);
	EXPECT_FALSE(outcome->report.uncertain());
	EXPECT_EQ(outcome->report.outcomes.size(), 1U);
	EXPECT_EQ(hostState(rig->world), before);
	/* Still busy: every pass fails the same way and changes nothing. */
	EXPECT_EQ(rig->converge(), 0U);
	EXPECT_EQ(hostState(rig->world), before);

	rig->world.setBusy("/srv/data", false);
	EXPECT_EQ(rig->converge(), 2U);
	EXPECT_TRUE(rig->world.mounts().empty());
	EXPECT_TRUE(rig->world.mappings().empty());
	EXPECT_TRUE(rig->world.violations().empty());
	Ownership formattedOnly;
	formattedOnly.formatted = true;
	formattedOnly.sizedBytes = rig->world.image(rig->spec.image).size;
	EXPECT_EQ(rig->world.record("data"), formattedOnly);
}

TEST(FailureInjection, BusyStagingKeepsTheMappingUntilFreed)
{
	auto rig = startOf(Journey::FullDown);
	rig->world.setBusy(rig->spec.staging.path, true);

	auto outcome = rig->pass();
	ASSERT_TRUE(outcome);
	ASSERT_NE(outcome->report.firstError(), nullptr);
	EXPECT_EQ(outcome->report.firstError()->code, Errc::Busy);
	/* The targets went first; the staging mount and the mapping stay. */
	ASSERT_EQ(rig->world.mounts().size(), 1U);
	EXPECT_EQ(rig->world.mounts().front().entry.target, rig->spec.staging.path);
	EXPECT_EQ(rig->world.mappings().size(), 1U);
	EXPECT_TRUE(rig->world.record("data").staged);
	EXPECT_TRUE(rig->world.record("data").publishedTargets.empty());

	rig->world.setBusy(rig->spec.staging.path, false);
	EXPECT_EQ(rig->converge(), 2U);
	EXPECT_TRUE(rig->world.mounts().empty());
	EXPECT_TRUE(rig->world.mappings().empty());
}

} /* namespace */

} /* namespace rbdvolume::testing */
