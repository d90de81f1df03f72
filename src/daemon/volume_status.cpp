/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "daemon/volume_status.hpp"

#include <algorithm>

#include "bus/errors.hpp"

namespace rbdvolume::daemon {

Sighting sight(const ObservedVolume &observed, const Plan &plan)
{
	Sighting seen;
	if (observed.mapping) {
		seen.stage = bus::Stage::Mapped;
		seen.device = observed.mapping->device;
	}
	if (observed.staging && observed.staging->ours) {
		seen.stage = bus::Stage::Staged;
		seen.stagingPath = observed.staging->path;
	}
	for (const ObservedMount &target : observed.targets) {
		if (target.ours)
			seen.targets.push_back(target.path);
	}
	if (!seen.targets.empty() && seen.stage == bus::Stage::Staged)
		seen.stage = bus::Stage::Published;
	seen.conflicts = plan.conflicts;
	seen.intent = plan.intent;
	seen.converged = plan.empty() && plan.conflicts.empty();
	/* A record that lags the host (a crash mid-down left mapped-device=) is worth a pass too. */
	seen.planned = !plan.empty() || observed.recordStale;
	/* What is on the host: the record also keeps `formatted` across a full down. */
	const Ownership &owned = observed.owned;
	seen.anythingOurs = !owned.mappedDevice.empty() || owned.mapPending || owned.staged ||
			    !owned.publishedTargets.empty();
	return seen;
}

namespace {

/* Conflicts with a condition type of their own; the rest are "Conflict". */
const char *conditionType(const Conflict &conflict)
{
	switch (conflict.kind) {
	case ConflictKind::MapperLost:
		return "MapperLost";
	case ConflictKind::IoStalled:
		return "IoStalled";
	case ConflictKind::Abandoned:
		return "Abandoned";
	case ConflictKind::PoolFull:
		return "PoolFull";
	case ConflictKind::FilesystemErrors:
		return "FilesystemErrors";
	default:
		return "Conflict";
	}
}

bus::Phase phaseOf(const VolumeFacts &facts)
{
	if (!facts.specProblems.empty() || !facts.specUsable)
		return bus::Phase::Invalid;
	if (!facts.sighting)
		return bus::Phase::Unknown;
	const Sighting &seen = *facts.sighting;
	if (!seen.conflicts.empty())
		return bus::Phase::Degraded;
	if (facts.lastError)
		return bus::Phase::Failed;
	if (!facts.intent)
		return seen.anythingOurs ? bus::Phase::Unmanaged : bus::Phase::Down;
	/* Asked to go the other way: not there until a pass has seen it. */
	if (!seen.converged || facts.busy || seen.intent != *facts.intent)
		return bus::Phase::Pending;
	return *facts.intent == Intent::Up ? bus::Phase::Up : bus::Phase::Down;
}

std::vector<Condition> conditionsOf(const VolumeFacts &facts)
{
	std::vector<Condition> conditions;
	conditions.reserve(facts.specProblems.size());
	for (const Diagnostic &problem : facts.specProblems)
		conditions.push_back({ "SpecInvalid", problem.format() });
	if (facts.specMissing)
		conditions.push_back(
			{ "SpecMissing", "the spec file " + facts.specFile +
						 " was removed; the volume stays as it is until it "
						 "is taken down" });
	if (facts.sighting) {
		for (const Conflict &conflict : facts.sighting->conflicts)
			conditions.push_back({ conditionType(conflict), conflictText(conflict) });
	}
	if (facts.lastError)
		conditions.push_back({ "Failed", facts.lastError->message });
	return conditions;
}

} /* namespace */

VolumeStatus statusOf(const std::string &name, const VolumeFacts &facts)
{
	VolumeStatus status;
	status.name = name;
	status.specFile = facts.specFile;
	status.intent = facts.intent ? intentName(*facts.intent) : "";
	status.phase = phaseOf(facts);
	status.busy = facts.busy;
	status.activity = facts.activity;
	if (facts.sighting) {
		status.stage = facts.sighting->stage;
		status.device = facts.sighting->device;
		status.stagingPath = facts.sighting->stagingPath;
		status.publishTargets = facts.sighting->targets;
	}
	status.conditions = conditionsOf(facts);
	if (facts.lastError) {
		status.lastErrorName = bus::errorName(facts.lastError->code);
		status.lastErrorMessage = facts.lastError->message;
	}
	status.generation = facts.generation;
	status.observedGeneration = facts.observedGeneration;
	status.phaseSince = facts.phaseSince;
	status.retries = facts.retries;
	status.heals = facts.heals;
	status.stepUsec = facts.stepUsec;
	return status;
}

std::string conflictText(const Conflict &conflict)
{
	return std::string(conflictKindName(conflict.kind)) + " " + conflict.subject + ": " +
	       conflict.detail;
}

} /* namespace rbdvolume::daemon */
