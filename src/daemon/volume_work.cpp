/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "daemon/volume_work.hpp"

#include "engine/reconcile.hpp"
#include "journal/log.hpp"
#include "report/step_record.hpp"

namespace rbdvolume::daemon {

namespace {

Result<Sighting> observeOnce(Host &host, const HostSnapshot &snapshot, const DesiredVolume &desired)
{
	auto pass = planPass(host, snapshot, desired);
	if (!pass)
		return tl::make_unexpected(pass.error());
	return sight(pass->observed, pass->plan);
}

Result<Sighting> observeFresh(Host &host, const DesiredVolume &desired)
{
	auto snapshot = takeSnapshot(host);
	if (!snapshot)
		return tl::make_unexpected(snapshot.error());
	return observeOnce(host, *snapshot, desired);
}

} /* namespace */

std::vector<SurveyEntry> survey(Host &host, std::span<const VolumeJob> jobs)
{
	std::vector<SurveyEntry> entries;
	entries.reserve(jobs.size());
	auto snapshot = takeSnapshot(host);
	for (const VolumeJob &job : jobs) {
		const DesiredVolume desired{ *job.spec, job.intent.value_or(Intent::Up),
					     job.hostStopping };
		entries.push_back({ job.name, snapshot ? observeOnce(host, *snapshot, desired)
						       : Result<Sighting>(tl::make_unexpected(
								 snapshot.error())) });
	}
	return entries;
}

EpisodeOutcome runEpisode(Host &host, const VolumeJob &job, unsigned maxPasses,
			  const StepHook &onStep, const StepDoneHook &onDone)
{
	EpisodeOutcome outcome;
	const DesiredVolume desired{ *job.spec, job.intent.value_or(Intent::Up), job.hostStopping };
	while (outcome.passes < maxPasses) {
		outcome.passes++;
		auto snapshot = takeSnapshot(host);
		if (!snapshot) {
			outcome.error = snapshot.error();
			break;
		}
		/* Only the first pass follows the image's size: a later one finds the device it mapped or followed. */
		auto pass = reconcilePass(
			host, *snapshot, desired, onStep,
			[&](const StepOutcome &done) {
				recordStep(*job.spec, done);
				outcome.stepDurations[stepName(done.step)] = done.duration;
				if (onDone)
					onDone(done);
			},
			outcome.passes == 1 ? SizeFollow::Follow : SizeFollow::Skip);
		if (!pass) {
			outcome.error = pass.error();
			break;
		}
		if (pass->observed.recordStale) {
			if (auto line = ownershipLine(*job.spec, pass->observed.stored,
						      pass->observed.owned))
				log::write(*line);
		}
		if (pass->plan.empty()) {
			/* Nothing was done: this observation is the fresh one. */
			outcome.sighting = sight(pass->observed, pass->plan);
			return outcome;
		}
		if (const Error *failed = pass->report.firstError()) {
			outcome.error = *failed;
			outcome.stepFailed = true;
			break;
		}
	}
	/* Record from a fresh observation, never from what the plan assumed. */
	auto seen = observeFresh(host, desired);
	if (seen)
		outcome.sighting = *seen;
	else if (!outcome.error)
		outcome.error = seen.error();
	if (!outcome.error && outcome.sighting && !outcome.sighting->converged &&
	    outcome.sighting->conflicts.empty())
		outcome.error =
			Error{ Errc::Internal, "not converged after " + std::to_string(maxPasses) +
						       " passes; retrying" };
	return outcome;
}

} /* namespace rbdvolume::daemon */
