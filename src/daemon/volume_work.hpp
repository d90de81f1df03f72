/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The work the daemon's workers do, as plain functions over a Host: a survey
 * (observe every volume from one read of the host's tables) and an episode
 * (reconcile one volume until its plan is empty, a step fails, or the pass
 * budget is spent). Synchronous, so the benchmarks and tests call them as is.
 */
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "daemon/volume_status.hpp"
#include "engine/executor.hpp"
#include "engine/ports.hpp"

namespace rbdvolume::daemon {

struct VolumeJob {
	std::string name;
	std::shared_ptr<const VolumeSpec> spec;
	std::optional<Intent> intent; /* none: observe as if up, change nothing */
	bool hostStopping = false;    /* a stalled device is abandoned, not waited for */
};

struct SurveyEntry {
	std::string name;
	Result<Sighting> sighting;
};

/* Observes every job's volume; one snapshot of the mount table and mappings for all. */
std::vector<SurveyEntry> survey(Host &host, std::span<const VolumeJob> jobs);

struct EpisodeOutcome {
	std::optional<Sighting> sighting; /* from a fresh observation after the last pass */
	std::optional<Error> error;	  /* the first failure; none when it converged */
	bool stepFailed = false;	  /* that failure is a step's, recorded as it failed */
	unsigned passes = 0;
	/* Each step that ran, by name, and how long it took: the later run of a name wins. */
	std::map<std::string, std::chrono::microseconds> stepDurations;
};

/*
 * Reconciles `job` (its intent must be set) for at most `maxPasses` passes;
 * each step is told to `onStep` before it runs, and recorded in the journal
 * and told to `onDone` when it is over.
 */
EpisodeOutcome runEpisode(Host &host, const VolumeJob &job, unsigned maxPasses,
			  const StepHook &onStep, const StepDoneHook &onDone = {});

} /* namespace rbdvolume::daemon */
