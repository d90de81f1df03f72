/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Properties of the reconcile loop, from any state a host can reach: random
 * walks (seeded, so every failure replays) of engine passes under changing
 * specs, and of drift and foreign interference, followed by fault-free passes
 * that must converge, stay converged, satisfy the spec or report exactly the
 * conflicts the foreign state calls for, and never harm data.
 */
#include <algorithm>
#include <array>
#include <iostream>
#include <map>
#include <random>
#include <sstream>

#include <gtest/gtest.h>

#include "engine_rig.hpp"
#include "ground_truth.hpp"
#include "spec_builder.hpp"

namespace rbdvolume::testing {

namespace {

constexpr unsigned Seeds = 1000;
constexpr unsigned PassBound = 3;
const std::array<std::string, 3> TargetPaths = { "/srv/a", "/srv/b", "/srv/c" };
const std::string UnrelatedPath = "/mnt/other";

/* What a walk turns; the spec is rebuilt from it. */
struct Knobs {
	Intent intent = Intent::Up;
	std::vector<std::pair<std::string, bool>> targets; /* path, read-only asked for */
	bool readOnly = false;
	bool block = false;
	FsType fsType = FsType::Ext4;
	bool formatNever = false;
	uint64_t createBytes = GiB; /* the spec's [image.create] size */
};

VolumeSpec specFor(const Knobs &knobs)
{
	SpecBuilder builder("vol");
	builder.create(knobs.createBytes)
		.readOnly(knobs.readOnly)
		.block(knobs.block)
		.fsType(knobs.fsType);
	builder.format(knobs.formatNever ? FormatPolicy::Never : FormatPolicy::IfBlank);
	for (const auto &[path, readOnly] : knobs.targets)
		builder.target(path, knobs.readOnly || readOnly);
	return builder.build();
}

using ConflictKey = std::pair<ConflictKind, std::string>;

std::vector<ConflictKey> keys(const std::vector<Conflict> &conflicts)
{
	std::vector<ConflictKey> out;
	out.reserve(conflicts.size());
	for (const Conflict &c : conflicts)
		out.emplace_back(c.kind, c.subject);
	std::sort(out.begin(), out.end());
	return out;
}

std::string text(const std::vector<ConflictKey> &conflicts)
{
	std::string out;
	for (const auto &[kind, subject] : conflicts)
		out += std::string(out.empty() ? "" : ", ") + conflictKindName(kind) + " " +
		       subject;
	return out.empty() ? "(none)" : out;
}

class Walk
{
public:
	/* A faulty walk also injects port failures and busy mounts (never while settling). */
	Walk(unsigned seed, bool faulty) : rng_(seed), rig_(specFor(knobs_)), faulty_(faulty) {}

	void wander();
	void settleAndCheck();

	std::string history;
	std::string summary; /* "up in 2: foreign-mount", for the summary */
	std::string world() const { return rig_.world.describe(); }

private:
	unsigned pick(unsigned n) { return static_cast<unsigned>(rng_() % n); }
	bool coin(unsigned oneIn = 2) { return pick(oneIn) == 0; }
	void note(const std::string &what) { history += "  " + what + "\n"; }
	void apply();
	void randomDesire();
	void enginePass();
	std::string randomPath(bool withStaging);
	/* A settle pass planned more than taking our binds off unwanted targets. */
	bool settleBuilt_ = false;

	void expectUp(const std::vector<ConflictKey> &reported);
	bool expectTargetsBlock(const std::vector<ConflictKey> &reported);
	void expectDown(const std::vector<ConflictKey> &reported);

	void injectFault();
	/* Whether we formatted the image: the log says so, unless a fault lost the record of it. */
	bool formatted(const Truth &truth) const
	{
		return faulty_ ? rig_.world.record(rig_.spec.name).formatted
			       : truth.formattedByUs();
	}

	std::mt19937 rng_;
	Knobs knobs_;
	Rig rig_;
	bool faulty_;
	unsigned foreignDevices_ = 0;
};

void Walk::randomDesire()
{
	knobs_.intent = pick(3) == 0 ? Intent::Down : Intent::Up;
	knobs_.targets.clear();
	for (const std::string &path : TargetPaths) {
		if (coin())
			knobs_.targets.emplace_back(path, coin(4));
	}
	if (coin())
		std::shuffle(knobs_.targets.begin(), knobs_.targets.end(), rng_);
}

void Walk::enginePass()
{
	rig_.spec = specFor(knobs_);
	rig_.intent = knobs_.intent;
	auto outcome = rig_.pass();
	if (!outcome) {
		ASSERT_TRUE(faulty_) << outcome.error().message;
		note("pass failed: " + outcome.error().message);
		return;
	}
	std::ostringstream line;
	line << "pass " << intentName(knobs_.intent) << " [" << describeSteps(outcome->plan) << "]";
	if (const Error *error = outcome->report.firstError())
		line << " failed: " << error->message;
	note(line.str());

	/* Teardown before setup, in every plan of every walk. */
	bool setup = false;
	for (const Step &step : outcome->plan.steps) {
		const bool teardown = std::holds_alternative<UnmountStep>(step) ||
				      std::holds_alternative<UnmapStep>(step);
		EXPECT_FALSE(teardown && setup) << describeSteps(outcome->plan);
		setup = setup || !teardown;
	}
}

std::string Walk::randomPath(bool withStaging)
{
	const unsigned n = pick(withStaging ? 5 : 4);
	if (n < TargetPaths.size())
		return TargetPaths.at(n);
	return n == 3 ? UnrelatedPath : rig_.spec.staging.path;
}

void Walk::apply()
{
	FakeWorld &world = rig_.world;
	const ImageSpec &image = rig_.spec.image;
	switch (pick(faulty_ ? 14 : 12)) {
	case 0:
	case 1:
	case 2:
		randomDesire();
		enginePass();
		break;
	case 3:
		knobs_.readOnly = !knobs_.readOnly;
		note(std::string("spec read-only ") + (knobs_.readOnly ? "on" : "off"));
		enginePass();
		break;
	case 4:
		knobs_.block = !knobs_.block;
		note(std::string("spec mode ") + (knobs_.block ? "block" : "filesystem"));
		break;
	case 5:
		if (coin(3)) {
			knobs_.formatNever = !knobs_.formatNever;
			note(std::string("spec format ") +
			     (knobs_.formatNever ? "never" : "if-blank"));
		} else {
			knobs_.fsType = knobs_.fsType == FsType::Ext4 ? FsType::Xfs : FsType::Ext4;
			note(std::string("spec fs ") + fsTypeName(knobs_.fsType));
		}
		break;
	case 6: {
		const std::string path = coin(3) ? rig_.spec.staging.path : randomPath(false);
		if (world.unmountByHand(path))
			note("hand unmount " + path);
		break;
	}
	case 7: {
		const std::string device = world.deviceOf(image);
		if (!device.empty() && world.unmapByHand(device))
			note("hand unmap " + device);
		break;
	}
	case 8: {
		const std::string path = randomPath(true);
		const std::string device =
			"/dev/sd" + std::string(1, static_cast<char>('b' + foreignDevices_++ % 20));
		world.mountForeign(path, device, coin() ? "ext4" : "xfs");
		note("foreign mount " + device + " on " + path);
		break;
	}
	case 9: {
		static constexpr std::array<std::pair<const char *, bool>, 4> Signatures = {
			{ { "xfs", false }, { "ext4", false }, { "", false }, { "ext4,dos", true } }
		};
		const auto &[signature, ambivalent] = Signatures.at(pick(4));
		/* Only onto an image nobody has mounted: under a live mount the kernel's view wins. */
		const std::string device = world.deviceOf(image);
		if (!device.empty() &&
		    std::any_of(world.mounts().begin(), world.mounts().end(),
				[&](const FakeMount &m) { return Truth::device(m) == device; }))
			break;
		if (world.hasImage(image))
			world.setSignature(image, signature, ambivalent);
		else
			world.addImage(image, signature, ambivalent);
		note(std::string("signature '") + signature + "'" +
		     (ambivalent ? " ambivalent" : ""));
		break;
	}
	case 10:
		/*
		 * Not while our record says a map is pending (only a failed save
		 * leaves it so): the next pass adopts whatever mapping appears,
		 * a limit of recording before creating.
		 */
		if (world.hasImage(image) && world.deviceOf(image).empty() &&
		    !world.record(rig_.spec.name).mapPending) {
			const bool readOnly = coin();
			note("foreign map " + world.mapForeign(image, readOnly) +
			     (readOnly ? " ro" : ""));
		}
		break;
	case 11:
		if (coin()) {
			knobs_.createBytes += GiB / 2;
			note("spec size " + std::to_string(knobs_.createBytes));
		} else if (world.hasImage(image)) {
			const uint64_t bigger = world.image(image).size + GiB / 2;
			world.resizeImage(image, bigger);
			note("rbd resize to " + std::to_string(bigger));
		}
		break;
	case 12:
	case 13:
		injectFault();
		enginePass();
		break;
	default:
		enginePass();
		break;
	}
}

void Walk::injectFault()
{
	static constexpr std::array<FakeOp, 12> Ops = {
		FakeOp::ReadTable, FakeOp::Mount, FakeOp::Bind,	 FakeOp::Unmount,
		FakeOp::List,	   FakeOp::Map,	  FakeOp::Unmap, FakeOp::EnsureImage,
		FakeOp::Format,	   FakeOp::Check, FakeOp::Save,	 FakeOp::Grow,
	};
	if (coin(4)) {
		const std::string path = randomPath(true);
		rig_.world.setBusy(path, true);
		note("busy " + path);
		return;
	}
	const FakeOp op = Ops.at(pick(Ops.size()));
	const bool timeout = coin();
	const bool effect = timeout && coin();
	const unsigned after = pick(3);
	rig_.world.failNext(op, timeout ? Errc::Timeout : Errc::Io, effect, after);
	note(std::string("fault ") + fakeOpName(op) + (timeout ? " timeout" : " io") +
	     (effect ? " with effect" : "") + " after " + std::to_string(after));
}

void Walk::wander()
{
	const unsigned actions = 3 + pick(18);
	for (unsigned i = 0; i < actions; i++) {
		apply();
		ASSERT_TRUE(rig_.world.violations().empty())
			<< rig_.world.violations().front() << "\n"
			<< rig_.world.describe();
		if (::testing::Test::HasFailure())
			return;
	}
}

void Walk::settleAndCheck()
{
	rig_.world.clearFaults();
	for (const std::string &path : TargetPaths)
		rig_.world.setBusy(path, false);
	rig_.world.setBusy(UnrelatedPath, false);
	rig_.world.setBusy(rig_.spec.staging.path, false);
	randomDesire();
	rig_.spec = specFor(knobs_);
	rig_.intent = knobs_.intent;
	note(std::string("settle ") + intentName(knobs_.intent) + ", " +
	     std::to_string(knobs_.targets.size()) + " targets");

	std::vector<Conflict> conflicts;
	unsigned passes = 0;
	for (unsigned n = 1; n <= PassBound && passes == 0; n++) {
		auto outcome = rig_.pass();
		ASSERT_TRUE(outcome) << outcome.error().message;
		note("  [" + describeSteps(outcome->plan) + "]");
		for (const Step &step : outcome->plan.steps) {
			const auto *unmount = std::get_if<UnmountStep>(&step);
			settleBuilt_ = settleBuilt_ || unmount == nullptr || unmount->staging;
		}
		if (outcome->plan.empty()) {
			passes = n;
			conflicts = outcome->plan.conflicts;
		}
	}
	ASSERT_NE(passes, 0U) << "no empty plan within " << PassBound << " passes";
	ASSERT_TRUE(rig_.world.violations().empty()) << rig_.world.violations().front();

	/* Converged means: one more pass plans nothing and changes nothing. */
	const std::string before = rig_.world.describe();
	const std::vector<std::string> log = rig_.world.log();
	auto again = rig_.pass();
	ASSERT_TRUE(again);
	EXPECT_TRUE(again->plan.empty()) << describeSteps(again->plan);
	EXPECT_EQ(keys(again->plan.conflicts), keys(conflicts));
	EXPECT_EQ(rig_.world.describe(), before);
	EXPECT_EQ(rig_.world.log(), log);

	if (knobs_.intent == Intent::Up)
		expectUp(keys(conflicts));
	else
		expectDown(keys(conflicts));

	summary = std::string(intentName(knobs_.intent)) + " in " + std::to_string(passes) + ":";
	for (const std::string &line : rig_.world.log()) {
		if (line.rfind("fault ", 0) == 0) {
			summary += " (after faults)";
			break;
		}
	}
	for (const Conflict &c : conflicts)
		summary += std::string(" ") + conflictKindName(c.kind);
}

/* Up: published as the spec says, or exactly the conflicts the foreign state explains. */
void Walk::expectUp(const std::vector<ConflictKey> &reported)
{
	const VolumeSpec &spec = rig_.spec;
	const Truth truth(rig_.world, spec);
	const auto mappings = truth.mappings();
	ASSERT_LE(mappings.size(), 1U) << "the walk mapped the image twice";
	const FakeMapping *mapping = mappings.empty() ? nullptr : mappings.front();
	const std::string device = mapping ? mapping->mapped.device : "";

	if (expectTargetsBlock(reported))
		return;
	std::vector<ConflictKey> expected;
	for (const PublishTarget &target : spec.publish) {
		const FakeMount *top = truth.top(target.path);
		if (top && Truth::device(*top) == device && !truth.modeMatches(*top))
			expected.emplace_back(ConflictKind::ModeMismatch, target.path);
	}
	bool blocked = false;
	auto block = [&](ConflictKind kind, const std::string &subject) {
		expected.emplace_back(kind, subject);
		blocked = true;
	};
	if (const FakeMount *staging = truth.top(spec.staging.path)) {
		if (staging->foreign) {
			block(ConflictKind::ForeignMount, spec.staging.path);
		} else {
			EXPECT_EQ(Truth::device(*staging), device)
				<< "our staging is not on the mapping";
			if (!truth.modeMatches(*staging))
				block(ConflictKind::ModeMismatch, spec.staging.path);
			else if (staging->entry.readOnly != spec.readOnly())
				block(ConflictKind::ReadOnlyMismatch, spec.staging.path);
		}
	}
	if (!blocked && mapping) {
		if (mapping->foreign)
			block(ConflictKind::ForeignMapping, device);
		else if (mapping->mapped.readOnly != spec.readOnly())
			block(ConflictKind::ReadOnlyMismatch, device);
	}
	const std::string wanted = spec.filesystem ? fsTypeName(spec.filesystem->type) : "";
	const std::string signature = rig_.world.signature(spec.image);
	const bool ambivalent = rig_.world.hasImage(spec.image) &&
				rig_.world.probe(device).kind == ProbeKind::Ambivalent;
	if (!blocked && mapping && spec.filesystem) {
		if (ambivalent)
			block(ConflictKind::AmbivalentProbe, device);
		else if (!signature.empty() && signature != wanted)
			block(ConflictKind::ForeignSignature, device);
		else if (signature.empty() && formatted(truth))
			block(ConflictKind::LostFilesystem, device);
		else if (signature.empty() && (spec.readOnly() || knobs_.formatNever))
			block(ConflictKind::BlankNoFormat, device);
	}
	std::sort(expected.begin(), expected.end());
	ASSERT_EQ(text(reported), text(expected));
	if (!expected.empty())
		return;

	/* No conflict: fully published from the current, own mapping. */
	ASSERT_NE(mapping, nullptr) << "up and converged, yet not mapped";
	EXPECT_FALSE(mapping->foreign);
	EXPECT_EQ(mapping->mapped.readOnly, spec.readOnly());
	const Ownership record = rig_.world.record(spec.name);
	EXPECT_EQ(record.mappedDevice, device);
	EXPECT_TRUE(record.staged);
	const FakeMount *staging = truth.top(spec.staging.path);
	ASSERT_NE(staging, nullptr) << "not staged";
	EXPECT_EQ(Truth::device(*staging), device);
	EXPECT_TRUE(truth.modeMatches(*staging));
	EXPECT_EQ(staging->entry.readOnly, spec.readOnly());
	if (spec.filesystem) {
		EXPECT_EQ(staging->entry.fsType, wanted);
		EXPECT_EQ(signature, wanted);
		/* A writable filesystem fills its device, however often the image grew. */
		const FakeImage &image = rig_.world.image(spec.image);
		EXPECT_GE(image.size, knobs_.createBytes) << "the image did not grow to the spec";
		if (!spec.readOnly()) {
			EXPECT_EQ(image.fsSize, image.size) << "the filesystem did not grow";
		}
	}
	for (const PublishTarget &target : spec.publish) {
		const FakeMount *top = truth.top(target.path);
		ASSERT_NE(top, nullptr) << target.path << " not published";
		EXPECT_FALSE(top->foreign);
		EXPECT_EQ(Truth::device(*top), device) << target.path;
		EXPECT_TRUE(truth.modeMatches(*top)) << target.path;
		EXPECT_EQ(top->entry.readOnly, target.readOnly) << target.path;
		EXPECT_TRUE(record.ownsTarget(target.path)) << target.path;
	}
}

/*
 * A foreign mount on a wanted target: the volume can never be published, so
 * the settle took no step towards it (only our binds off unwanted targets),
 * and each such target is reported. False when no target blocks.
 */
bool Walk::expectTargetsBlock(const std::vector<ConflictKey> &reported)
{
	const Truth truth(rig_.world, rig_.spec);
	bool blocked = false;
	for (const PublishTarget &target : rig_.spec.publish) {
		const FakeMount *top = truth.top(target.path);
		if (top == nullptr || !top->foreign)
			continue;
		blocked = true;
		const ConflictKey key(ConflictKind::ForeignMount, target.path);
		EXPECT_NE(std::find(reported.begin(), reported.end(), key), reported.end())
			<< target.path << " is not reported: " << text(reported);
	}
	if (blocked) {
		EXPECT_FALSE(settleBuilt_) << "a step towards a volume that cannot be published";
	}
	return blocked;
}

/* Down: nothing of ours left, except what a foreign mount covers (and reported). */
void Walk::expectDown(const std::vector<ConflictKey> &reported)
{
	const VolumeSpec &spec = rig_.spec;
	const Truth truth(rig_.world, spec);

	std::vector<ConflictKey> expected;
	std::vector<std::string> coveredTargets;
	bool stagingCovered = false;
	std::vector<std::string> heldDevices;
	std::vector<std::string> paths(TargetPaths.begin(), TargetPaths.end());
	paths.push_back(spec.staging.path);
	for (const std::string &path : paths) {
		if (const FakeMount *covered = truth.coveredOurs(path)) {
			expected.emplace_back(ConflictKind::ForeignMount, path);
			heldDevices.push_back(Truth::device(*covered));
			if (path == spec.staging.path)
				stagingCovered = true;
			else
				coveredTargets.push_back(path);
		}
	}
	std::sort(expected.begin(), expected.end());
	ASSERT_EQ(text(reported), text(expected));

	for (const FakeMount &m : rig_.world.mounts()) {
		if (!m.foreign) {
			EXPECT_EQ(truth.coveredOurs(m.entry.target), &m)
				<< "our mount on " << m.entry.target << " is left";
		}
	}
	std::string held;
	for (const FakeMapping *m : truth.mappings()) {
		if (m->foreign)
			continue;
		const bool isHeld = std::find(heldDevices.begin(), heldDevices.end(),
					      m->mapped.device) != heldDevices.end();
		EXPECT_TRUE(isHeld) << "our mapping " << m->mapped.device << " is left";
		held = m->mapped.device;
	}

	Ownership expectedRecord;
	expectedRecord.formatted = formatted(truth);
	/* Like `formatted`, what the filesystem was sized for is about the image: it stays. */
	expectedRecord.sizedBytes = rig_.world.record(spec.name).sizedBytes;
	expectedRecord.mappedDevice = held;
	expectedRecord.staged = stagingCovered;
	Ownership record = rig_.world.record(spec.name);
	std::sort(record.publishedTargets.begin(), record.publishedTargets.end());
	expectedRecord.publishedTargets = coveredTargets;
	EXPECT_EQ(record, expectedRecord);
}

void runWalks(bool faulty)
{
	std::map<std::string, unsigned> outcomes;
	for (unsigned seed = 1; seed <= Seeds; seed++) {
		Walk walk(seed, faulty);
		walk.wander();
		if (!::testing::Test::HasFailure())
			walk.settleAndCheck();
		outcomes[walk.summary]++;
		if (::testing::Test::HasFailure()) {
			ADD_FAILURE()
				<< "seed " << seed << (faulty ? " (faulty)" : "") << ", walk:\n"
				<< walk.history << "world:\n"
				<< walk.world();
			return;
		}
	}
	/* What the walks reached, to show that they reach the interesting corners. */
	for (const auto &[outcome, count] : outcomes)
		std::cout << "  " << count << " x " << outcome << '\n';
}

TEST(ReconcileProperties, ConvergesSafelyFromReachableStates)
{
	runWalks(false);
}

/* States only faults reach: pending maps, half-done plans, records that lag the host. */
TEST(ReconcileProperties, ConvergesSafelyAfterFaults)
{
	runWalks(true);
}

} /* namespace */

} /* namespace rbdvolume::testing */
