/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "daemon/reconciler.hpp"

#include <algorithm>
#include <cerrno>
#include <utility>

#include "common/volume_name.hpp"
#include "engine/reconcile.hpp"
#include "journal/fields.hpp"
#include "journal/log.hpp"
#include "journal/message_ids.hpp"

namespace rbdvolume::daemon {

namespace {

uint64_t realtimeUsec()
{
	return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
					     std::chrono::system_clock::now().time_since_epoch())
					     .count());
}

std::string specProblemText(const std::string &name, const std::vector<Diagnostic> &problems)
{
	std::string text = "the spec of '" + name + "' is invalid";
	for (const Diagnostic &problem : problems)
		text += "\n" + problem.format();
	return text;
}

Error conflictsError(const std::vector<Conflict> &conflicts)
{
	std::string text = "refused: ";
	for (const Conflict &conflict : conflicts)
		text += (&conflict == conflicts.data() ? "" : "; ") + conflictText(conflict);
	return Error{ Errc::Conflict, text, 0 };
}

/*
 * A teardown failed while the host shuts down: the unit's stop ends with it,
 * and what is left (a device a timed-out unmount still writes to) goes with
 * the poweroff. Said once, under the Abandoned id, as an abandon is.
 */
log::Line leftAtShutdownLine(const std::string &name, const VolumeStatus &shown, const Error &error)
{
	std::vector<log::Field> fields;
	if (!shown.device.empty())
		fields.push_back({ log::field::Device, shown.device });
	log::Line line = log::volumeLine(
		log::Level::Warning, name,
		"volume '" + name + "': abandoned at shutdown, its teardown failed: " +
			error.message + "; what is left of it goes with the poweroff",
		std::move(fields));
	line.messageId = log::ids::Abandoned;
	return line;
}

} /* namespace */

Reconciler::Reconciler(sd_event *event, Host &host, WorkerPool &pool, SpecStore &specs,
		       IntentFiles &intents, ReconcilerSettings settings)
	: event_(event), host_(host), pool_(pool), specs_(specs), intents_(intents),
	  settings_(settings), drain_(event, [this] { drain(); })
{
}

Result<void> Reconciler::start(std::function<void()> ready)
{
	const std::map<std::string, Intent> recorded = intents_.loadAll();
	applySpecs(specs_.rescan());
	for (const auto &[name, intent] : recorded) {
		if (Volume *volume = find(name)) {
			volume->facts.intent = intent;
			refresh(name, *volume);
		} else {
			log::write(log::volumeLine(log::Level::Warning, name,
						   std::string("intent '") + intentName(intent) +
							   "' recorded for '" + name +
							   "', which has no spec; ignored"));
		}
	}
	ready_ = std::move(ready);
	/* No volume is touched before this first survey: it adopts what exists. */
	startSurvey();
	return {};
}

void Reconciler::reload(Reply done)
{
	applySpecs(specs_.rescan());
	if (done)
		nextSurveyWaiters_.push_back(std::move(done));
	startSurvey();
}

void Reconciler::requestSurvey()
{
	startSurvey();
}

void Reconciler::mountTableChanged()
{
	if (!mountChanged_)
		mountChangedAt_ = std::chrono::steady_clock::now();
	mountChanged_ = true;
	settleMountChange();
}

void Reconciler::settleMountChange()
{
	if (!mountChanged_ || stopping_)
		return;
	/* Each event, and the last episode's end, moves the survey on, up to the latest. */
	const auto now = std::chrono::steady_clock::now();
	const auto latest = mountChangedAt_ + settings_.mountSettleMax;
	const auto due = episodes_ == 0 ? std::min(now + settings_.mountSettle, latest) : latest;
	const auto delay = std::chrono::duration_cast<std::chrono::microseconds>(
		std::max(due - now, std::chrono::steady_clock::duration::zero()));
	auto armed = mountSettle_.arm(event_, delay, std::chrono::milliseconds(10), [this] {
		mountChanged_ = false;
		startSurvey();
	});
	if (!armed)
		log::error("cannot wait for the mount table to settle: " + armed.error().message);
}

Reconciler::Volume *Reconciler::find(const std::string &name)
{
	const auto found = volumes_.find(name);
	return found == volumes_.end() ? nullptr : &found->second;
}

Result<Reconciler::Volume *> Reconciler::withSpec(const std::string &name)
{
	Volume *volume = find(name);
	if (volume == nullptr)
		return fail(Errc::NotFound, "no volume '" + name + "'");
	if (!volume->spec)
		return fail(Errc::InvalidArgument,
			    specProblemText(name, volume->facts.specProblems));
	return volume;
}

void Reconciler::applySpecs(const std::vector<std::string> &changed)
{
	for (const std::string &name : changed) {
		const SpecEntry *entry = specs_.find(name);
		if (entry == nullptr)
			continue;
		const bool added = !volumes_.contains(name);
		Volume &volume = volumes_[name];
		if (added)
			volume.record = VolumeRecord(!started_);
		volume.shown.name = name;
		VolumeFacts &facts = volume.facts;
		facts.specFile = entry->file;
		facts.specProblems = entry->problems;
		facts.specMissing = entry->missing;
		facts.specUsable = entry->spec != nullptr;
		facts.generation++;
		for (const Diagnostic &problem : entry->problems)
			log::write(log::volumeLine(log::Level::Err, name, problem.format()));
		if (entry->missing)
			log::write(log::volumeLine(log::Level::Warning, name,
						   entry->file + ": removed; volume '" + name +
							   "' is left as it is"));
		if (entry->spec != volume.spec) {
			volume.spec = entry->spec;
			volume.failures = 0;
			volume.retry.cancel();
			/* Until the first survey the host is only observed, never changed. */
			if (facts.intent && started_)
				markDirty(volume, false);
		}
		if (added && listener_ != nullptr)
			listener_->volumeAdded(name);
		refresh(name, volume);
		forgetIfGone(name);
	}
}

Result<void> Reconciler::setIntent(const std::string &name, Intent intent, Reply done)
{
	/* Written a moment ago, before inotify's settle delay passed: read it now. */
	if (isValidVolumeName(name))
		applySpecs(specs_.rescanOne(name));
	Volume *volume = find(name);
	if (volume == nullptr)
		return fail(Errc::NotFound, "no volume '" + name + "': no spec " + name +
						    ".toml in the spec directories");
	if (stopping_)
		return fail(Errc::ShuttingDown, "rbd-volumed is stopping");
	if (intent == Intent::Up && !volume->facts.specProblems.empty())
		return fail(Errc::InvalidArgument,
			    specProblemText(name, volume->facts.specProblems));
	if (!volume->spec)
		return fail(Errc::InvalidArgument,
			    "'" + name + "' never had a valid spec: nothing to act on");
	if (volume->facts.intent != intent) {
		if (auto saved = intents_.save(name, intent); !saved)
			return saved;
		volume->facts.intent = intent;
		volume->facts.generation++;
		volume->failures = 0;
		volume->retry.cancel();
	}
	volume->facts.lastError.reset();
	if (done)
		volume->waiters.push_back({ std::move(done), volume->episodesStarted + 1 });
	markDirty(*volume, true);
	refresh(name, *volume);
	return {};
}

Result<void> Reconciler::reconcile(const std::string &name, Reply done)
{
	if (stopping_)
		return fail(Errc::ShuttingDown, "rbd-volumed is stopping");
	if (!name.empty()) {
		if (isValidVolumeName(name))
			applySpecs(specs_.rescanOne(name));
		auto found = withSpec(name);
		if (!found)
			return tl::make_unexpected(found.error());
		Volume *volume = *found;
		if (!volume->facts.intent) {
			/* Nothing to reconcile towards: observe, so the reply reflects the host. */
			if (done)
				nextSurveyWaiters_.push_back(std::move(done));
			startSurvey();
			return {};
		}
		if (done)
			volume->waiters.push_back({ std::move(done), volume->episodesStarted + 1 });
		markDirty(*volume, true);
		return {};
	}
	/* Every volume: one shared reply once each of them answered. */
	auto left = std::make_shared<size_t>(1);
	auto firstError = std::make_shared<std::optional<Error>>();
	auto one = [left, firstError, done](const Error *error) {
		if (error != nullptr && !*firstError)
			*firstError = *error;
		if (--*left == 0 && done)
			done(*firstError ? &**firstError : nullptr);
	};
	for (auto &[volumeName, volume] : volumes_) {
		if (!volume.facts.intent || !volume.spec)
			continue;
		++*left;
		volume.waiters.push_back({ one, volume.episodesStarted + 1 });
		markDirty(volume, true);
	}
	one(nullptr);
	return {};
}

Result<void> Reconciler::plan(const std::string &name, std::optional<Intent> intent, PlanReply done)
{
	auto found = withSpec(name);
	if (!found)
		return tl::make_unexpected(found.error());
	const Volume *volume = *found;
	const VolumeJob job{ name, volume->spec, intent ? intent : volume->facts.intent };
	running_++;
	pool_.submit(
		[this, &pool = pool_, &host = host_, job, done = std::move(done)] {
			Result<std::string> text = [&]() -> Result<std::string> {
				auto snapshot = takeSnapshot(host);
				if (!snapshot)
					return tl::make_unexpected(snapshot.error());
				auto pass =
					planPass(host, *snapshot,
						 DesiredVolume{ *job.spec,
								job.intent.value_or(Intent::Up) });
				if (!pass)
					return tl::make_unexpected(pass.error());
				return formatPlan(pass->plan, *job.spec);
			}();
			pool.post([this, done, text = std::move(text)] {
				running_--;
				done(text);
				checkShutdown();
			});
		},
		WorkerPool::Lane::Read);
	return {};
}

void Reconciler::markDirty(Volume &volume, bool forced)
{
	volume.dirty = true;
	volume.forced = volume.forced || forced;
	scheduleDrain();
}

void Reconciler::scheduleDrain()
{
	if (auto scheduled = drain_.schedule(); !scheduled)
		log::error(scheduled.error().message);
}

void Reconciler::drain()
{
	if (stopping_)
		return;
	for (auto &[name, volume] : volumes_) {
		if (volume.dirty && canStart(name, volume))
			startEpisode(name, volume);
	}
}

bool Reconciler::canStart(const std::string &name, Volume &volume)
{
	if (volume.facts.busy)
		return false; /* it stays dirty: the episode's end drains again */
	if (!volume.facts.intent || !volume.spec) {
		volume.dirty = false;
		return false;
	}
	if (*volume.facts.intent == Intent::Up && !volume.facts.specProblems.empty()) {
		volume.dirty = false;
		const Error invalid{ Errc::InvalidArgument,
				     specProblemText(name, volume.facts.specProblems), 0 };
		answer(volume, UINT64_MAX, &invalid);
		return false;
	}
	return volume.forced || !volume.retry.armed();
}

void Reconciler::startEpisode(const std::string &name, Volume &volume)
{
	volume.dirty = false;
	volume.forced = false;
	volume.retry.cancel();
	volume.facts.busy = true;
	volume.episodesStarted++;
	volume.generationRunning = volume.facts.generation;
	running_++;
	episodes_++;
	refresh(name, volume);

	volume.stoppingEpisode = hostStopping_;
	const VolumeJob job{ name, volume.spec, volume.facts.intent, hostStopping_ };
	const unsigned maxPasses = settings_.maxPasses;
	pool_.submit([this, &pool = pool_, &host = host_, job, maxPasses, gate = gate_] {
		bool inGate = false; /* this episode runs a filesystem step */
		const StepHook onStep = [this, &pool, &job, &gate, &inGate](const Step &step) {
			const bool writes = writesFilesystem(step);
			if (writes) {
				gate->enter();
				inGate = true;
			}
			pool.post([this, name = job.name, text = formatStep(step, *job.spec),
				   writes] {
				if (Volume *stepping = find(name)) {
					stepping->facts.activity = text;
					stepping->writingFilesystem = writes;
					refresh(name, *stepping);
				}
			});
		};
		const StepDoneHook onDone = [this, &pool, &gate,
					     &inGate](const StepOutcome & /*done*/) {
			if (!std::exchange(inGate, false))
				return;
			gate->leave();
			pool.post([this] { checkShutdown(); }); /* a stop may wait for it */
		};
		EpisodeOutcome outcome = runEpisode(host, job, maxPasses, onStep, onDone);
		pool.post([this, name = job.name, outcome = std::move(outcome)] {
			finishEpisode(name, outcome);
		});
	});
}

void Reconciler::finishEpisode(const std::string &name, EpisodeOutcome outcome)
{
	running_--;
	if (--episodes_ == 0)
		settleMountChange();
	Volume *volume = find(name);
	if (volume == nullptr) {
		checkShutdown();
		return;
	}
	volume->facts.busy = false;
	volume->facts.activity.clear();
	volume->writingFilesystem = false;
	volume->episodesFinished++;
	volume->facts.observedGeneration = volume->generationRunning;
	if (outcome.sighting)
		volume->facts.sighting = std::move(outcome.sighting);
	for (const auto &[step, took] : outcome.stepDurations)
		volume->facts.stepUsec[step] = static_cast<uint64_t>(took.count());

	std::optional<Error> failure = outcome.error;
	volume->facts.lastError = outcome.error;
	if (outcome.error) {
		/* A failed step said so itself, with its fields. */
		if (!outcome.stepFailed)
			log::write(log::volumeLine(log::Level::Err, name,
						   "volume '" + name +
							   "': " + outcome.error->message));
		volume->failures++;
		if (volume->stoppingEpisode && volume->facts.intent == Intent::Down &&
		    !volume->leftAtShutdown) {
			volume->leftAtShutdown = true;
			log::write(leftAtShutdownLine(name, volume->shown, *outcome.error));
		}
		scheduleRetry(name, *volume);
	} else {
		volume->failures = 0;
		if (volume->facts.sighting && !volume->facts.sighting->conflicts.empty())
			failure = conflictsError(volume->facts.sighting->conflicts);
		log::write(log::volumeLine(log::Level::Debug, name,
					   "volume '" + name + "': reconciled in " +
						   std::to_string(outcome.passes) + " pass(es)"));
	}
	answer(*volume, volume->episodesStarted, failure ? &*failure : nullptr);
	refresh(name, *volume);
	forgetIfGone(name);
	scheduleDrain();
	checkShutdown();
}

void Reconciler::scheduleRetry(const std::string &name, Volume &volume)
{
	volume.facts.retries++;
	const unsigned doublings = std::min(volume.failures - 1, 16U);
	const auto delay =
		std::min(settings_.backoffInitial * (1U << doublings), settings_.backoffMax);
	auto armed = volume.retry.arm(event_, delay, std::chrono::milliseconds(10), [this, name] {
		if (Volume *retried = find(name))
			markDirty(*retried, true);
	});
	if (!armed)
		log::error(name + ": " + armed.error().message);
}

void Reconciler::startSurvey(SurveyScope scope)
{
	if (surveying_) {
		/* The one running covers a recheck: it ends with its own. */
		surveyAgain_ = surveyAgain_ || scope == SurveyScope::All;
		return;
	}
	std::vector<VolumeJob> jobs;
	std::map<std::string, uint64_t> epochs;
	for (const auto &[name, volume] : volumes_) {
		if (!volume.spec || volume.facts.busy)
			continue;
		if (scope == SurveyScope::Degraded && volume.shown.phase != bus::Phase::Degraded)
			continue;
		jobs.push_back({ name, volume.spec, volume.facts.intent, hostStopping_ });
		epochs[name] = volume.episodesFinished;
	}
	if (scope == SurveyScope::Degraded && jobs.empty())
		return;
	surveying_ = true;
	running_++;
	surveys_++;
	if (scope == SurveyScope::All) { /* a recheck answers no one: it skips most volumes */
		surveyWaiters_ = std::move(nextSurveyWaiters_);
		nextSurveyWaiters_.clear();
	}
	pool_.submit(
		[this, &pool = pool_, &host = host_, jobs = std::move(jobs),
		 epochs = std::move(epochs)] {
			auto entries = survey(host, jobs);
			pool.post([this, entries = std::move(entries), epochs] {
				finishSurvey(entries, epochs);
			});
		},
		WorkerPool::Lane::Read);
}

void Reconciler::finishSurvey(std::vector<SurveyEntry> entries,
			      std::map<std::string, uint64_t> epochs)
{
	running_--;
	surveying_ = false;
	for (SurveyEntry &entry : entries) {
		Volume *volume = find(entry.name);
		/* An episode ran meanwhile: its own observation is newer than this one. */
		if (volume == nullptr || volume->facts.busy ||
		    volume->episodesFinished != epochs[entry.name])
			continue;
		if (!entry.sighting) {
			log::write(log::volumeLine(log::Level::Warning, entry.name,
						   "cannot observe volume '" + entry.name +
							   "': " + entry.sighting.error().message));
			continue;
		}
		volume->facts.sighting = std::move(*entry.sighting);
		if (!volume->facts.intent)
			volume->facts.observedGeneration = volume->facts.generation;
		const Sighting &seen = *volume->facts.sighting;
		if (volume->facts.intent && seen.planned && seen.conflicts.empty() &&
		    !volume->retry.armed())
			markDirty(*volume, false);
		refresh(entry.name, *volume);
		forgetIfGone(entry.name);
	}
	for (const Reply &waiter : std::exchange(surveyWaiters_, {}))
		waiter(nullptr);
	started_ = true;
	if (ready_)
		std::exchange(ready_, nullptr)();
	if (surveyAgain_ && !stopping_) {
		surveyAgain_ = false;
		startSurvey();
	}
	scheduleDrain();
	checkShutdown();
}

/* Each refresh that shows a volume degraded comes here: one timer for all of them. */
void Reconciler::armRecheck()
{
	if (stopping_ || recheck_.armed())
		return;
	auto armed = recheck_.arm(event_, settings_.degradedRecheck, std::chrono::milliseconds(100),
				  [this] { startSurvey(SurveyScope::Degraded); });
	if (!armed)
		log::warning("cannot arm the recheck of degraded volumes: " +
			     armed.error().message);
}

void Reconciler::answer(Volume &volume, uint64_t episode, const Error *error)
{
	std::vector<Reply> due;
	auto &waiters = volume.waiters;
	for (auto it = waiters.begin(); it != waiters.end();) {
		if (it->fromEpisode <= episode) {
			due.push_back(std::move(it->reply));
			it = waiters.erase(it);
		} else {
			++it;
		}
	}
	for (const Reply &reply : due)
		reply(error);
}

void Reconciler::refresh(const std::string &name, Volume &volume)
{
	VolumeStatus status = statusOf(name, volume.facts);
	if (status.phase == bus::Phase::Degraded)
		armRecheck();
	if (status.phase != volume.shown.phase) {
		const bus::Phase was = volume.shown.phase;
		if (status.phase == bus::Phase::Up &&
		    (was == bus::Phase::Degraded || was == bus::Phase::Failed))
			volume.facts.heals++;
		volume.facts.phaseSince = realtimeUsec();
		status = statusOf(name, volume.facts);
	}
	if (status == volume.shown)
		return;
	for (const log::Line &line : volume.record.changed(volume.shown, status))
		log::write(line);
	volume.shown = std::move(status);
	if (listener_ != nullptr)
		listener_->statusChanged(name);
}

void Reconciler::forgetIfGone(const std::string &name)
{
	Volume *volume = find(name);
	const SpecEntry *entry = specs_.find(name);
	if (volume == nullptr || entry == nullptr || !entry->missing || volume->facts.busy ||
	    !volume->waiters.empty())
		return;
	const bool up = volume->facts.intent == Intent::Up;
	const bool holds = volume->facts.sighting && volume->facts.sighting->anythingOurs;
	if (volume->spec && (up || holds || !volume->facts.sighting))
		return; /* still ours on the host, or not yet known: keep it until it is down */
	volumes_.erase(name);
	specs_.forget(name);
	intents_.remove(name);
	if (listener_ != nullptr)
		listener_->volumeRemoved(name);
}

void Reconciler::shutdown(std::function<void()> done)
{
	stopping_ = true;
	stopped_ = std::move(done);
	surveyAgain_ = false;
	mountSettle_.cancel();
	recheck_.cancel();
	for (auto &[name, volume] : volumes_)
		volume.retry.cancel();
	if (running_ != 0) {
		auto armed = stopGrace_.arm(event_, settings_.stopGrace,
					    std::chrono::milliseconds(10), [this] {
						    graceOver_ = true;
						    checkShutdown();
					    });
		if (!armed) /* then the stop waits for all of it, as a stop did before the grace */
			log::warning("cannot bound the wait for running work at stop: " +
				     armed.error().message);
	}
	checkShutdown();
}

void Reconciler::hostStopping()
{
	if (std::exchange(hostStopping_, true))
		return;
	/*
	 * A teardown waiting out its back-off (an unmount that timed out on a
	 * stalled device) goes again now, allowed to abandon. So does one that
	 * runs now, started before the news (a volume no application is
	 * ordered after stops as the shutdown begins): its waiters are answered
	 * by that next episode, not by this one's failure.
	 */
	for (auto &[name, volume] : volumes_) {
		if (volume.facts.intent != Intent::Down)
			continue;
		if (volume.facts.busy) {
			for (Waiter &waiter : volume.waiters)
				waiter.fromEpisode = volume.episodesStarted + 1;
			markDirty(volume, true);
		} else if (volume.failures > 0) {
			markDirty(volume, true);
		}
	}
	startSurvey();
}

/*
 * The stop waits for the work in flight, for stopGrace at most: what still
 * runs then waits on a cluster or a mapper that does not answer, and is left
 * as a kill would leave it (every step converges from a cut; the next daemon
 * observes before acting). Only mkfs, fsck and a resize are waited for to
 * the end, bounded by systemd's stop timeout: a cut would leave the
 * filesystem half made.
 */
void Reconciler::checkShutdown()
{
	if (!stopping_ || !stopped_)
		return;
	if (running_ != 0) {
		if (!graceOver_)
			return;
		if (!gate_->closeWhenIdle()) {
			if (!std::exchange(waitingForFilesystem_, true))
				log::info("the stop waits for " + filesystemStepsText() +
					  " to end: cut short, it would leave a filesystem half "
					  "made");
			return;
		}
		leaveInFlight();
	}
	stopGrace_.cancel();
	const Error stopping{ Errc::ShuttingDown, "rbd-volumed is stopping", 0 };
	for (auto &[name, volume] : volumes_)
		answer(volume, UINT64_MAX, &stopping);
	for (const Reply &waiter : std::exchange(nextSurveyWaiters_, {}))
		waiter(&stopping);
	std::exchange(stopped_, nullptr)();
}

std::string Reconciler::filesystemStepsText() const
{
	std::string text;
	for (const auto &[name, volume] : volumes_)
		if (volume.facts.busy && volume.writingFilesystem)
			text += (text.empty() ? "" : ", ") + volume.facts.activity;
	return text.empty() ? "a filesystem step" : text;
}

void Reconciler::leaveInFlight()
{
	leftInFlight_ = true;
	const std::string grace =
		std::to_string(std::chrono::duration_cast<std::chrono::seconds>(settings_.stopGrace)
				       .count()) +
		" s";
	for (const auto &[name, volume] : volumes_) {
		if (!volume.facts.busy)
			continue;
		const std::string step =
			volume.facts.activity.empty() ? "its observation" : volume.facts.activity;
		log::write(log::volumeLine(
			log::Level::Warning, name,
			"volume '" + name + "': left in flight at stop, " + step +
				" still waiting after " + grace +
				"; the next rbd-volumed observes it before acting"));
	}
	if (running_ > episodes_)
		log::warning("the stop leaves " + std::to_string(running_ - episodes_) +
			     " observation(s) of the host unanswered after " + grace);
	const Error stopping{ Errc::ShuttingDown, "rbd-volumed is stopping", 0 };
	for (const Reply &waiter : std::exchange(surveyWaiters_, {}))
		waiter(&stopping);
}

const VolumeStatus *Reconciler::status(const std::string &name) const
{
	const auto found = volumes_.find(name);
	return found == volumes_.end() ? nullptr : &found->second.shown;
}

std::vector<std::string> Reconciler::names() const
{
	std::vector<std::string> names;
	names.reserve(volumes_.size());
	for (const auto &[name, volume] : volumes_)
		names.push_back(name);
	return names;
}

std::string Reconciler::summary() const
{
	std::map<std::string, size_t> phases;
	for (const auto &[name, volume] : volumes_)
		phases[bus::phaseName(volume.shown.phase)]++;
	std::string text =
		std::to_string(volumes_.size()) + (volumes_.size() == 1 ? " volume" : " volumes");
	const char *separator = ": ";
	for (const auto &[phase, count] : phases) {
		text += separator + std::to_string(count) + " " + phase;
		separator = ", ";
	}
	return text;
}

} /* namespace rbdvolume::daemon */
