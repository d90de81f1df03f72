/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reconciler: the daemon's scheduler, on the event loop's thread. Triggers
 * (spec changes, mount-table changes, the resync timer, bus calls) only mark
 * volumes dirty or ask for a survey; a defer source then starts the work on
 * the worker pool: one episode per volume at a time, volumes in parallel,
 * per-volume exponential back-off after a failure. Results come back as
 * completions and become the volumes' status.
 */
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/sd_ptr.hpp"
#include "daemon/event_sources.hpp"
#include "daemon/spec_store.hpp"
#include "daemon/step_gate.hpp"
#include "daemon/volume_record.hpp"
#include "daemon/volume_work.hpp"
#include "daemon/worker_pool.hpp"
#include "host/intent_files.hpp"

namespace rbdvolume::daemon {

struct ReconcilerSettings {
	unsigned maxPasses = 3; /* per episode */
	std::chrono::milliseconds backoffInitial{ 500 };
	std::chrono::milliseconds backoffMax{ 120000 };
	/* How long the mount table stays quiet before a change of it is surveyed... */
	std::chrono::milliseconds mountSettle{ 200 };
	/* ... and how late that survey may come, whatever runs or keeps changing. */
	std::chrono::milliseconds mountSettleMax{ 5000 };
	/* How soon a degraded volume is looked at again: a mapper that recovers
	 * (SIGCONT, a restart by systemd) announces itself by no event. */
	std::chrono::milliseconds degradedRecheck{ 5000 };
	/* How long a stop waits for work in flight before it leaves it (checkShutdown). */
	std::chrono::milliseconds stopGrace{ 5000 };
};

/* What the bus layer hears of. */
class ReconcilerListener
{
public:
	virtual ~ReconcilerListener() = default;
	virtual void volumeAdded(const std::string &name) = 0;
	virtual void volumeRemoved(const std::string &name) = 0;
	virtual void statusChanged(const std::string &name) = 0;
};

class Reconciler
{
public:
	/* Called once with nullptr on success, else with the error. */
	using Reply = std::function<void(const Error *)>;
	using PlanReply = std::function<void(Result<std::string>)>;

	Reconciler(sd_event *event, Host &host, WorkerPool &pool, SpecStore &specs,
		   IntentFiles &intents, ReconcilerSettings settings);
	Reconciler(const Reconciler &) = delete;
	Reconciler &operator=(const Reconciler &) = delete;
	Reconciler(Reconciler &&) = delete;
	Reconciler &operator=(Reconciler &&) = delete;
	/*
	 * Its workers' jobs reach the pool and the host, never this object
	 * (what they post runs on the loop): they may outlive it, past a stop
	 * that left them in flight. Those waiting at the closed gate go on
	 * (tests; the daemon's process ends first).
	 */
	~Reconciler() { gate_->open(); }

	void setListener(ReconcilerListener *listener) { listener_ = listener; }

	/* Loads specs and intents, then observes everything; `ready` runs after that. */
	Result<void> start(std::function<void()> ready);
	/* Re-reads the spec directories; `done` (may be empty) after the survey that follows. */
	void reload(Reply done);
	/* Observes every volume again (the resync timer). */
	void requestSurvey();
	/*
	 * A mount came or went. Surveyed once the burst is over: when no
	 * episode runs (each ends with its own observation; fifty volumes
	 * mounting are a hundred and fifty events) and the table has been
	 * quiet for mountSettle; at the latest mountSettleMax after the first
	 * change, so a stuck episode or a host that never stops mounting
	 * delays drift repair only so long.
	 */
	void mountTableChanged();
	/* Surveys started since the daemon started, for the benchmarks. */
	uint64_t surveys() const { return surveys_; }
	/* Records the intent and reconciles; `done` (empty: do not wait) when it converged or failed. */
	Result<void> setIntent(const std::string &name, Intent intent, Reply done);
	/* One episode now for `name`, or for every volume with an intent when it is "". */
	Result<void> reconcile(const std::string &name, Reply done);
	/* The plan a pass would execute now ("" intent: the recorded one). */
	Result<void> plan(const std::string &name, std::optional<Intent> intent, PlanReply done);
	/*
	 * Stops starting work; `done` once no episode runs any more, or once
	 * stopGrace has passed and what runs can be left (leftInFlight()).
	 * Requests refused or left unanswered by then get Errc::ShuttingDown.
	 */
	void shutdown(std::function<void()> done);
	/* The stop left work running on the workers: they cannot be joined. */
	bool leftInFlight() const { return leftInFlight_; }
	/*
	 * The host shuts down: from now on a volume going down whose device gets
	 * no answer is abandoned (its mounts detached, the device left for the
	 * poweroff) instead of waited for.
	 */
	void hostStopping();

	const VolumeStatus *status(const std::string &name) const;
	std::vector<std::string> names() const;
	/* "3 volumes: 2 up, 1 degraded" */
	std::string summary() const;

private:
	struct Waiter {
		Reply reply;
		uint64_t fromEpisode; /* answered by the first episode started at or after it */
	};
	struct Volume {
		VolumeFacts facts;
		VolumeStatus shown;
		VolumeRecord record{ true };
		std::shared_ptr<const VolumeSpec> spec;
		bool dirty = false;
		bool forced = false; /* run even while backing off */
		uint64_t episodesStarted = 0;
		uint64_t episodesFinished = 0;
		uint64_t generationRunning = 0;
		unsigned failures = 0;
		/* The last episode started once the host stopped. */
		bool stoppingEpisode = false;
		/* Its teardown failed at shutdown, and the journal said so. */
		bool leftAtShutdown = false;
		/* The running step writes a filesystem (writesFilesystem()), as the loop last heard. */
		bool writingFilesystem = false;
		OneShotTimer retry; /* armed while backing off after a failure */
		std::vector<Waiter> waiters;
	};

	Volume *find(const std::string &name);
	/* find(), refused when missing or without a valid spec. */
	Result<Volume *> withSpec(const std::string &name);
	void applySpecs(const std::vector<std::string> &changed);
	void markDirty(Volume &volume, bool forced);
	void scheduleDrain();
	void drain();
	static bool canStart(const std::string &name, Volume &volume);
	void startEpisode(const std::string &name, Volume &volume);
	void finishEpisode(const std::string &name, EpisodeOutcome outcome);
	void scheduleRetry(const std::string &name, Volume &volume);
	/* Every volume, or only the degraded ones (the recheck). */
	enum class SurveyScope : uint8_t { All, Degraded };
	void startSurvey(SurveyScope scope = SurveyScope::All);
	/* A survey of the degraded volumes in degradedRecheck, unless one is due. */
	void armRecheck();
	void settleMountChange();
	void finishSurvey(std::vector<SurveyEntry> entries, std::map<std::string, uint64_t> epochs);
	static void answer(Volume &volume, uint64_t episode, const Error *error);
	void refresh(const std::string &name, Volume &volume);
	void forgetIfGone(const std::string &name);
	void checkShutdown();
	/* Past stopGrace: the journal names each volume whose work is left running. */
	void leaveInFlight();
	/* The filesystem steps running, for the journal: "format-if-blank /dev/rbd0 as ext4". */
	std::string filesystemStepsText() const;

	sd_event *event_;
	Host &host_;
	WorkerPool &pool_;
	SpecStore &specs_;
	IntentFiles &intents_;
	ReconcilerSettings settings_;
	ReconcilerListener *listener_ = nullptr;
	std::map<std::string, Volume> volumes_;
	DeferredCall drain_;
	bool surveying_ = false;
	bool surveyAgain_ = false;
	std::vector<Reply> surveyWaiters_;     /* answered when the running survey ends */
	std::vector<Reply> nextSurveyWaiters_; /* by the one after it */
	bool started_ = false;		       /* the first survey is over */
	bool hostStopping_ = false;
	std::function<void()> ready_;
	std::function<void()> stopped_;
	bool stopping_ = false;
	OneShotTimer stopGrace_; /* armed while a stop waits for work in flight */
	bool graceOver_ = false;
	/* Shared with the episodes' workers, which may outlive this object in tests. */
	std::shared_ptr<StepGate> gate_ = std::make_shared<StepGate>();
	bool waitingForFilesystem_ = false;
	bool leftInFlight_ = false;
	unsigned running_ = 0;				       /* episodes and surveys on workers */
	unsigned episodes_ = 0;				       /* of those, the episodes */
	bool mountChanged_ = false;			       /* a mount event not surveyed yet */
	std::chrono::steady_clock::time_point mountChangedAt_; /* the first of them */
	OneShotTimer mountSettle_;
	OneShotTimer recheck_; /* armed while a volume is degraded */
	uint64_t surveys_ = 0;
};

} /* namespace rbdvolume::daemon */
