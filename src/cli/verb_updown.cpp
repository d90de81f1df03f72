/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `rbd-volumectl up NAME`, `down NAME`: the intent of one volume, waiting for it by default. */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include <systemd/sd-daemon.h>

#include "bus/client.hpp"
#include "bus/errors.hpp"
#include "bus/volume_properties.hpp"
#include "cli/exit_codes.hpp"
#include "cli/offline_down.hpp"
#include "cli/unit_progress.hpp"
#include "cli/unit_stop.hpp"
#include "cli/verb_options.hpp"
#include "cli/verbs.hpp"
#include "cli/waiting_unit.hpp"

namespace rbdvolume::cli {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::string_view UpSynopsis =
	"NAME... [--no-wait] [--timeout SECONDS] [--progress] [--verbose]";
constexpr std::string_view DownSynopsis =
	"NAME... [--no-wait] [--timeout SECONDS] [--progress] [--verbose] [--if-start-cancelled]";

/*
 * A daemon that went away mid-call (killed, restarted) is asked again for
 * this long: systemd restarts it after a second, then it reads its specs.
 */
constexpr std::chrono::seconds Patience{ 60 };
constexpr std::chrono::milliseconds Pause{ 500 };

/*
 * Down with no daemon on the bus: asking would have the bus start one, and
 * systemd would start it only after the stop of rbd-volume@NAME now
 * running. So it is done here, unless a daemon holds its lock (starting:
 * then ask it, a moment later).
 */
Result<bool> downHereIfNoDaemon(bus::Client &bus, const std::string &name)
{
	auto running = bus.daemonRunning();
	if (!running)
		return tl::make_unexpected(running.error());
	if (*running)
		return false;
	auto done = downWithoutDaemon(name);
	if (!done)
		return tl::make_unexpected(done.error());
	return *done == OfflineDown::Done;
}

/*
 * Up and down are idempotent: a daemon that went away while the call
 * waited (killed, restarted) is asked again once it is back, so the exit
 * status says what happened to the volume, not to the daemon.
 */
Result<void> setIntent(const char *member, const std::string &name, bool wait,
		       bus::WaitSettings settings)
{
	const bool down = std::string_view(member) == "Down";
	const auto deadline =
		settings.timeoutSeconds == 0
			? Clock::time_point::max()
			: Clock::now() + std::chrono::seconds(settings.timeoutSeconds);
	const auto patience = std::min(deadline, Clock::now() + Patience);
	Result<void> done = fail(Errc::Internal, "not tried");
	for (bool first = true;; first = false) {
		if (!first) {
			if (Clock::now() + Pause >= patience)
				break;
			std::this_thread::sleep_for(Pause);
		}
		/* A call's wait ends its connection (sd-bus closes it with the loop): one each. */
		auto bus = bus::Client::open();
		if (!bus)
			return tl::make_unexpected(bus.error());
		if (down) {
			auto here = downHereIfNoDaemon(*bus, name);
			if (!here)
				return tl::make_unexpected(here.error());
			if (*here)
				return {};
		}
		if (settings.timeoutSeconds != 0) {
			const auto left = std::chrono::duration_cast<std::chrono::seconds>(
				deadline - Clock::now());
			settings.timeoutSeconds =
				static_cast<uint64_t>(std::max<int64_t>(1, left.count()));
		}
		done = bus->setIntent(member, name, wait, settings);
		/* A Down that found no daemon (gone since the look above) goes down here next time. */
		if (done || (!bus::isDaemonGone(done.error()) &&
			     (!down || done.error().code != Errc::Unreachable)))
			return done;
	}
	return done;
}

/*
 * Run as rbd-volume@NAME.service's ExecStart= (NotifyAccess=main), the
 * unit's status says where the volume is, so `systemctl status` shows it to
 * an operator who knows only systemctl: "up: /dev/rbd0 staged at
 * /run/rbd-volume/staging/data, published at /srv/data". Also printed, for
 * the unit's journal.
 */
void tellSystemd(const std::string &name)
{
	/* Read once, before any thread exists. */
	if (std::getenv("NOTIFY_SOCKET") == nullptr) /* NOLINT(concurrency-mt-unsafe) */
		return;
	auto bus = bus::Client::open();
	auto path = bus ? bus->volumePath(name) : tl::make_unexpected(bus.error());
	auto shown = path ? bus->volumeProperties(*path) : tl::make_unexpected(path.error());
	if (!shown)
		return;
	std::string text = std::string(bus::phaseName(shown->phase));
	if (!shown->device.empty())
		text += ": " + shown->device;
	if (!shown->stagingPath.empty())
		text += " staged at " + shown->stagingPath;
	for (size_t i = 0; i < shown->publishTargets.size(); i++)
		text += (i == 0 ? ", published at " : ", ") + shown->publishTargets[i];
	(void)sd_notifyf(0, "STATUS=%s", text.c_str());
	std::printf("%s: %s\n", name.c_str(), text.c_str());
}

/*
 * A unit's up that failed: `systemctl status` shows why while the unit waits
 * to start again ("not up: cannot reach the cluster at ... within 10 s ...").
 */
void tellSystemdWhyNot(const Error &error)
{
	if (std::getenv("NOTIFY_SOCKET") == nullptr) /* NOLINT(concurrency-mt-unsafe) */
		return;
	std::string text = error.message.substr(0, error.message.find('\n'));
	(void)sd_notifyf(0, "STATUS=not up: %s", text.c_str());
}

/* rbd-volume@NAME.service waiting to bring NAME up again: stopped, and said so. */
Result<void> cancelWaitingUnit(const std::string &name)
{
	auto stopped = stopWaitingUnit(name);
	if (!stopped)
		return tl::make_unexpected(stopped.error());
	if (*stopped)
		std::fprintf(stderr,
			     "rbd-volumectl: stopped rbd-volume@%s.service, which waited to start "
			     "again and would have brought %s up\n",
			     name.c_str(), name.c_str());
	return {};
}

/* `verb` is "up" or "down"; `member` the Manager method it calls. */
int runVerb(std::string_view verb, const char *member, std::span<const std::string_view> args)
{
	const bool down = verb == "down";
	const std::string_view synopsis = down ? DownSynopsis : UpSynopsis;
	const auto options = parseVerbOptions(args, OptionNoWait | OptionTimeout | OptionProgress |
							    OptionVerbose |
							    (down ? OptionIfStartCancelled : 0U));
	if (!options)
		return usageError(verb, options.error().message, synopsis);
	const auto names = volumeNames(*options, true);
	if (!names)
		return usageError(verb, names.error().message, synopsis);
	if (options->ifStartCancelled && !startWasCancelled())
		return ExitOk; /* the unit's ExecStop= took it down, or its start failed */

	bus::WaitSettings settings;
	settings.timeoutSeconds = options->timeoutSeconds;
	if (options->wait) {
		settings.onActivity = progressPrinter(*options);
		if (auto unit = UnitProgress::fromEnvironment()) {
			settings.onActivity = [unit, print = std::move(settings.onActivity)](
						      const std::string &volume,
						      const std::string &activity) {
				unit->activity(activity);
				if (print)
					print(volume, activity);
			};
			settings.onHeartbeat = [unit] { unit->heartbeat(); };
			settings.heartbeatEvery = UnitProgress::HeartbeatEvery;
		}
	}
	/* One after the other, each waited for (--timeout each); the first failure's status, the rest still run. */
	int status = ExitOk;
	for (const std::string &name : *names) {
		settings.volume = name;
		/* Before the down, and after it too: a try that ran meanwhile may wait to restart now. */
		Result<void> done = down ? cancelWaitingUnit(name) : Result<void>{};
		if (done)
			done = setIntent(member, name, options->wait, settings);
		if (done && down)
			done = cancelWaitingUnit(name);
		if (!done) {
			if (options->wait && verb == "up" && names->size() == 1)
				tellSystemdWhyNot(done.error());
			const int failed =
				reportFailure(std::string(verb) + " " + name, done.error());
			status = status == ExitOk ? failed : status;
			continue;
		}
		if (options->wait && verb == "up" && names->size() == 1)
			tellSystemd(name); /* a unit's ExecStart= names its one volume */
		if (options->verbose)
			std::printf("%s: %.*s%s\n", name.c_str(), static_cast<int>(verb.size()),
				    verb.data(), options->wait ? "" : " (requested)");
	}
	return status;
}

} /* namespace */

int verbUp(std::span<const std::string_view> args)
{
	return runVerb("up", "Up", args);
}

int verbDown(std::span<const std::string_view> args)
{
	return runVerb("down", "Down", args);
}

} /* namespace rbdvolume::cli */
