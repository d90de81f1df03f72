/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "daemon/daemon.hpp"

#include <algorithm>
#include <csignal>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <sys/file.h>
#include <sys/inotify.h>

#include <systemd/sd-daemon.h>

#include "common/errno_text.hpp"
#include "common/fs_util.hpp"
#include "common/paths.hpp"
#include "common/unique_fd.hpp"
#include "config/spec_locate.hpp"
#include "daemon/bus_api.hpp"
#include "daemon/event_sources.hpp"
#include "daemon/log_control.hpp"
#include "daemon/real_host.hpp"
#include "daemon/reconciler.hpp"
#include "daemon/spec_store.hpp"
#include "daemon/worker_pool.hpp"
#include "host/intent_files.hpp"
#include "host/mount_monitor.hpp"
#include "journal/fields.hpp"
#include "journal/log.hpp"

namespace rbdvolume::daemon {

namespace {

/* What became of one nbd device's requests as the shutdown began. */
log::Line boundLine(const NbdRequestBound &bound)
{
	const std::string text = bound.error
					 ? "cannot bound the requests on " + bound.device + ": " +
						   bound.error->message
					 : "requests on " + bound.device +
						   " now fail after shutdown-io without an answer";
	return log::volumeLine(bound.error ? log::Level::Warning : log::Level::Info, bound.volume,
			       text, { { log::field::Device, bound.device } });
}

/* Editors write a spec in several steps: wait this long after the last event. */
constexpr std::chrono::milliseconds SpecSettle{ 100 };
/* Surveys run one at a time; the second thread serves plans meanwhile. */
constexpr unsigned ReadWorkers = 2;

uint64_t usecOf(std::chrono::milliseconds duration)
{
	return static_cast<uint64_t>(duration.count()) * 1000;
}

Result<void> check(int r, const std::string &what)
{
	if (r < 0)
		return failErrno(what, -r);
	return {};
}

Result<void> makeRuntimeDirectories()
{
	for (const std::string_view dir :
	     { paths::RuntimeDir, paths::RuntimeSpecDir, paths::IntentDir, paths::OwnershipDir,
	       paths::StagingRoot, paths::AdminSpecDir }) {
		if (auto made = makeDirectories(std::string(dir), 0755); !made)
			return made;
	}
	return {};
}

/*
 * The daemon's lock, held for its life: `rbd-volumectl down` takes a volume
 * down by itself only while no daemon holds it. One running such a teardown
 * now is waited for; it is bounded like any step.
 */
Result<UniqueFd> lockDaemon()
{
	const std::string path(paths::DaemonLock);
	UniqueFd lock(open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
	if (!lock.valid())
		return failErrno("cannot open " + path, errno);
	if (flock(lock.get(), LOCK_EX | LOCK_NB) == 0)
		return lock;
	if (errno != EWOULDBLOCK)
		return failErrno("cannot lock " + path, errno);
	log::write({ log::Level::Notice,
		     "waiting for rbd-volumectl to finish taking a volume down",
		     {} });
	(void)sd_notify(0, "STATUS=Waiting for rbd-volumectl to finish taking a volume down");
	while (flock(lock.get(), LOCK_EX) < 0) {
		if (errno != EINTR)
			return failErrno("cannot lock " + path, errno);
	}
	return lock;
}

class Daemon
{
public:
	explicit Daemon(const DaemonConfig &config)
		: config_(config), host_(config),
		  specs_(defaultSpecDirs(), config.allowedMountRoots),
		  intents_(std::string(paths::IntentDir))
	{
	}

	Result<void> run();

private:
	Result<void> setUpEvents();
	Result<void> addTicker(SourcePtr &into, uint64_t usec, sd_event_time_handler_t handler,
			       const char *what);
	Result<void> setUpBus();
	/* systemctl status shows the summary; sent only when it changed. */
	void notifyStatus();
	/* The I/O check runs again once a survey or an episode left a device to watch. */
	void wakeIoCheck();
	/* A shutdown begins: no device that gets no answer may hold it. */
	void prepareForShutdown();
	/* Asks the monitors which watched pools are full, when it is time and none asks now. */
	void checkPools(uint64_t now);

	/* The loop's callbacks; each source's userdata is the Daemon. */
	static int onSignal(sd_event_source *source, const signalfd_siginfo *info, void *self);
	static int onSpecDirectory(sd_event_source *source, const inotify_event *event, void *self);
	static int onMountTable(sd_event_source *source, int fd, uint32_t revents, void *self);
	static int onResync(sd_event_source *source, uint64_t usec, void *self);
	static int onIoCheck(sd_event_source *source, uint64_t usec, void *self);
	static int onCompletions(sd_event_source *source, int fd, uint32_t revents, void *self);

	const DaemonConfig &config_;
	RealHost host_;
	SpecStore specs_;
	IntentFiles intents_;
	EventPtr event_;
	BusPtr bus_;
	std::unique_ptr<WorkerPool> pool_;
	std::unique_ptr<Reconciler> reconciler_;
	std::unique_ptr<BusApi> api_;
	SlotPtr logControl_;
	std::unique_ptr<MountMonitor> monitor_;
	std::vector<SourcePtr> sources_;
	OneShotTimer specSettle_; /* a reload, once a spec directory has been quiet */
	SourcePtr resync_;
	uint64_t resyncUsec_ = 0;
	SourcePtr ioCheck_;
	uint64_t ioCheckUsec_ = 0;
	uint64_t nextPoolCheck_ = 0; /* CLOCK_MONOTONIC µs */
	bool poolCheckRunning_ = false;
	bool hostStopping_ = false; /* a question to a gone cluster would hold the poweroff */
	bool watchdog_ = false;
	bool ready_ = false;
	bool stopping_ = false;
	std::string status_;
	UniqueFd lock_;
};

void Daemon::notifyStatus()
{
	std::string now = "STATUS=" + reconciler_->summary();
	if (now == status_)
		return;
	status_ = std::move(now);
	(void)sd_notify(0, status_.c_str());
}

int Daemon::onSignal(sd_event_source * /*source*/, const signalfd_siginfo *info, void *self)
{
	auto &daemon = *static_cast<Daemon *>(self);
	if (info->ssi_signo == SIGHUP) {
		(void)sd_notify(0, "RELOADING=1");
		daemon.reconciler_->reload(
			[](const Error * /*unused*/) { (void)sd_notify(0, "READY=1"); });
		return 0;
	}
	if (daemon.stopping_)
		return 0;
	daemon.stopping_ = true;
	(void)sd_notify(0, "STOPPING=1\nSTATUS=Waiting for running volume operations to end");
	sd_event *event = daemon.event_.get();
	daemon.reconciler_->shutdown([event] { (void)sd_event_exit(event, 0); });
	return 0;
}

int Daemon::onSpecDirectory(sd_event_source * /*source*/, const inotify_event * /*event*/,
			    void *self)
{
	auto &daemon = *static_cast<Daemon *>(self);
	Reconciler &reconciler = *daemon.reconciler_;
	auto armed = daemon.specSettle_.arm(daemon.event_.get(), SpecSettle,
					    std::chrono::microseconds(0),
					    [&reconciler] { reconciler.reload(nullptr); });
	if (!armed)
		log::error(armed.error().message);
	return 0;
}

int Daemon::onMountTable(sd_event_source * /*source*/, int /*fd*/, uint32_t /*revents*/, void *self)
{
	auto &daemon = *static_cast<Daemon *>(self);
	if (daemon.monitor_->drain())
		daemon.reconciler_->mountTableChanged();
	return 0;
}

/* The resync, and the watchdog's ping: that the loop is alive. */
int Daemon::onResync(sd_event_source *source, uint64_t usec, void *self)
{
	auto &daemon = *static_cast<Daemon *>(self);
	if (daemon.watchdog_)
		(void)sd_notify(0, "WATCHDOG=1");
	daemon.notifyStatus();
	daemon.reconciler_->requestSurvey();
	(void)sd_event_source_set_time(source, usec + daemon.resyncUsec_);
	return 0;
}

/*
 * The kernel tells nobody that a device's requests get no answer: its
 * counters are read (sysfs, a few bytes a device) twice per io-stall, and a
 * volume whose device went from flowing to stalled or back is surveyed.
 * With nothing mapped the check sleeps; work that finishes wakes it.
 */
int Daemon::onIoCheck(sd_event_source *source, uint64_t usec, void *self)
{
	auto &daemon = *static_cast<Daemon *>(self);
	IoStallWatch &stalls = daemon.host_.stalls();
	if (!stalls.watching()) {
		(void)sd_event_source_set_enabled(source, SD_EVENT_OFF);
		return 0;
	}
	if (stalls.changed())
		daemon.reconciler_->requestSurvey();
	daemon.checkPools(usec);
	(void)sd_event_source_set_time(source, usec + daemon.ioCheckUsec_);
	return 0;
}

/*
 * Nor does anything tell a client that its pool is full. While something is
 * mapped, the monitors are asked once per io-stall (one command per cluster)
 * on an episode worker, since an unreachable cluster holds the question for
 * the operation timeout; a volume whose pool turned full or back is surveyed.
 * Once the host or the daemon stops, nobody asks.
 */
void Daemon::checkPools(uint64_t now)
{
	LibrbdCluster &cluster = host_.cluster();
	if (poolCheckRunning_ || stopping_ || hostStopping_ || now < nextPoolCheck_ ||
	    !cluster.watchingPools())
		return;
	poolCheckRunning_ = true;
	nextPoolCheck_ = now + 2 * ioCheckUsec_;
	WorkerPool *pool = pool_.get();
	pool->submit([this, pool, &cluster] {
		const bool changed = cluster.refreshPools();
		pool->post([this, changed] {
			poolCheckRunning_ = false;
			if (changed && !stopping_)
				reconciler_->requestSurvey();
		});
	});
}

void Daemon::wakeIoCheck()
{
	int enabled = SD_EVENT_OFF;
	if (!ioCheck_ || sd_event_source_get_enabled(ioCheck_.get(), &enabled) < 0 ||
	    enabled != SD_EVENT_OFF || !host_.stalls().watching())
		return;
	uint64_t now = 0;
	(void)sd_event_now(event_.get(), CLOCK_MONOTONIC, &now);
	(void)sd_event_source_set_time(ioCheck_.get(), now + ioCheckUsec_);
	(void)sd_event_source_set_enabled(ioCheck_.get(), SD_EVENT_ON);
}

/*
 * From now on a volume going down abandons a device that gets no answer
 * (the reconciler). An application blocked on such a device holds its own
 * unit's stop, which comes before the volume's, for systemd's whole stop
 * timeout: so the nbd devices also fail a request unanswered for shutdown-io.
 * krbd has no such knob once mapped (osd_request_timeout is a map option).
 */
void Daemon::prepareForShutdown()
{
	hostStopping_ = true;
	log::info("the host is shutting down: a volume whose device gets no answer from the "
		  "cluster is abandoned, not waited for");
	/* A netlink round trip per device, each bounded: on a worker, logged on the
	 * loop. Through the pool itself: pool_ is null while it joins its workers. */
	WorkerPool *pool = pool_.get();
	pool->submit(
		[this, pool] {
			pool->post([bounds = host_.boundNbdRequests()] {
				for (const NbdRequestBound &bound : bounds)
					log::write(boundLine(bound));
			});
		},
		WorkerPool::Lane::Read);
}

int Daemon::onCompletions(sd_event_source * /*source*/, int /*fd*/, uint32_t /*revents*/,
			  void *self)
{
	auto &daemon = *static_cast<Daemon *>(self);
	daemon.pool_->runCompletions();
	if (!daemon.stopping_ && daemon.ready_)
		daemon.notifyStatus();
	daemon.wakeIoCheck();
	return 0;
}

Result<void> Daemon::setUpEvents()
{
	sd_event *event = nullptr;
	if (auto r = check(sd_event_default(&event), "cannot create the event loop"); !r)
		return r;
	event_.reset(event);

	sigset_t signals;
	sigemptyset(&signals);
	for (const int signal : { SIGTERM, SIGINT, SIGHUP })
		sigaddset(&signals, signal);
	/* Blocked before the workers start, so only the loop's signalfd sees them. */
	(void)pthread_sigmask(SIG_BLOCK, &signals, nullptr);
	for (const int signal : { SIGTERM, SIGINT, SIGHUP }) {
		sd_event_source *source = nullptr;
		if (auto r = check(sd_event_add_signal(event, &source, signal, onSignal, this),
				   "cannot watch signals");
		    !r)
			return r;
		sources_.emplace_back(source);
	}

	auto pool = WorkerPool::create(config_.workers, ReadWorkers);
	if (!pool)
		return tl::make_unexpected(pool.error());
	pool_ = std::move(*pool);
	sd_event_source *source = nullptr;
	if (auto r = check(
		    sd_event_add_io(event, &source, pool_->fd(), EPOLLIN, onCompletions, this),
		    "cannot watch the workers");
	    !r)
		return r;
	sources_.emplace_back(source);

	auto monitor = MountMonitor::create();
	if (!monitor)
		return tl::make_unexpected(monitor.error());
	monitor_ = std::move(*monitor);
	if (auto r = check(
		    sd_event_add_io(event, &source, monitor_->fd(), EPOLLIN, onMountTable, this),
		    "cannot watch the mount table");
	    !r)
		return r;
	sources_.emplace_back(source);

	for (const std::string &dir : defaultSpecDirs()) {
		const uint32_t mask = IN_CREATE | IN_DELETE | IN_CLOSE_WRITE | IN_MOVED_FROM |
				      IN_MOVED_TO | IN_ATTRIB | IN_ONLYDIR;
		if (auto r = check(sd_event_add_inotify(event, &source, dir.c_str(), mask,
							onSpecDirectory, this),
				   "cannot watch " + dir);
		    !r)
			return r;
		sources_.emplace_back(source);
	}

	/* The resync tick doubles as the watchdog ping: idle with nothing mapped, the only wakeup. */
	uint64_t watchdogUsec = 0;
	watchdog_ = sd_watchdog_enabled(0, &watchdogUsec) > 0;
	resyncUsec_ = usecOf(config_.resyncInterval);
	if (watchdog_)
		resyncUsec_ = std::min(resyncUsec_, watchdogUsec / 2);
	if (auto r = addTicker(resync_, resyncUsec_, onResync, "the resync timer"); !r)
		return r;
	ioCheckUsec_ = usecOf(config_.ioStall) / 2;
	return addTicker(ioCheck_, ioCheckUsec_, onIoCheck, "the I/O check timer");
}

/* A timer every `usec` (its callback sets the next time), 10 % slack. */
Result<void> Daemon::addTicker(SourcePtr &into, uint64_t usec, sd_event_time_handler_t handler,
			       const char *what)
{
	uint64_t now = 0;
	(void)sd_event_now(event_.get(), CLOCK_MONOTONIC, &now);
	sd_event_source *source = nullptr;
	if (auto r = check(sd_event_add_time(event_.get(), &source, CLOCK_MONOTONIC, now + usec,
					     usec / 10, handler, this),
			   std::string("cannot create ") + what);
	    !r)
		return r;
	into.reset(source);
	(void)sd_event_source_set_enabled(source, SD_EVENT_ON);
	return {};
}

Result<void> Daemon::setUpBus()
{
	sd_bus *bus = nullptr;
	if (auto r = check(sd_bus_open_system(&bus), "cannot connect to the system bus"); !r)
		return r;
	bus_.reset(bus);
	api_ = std::make_unique<BusApi>(bus, event_.get(), *reconciler_, host_.passphrases());
	reconciler_->setListener(api_.get());
	api_->onShutdown([this] { prepareForShutdown(); });
	if (auto attached = api_->attach(); !attached)
		return attached;
	auto logControl = attachLogControl(bus);
	if (!logControl)
		return tl::make_unexpected(logControl.error());
	logControl_ = std::move(*logControl);
	if (auto r = check(sd_bus_attach_event(bus, event_.get(), SD_EVENT_PRIORITY_NORMAL),
			   "cannot attach the bus to the loop");
	    !r)
		return r;
	/* The bus going away (dbus restarted) ends us; systemd starts us again. */
	(void)sd_bus_set_exit_on_disconnect(bus, 1);
	return check(sd_bus_request_name(bus, bus::ServiceName, 0),
		     std::string("cannot own ") + bus::ServiceName +
			     " (is another rbd-volumed running?)");
}

Result<void> Daemon::run()
{
	if (auto made = makeRuntimeDirectories(); !made)
		return made;
	auto lock = lockDaemon();
	if (!lock)
		return tl::make_unexpected(lock.error());
	lock_ = std::move(*lock);
	if (auto events = setUpEvents(); !events)
		return events;
	reconciler_ = std::make_unique<Reconciler>(
		event_.get(), host_.host(), *pool_, specs_, intents_,
		ReconcilerSettings{ config_.maxPassesPerTrigger, config_.backoffInitial,
				    config_.backoffMax });
	if (auto bus = setUpBus(); !bus)
		return bus;
	auto started = reconciler_->start([this] {
		(void)sd_notify(0, "READY=1");
		ready_ = true;
		notifyStatus();
		log::info("ready: " + reconciler_->summary());
	});
	if (!started)
		return started;
	if (auto r = check(sd_event_loop(event_.get()), "the event loop failed"); !r)
		return r;
	if (reconciler_->leftInFlight() || pool_->busy()) {
		/*
		 * A worker inside a call that the cluster or a mapper never answers
		 * (an episode the stop left, a check of the pools) cannot be joined,
		 * nor the handles it holds closed: the process ends as a kill would
		 * end it, which every step it could be in survives, once the bus
		 * took the last replies.
		 */
		log::info("stopped, leaving work in flight to the next start");
		(void)sd_bus_flush(bus_.get());
		_exit(0);
	}
	/* Workers finish before the objects their completions reach go away. */
	pool_.reset();
	return {};
}

} /* namespace */

int runDaemon(const DaemonConfig &config)
{
	Daemon daemon(config);
	auto ran = daemon.run();
	if (!ran) {
		log::error(ran.error().message);
		(void)sd_notifyf(0, "STATUS=Failed: %s\nERRNO=%d", ran.error().message.c_str(),
				 ran.error().sysErrno);
		return 1;
	}
	return 0;
}

} /* namespace rbdvolume::daemon */
