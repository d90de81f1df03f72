/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "bus/client.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <ctime>
#include <functional>
#include <optional>
#include <string_view>
#include <utility>

#include "bus/errors.hpp"
#include "bus/names.hpp"
#include "common/errno_text.hpp"

namespace rbdvolume::bus {

namespace {

constexpr uint64_t UsecPerSecond = 1000000;
/* Let --timeout end within a millisecond, not sd-event's default 250 ms slack. */
constexpr uint64_t TimerAccuracyUsec = 1000;
/* sd_bus_call_async() waits forever for this timeout; 0 would mean sd-bus's 25 s. */
constexpr uint64_t NoTimeout = UINT64_MAX;

tl::unexpected<Error> callFailed(const ScopedBusError &error, int r, std::string_view what)
{
	if (error.isSet())
		return tl::make_unexpected(errorFromBus(error.name(), error.message()));
	return tl::make_unexpected(errorFromErrno(r, what));
}

/* What the event loop learnt: the reply, or that the time ran out. */
struct PendingCall {
	sd_event *event = nullptr;
	MessagePtr reply;
	bool timedOut = false;
};

int onReply(sd_bus_message *reply, void *userdata, sd_bus_error * /*error*/)
{
	auto *pending = static_cast<PendingCall *>(userdata);
	pending->reply.reset(sd_bus_message_ref(reply));
	return sd_event_exit(pending->event, 0);
}

/* A callback the event loop calls at a fixed period while a call waits. */
struct Heartbeat {
	std::function<void()> beat;
	uint64_t everyUsec = 0;
};

/* Calls the heartbeat, then arms its timer again. */
int onHeartbeat(sd_event_source *source, uint64_t /*usec*/, void *userdata)
{
	const auto *heartbeat = static_cast<const Heartbeat *>(userdata);
	heartbeat->beat();
	const int r = sd_event_source_set_time_relative(source, heartbeat->everyUsec);
	return r < 0 ? r : sd_event_source_set_enabled(source, SD_EVENT_ONESHOT);
}

int onTimeout(sd_event_source * /*source*/, uint64_t /*usec*/, void *userdata)
{
	auto *pending = static_cast<PendingCall *>(userdata);
	pending->timedOut = true;
	return sd_event_exit(pending->event, 0);
}

/* The bus attached to an event loop for one call, detached again on every way out. */
class AttachedEvent
{
public:
	AttachedEvent(sd_bus *bus, sd_event *event)
		: bus_(bus), result_(sd_bus_attach_event(bus, event, SD_EVENT_PRIORITY_NORMAL))
	{
	}
	~AttachedEvent()
	{
		if (result_ >= 0)
			sd_bus_detach_event(bus_);
	}
	AttachedEvent(const AttachedEvent &) = delete;
	AttachedEvent &operator=(const AttachedEvent &) = delete;
	AttachedEvent(AttachedEvent &&) = delete;
	AttachedEvent &operator=(AttachedEvent &&) = delete;

	int result() const { return result_; }

private:
	sd_bus *bus_;
	int result_;
};

} /* namespace */

Client::Client(BusPtr bus) : bus_(std::move(bus))
{
}

Result<Client> Client::open()
{
	sd_bus *raw = nullptr;
	const int r = sd_bus_open_system(&raw);
	BusPtr bus(raw);
	if (r < 0)
		return tl::make_unexpected(
			daemonUnreachable("cannot connect to the system bus: " + errnoText(-r)));
	return Client(std::move(bus));
}

Result<std::vector<VolumeSummary>> Client::listVolumes()
{
	ScopedBusError error;
	sd_bus_message *raw = nullptr;
	const int r = sd_bus_call_method(bus_.get(), ServiceName, ManagerPath, ManagerInterface,
					 "ListVolumes", error.get(), &raw, nullptr);
	const MessagePtr reply(raw);
	if (r < 0)
		return callFailed(error, r, "cannot list the volumes");
	auto volumes = readVolumeList(reply.get());
	if (volumes)
		std::sort(volumes->begin(), volumes->end(),
			  [](const VolumeSummary &a, const VolumeSummary &b) {
				  return a.name < b.name;
			  });
	return volumes;
}

Result<std::string> Client::volumePath(const std::string &name, bool autoStart)
{
	auto call = newManagerCall("GetVolume");
	if (!call)
		return tl::make_unexpected(call.error());
	int r = sd_bus_message_append(call->get(), "s", name.c_str());
	if (r >= 0)
		r = sd_bus_message_set_auto_start(call->get(), static_cast<int>(autoStart));
	if (r < 0)
		return tl::make_unexpected(errorFromErrno(r, "cannot build the call"));
	ScopedBusError error;
	sd_bus_message *raw = nullptr;
	r = sd_bus_call(bus_.get(), call->get(), 0, error.get(), &raw);
	const MessagePtr reply(raw);
	if (r < 0)
		return callFailed(error, r, "cannot look up the volume");
	const char *path = nullptr;
	r = sd_bus_message_read(reply.get(), "o", &path);
	if (r <= 0 || path == nullptr)
		return fail(Errc::Unsupported,
			    "cannot read the volume's object path from rbd-volumed");
	return std::string(path);
}

Result<VolumeProperties> Client::volumeProperties(const std::string &objectPath)
{
	ScopedBusError error;
	sd_bus_message *raw = nullptr;
	const int r =
		sd_bus_call_method(bus_.get(), ServiceName, objectPath.c_str(), PropertiesInterface,
				   "GetAll", error.get(), &raw, "s", VolumeInterface);
	const MessagePtr reply(raw);
	if (r < 0)
		return callFailed(error, r, "cannot read the volume");
	return readVolumeProperties(reply.get());
}

Result<std::vector<VolumeProperties>> Client::everyVolume()
{
	auto volumes = listVolumes();
	if (!volumes)
		return tl::make_unexpected(volumes.error());
	std::vector<VolumeProperties> views;
	views.reserve(volumes->size());
	for (const VolumeSummary &volume : *volumes) {
		auto view = volumeProperties(volume.objectPath);
		if (!view && view.error().code == Errc::NotFound)
			continue;
		if (!view)
			return tl::make_unexpected(view.error());
		views.push_back(std::move(*view));
	}
	return views;
}

Result<void> Client::setIntent(const char *member, const std::string &name, bool wait,
			       const WaitSettings &settings)
{
	auto call = newManagerCall(member);
	if (!call)
		return tl::make_unexpected(call.error());
	int r = sd_bus_message_append(call->get(), "sb", name.c_str(), static_cast<int>(wait));
	/*
	 * Bus activation would start the daemon through systemd, which orders
	 * that start after the stop of rbd-volume@NAME running this very Down:
	 * the call would wait for the bus's activation timeout, then fail.
	 */
	if (r >= 0 && std::string_view(member) == "Down")
		r = sd_bus_message_set_auto_start(call->get(), 0);
	if (r < 0)
		return tl::make_unexpected(errorFromErrno(r, "cannot build the call"));
	return callAndWait(call->get(), settings);
}

Result<void> Client::reconcile(const std::string &name, const WaitSettings &settings)
{
	auto call = newManagerCall("Reconcile");
	if (!call)
		return tl::make_unexpected(call.error());
	const int r = sd_bus_message_append(call->get(), "s", name.c_str());
	if (r < 0)
		return tl::make_unexpected(errorFromErrno(r, "cannot build the call"));
	return callAndWait(call->get(), settings);
}

Result<void> Client::reload(const WaitSettings &settings)
{
	auto call = newManagerCall("Reload");
	if (!call)
		return tl::make_unexpected(call.error());
	return callAndWait(call->get(), settings);
}

Result<MessagePtr> Client::newManagerCall(const char *member)
{
	sd_bus_message *raw = nullptr;
	const int r = sd_bus_message_new_method_call(bus_.get(), &raw, ServiceName, ManagerPath,
						     ManagerInterface, member);
	MessagePtr call(raw);
	if (r < 0)
		return tl::make_unexpected(errorFromErrno(r, "cannot build the call"));
	return call;
}

Result<std::string> Client::daemonUniqueName()
{
	ScopedBusError error;
	sd_bus_message *raw = nullptr;
	int r = sd_bus_call_method(bus_.get(), "org.freedesktop.DBus", "/org/freedesktop/DBus",
				   "org.freedesktop.DBus", "GetNameOwner", error.get(), &raw, "s",
				   ServiceName);
	const MessagePtr reply(raw);
	if (r < 0)
		return callFailed(error, r, "cannot find rbd-volumed on the bus");
	const char *owner = nullptr;
	r = sd_bus_message_read(reply.get(), "s", &owner);
	if (r <= 0 || owner == nullptr)
		return fail(Errc::Io, "cannot read the owner of org.rbdvolume1");
	return std::string(owner);
}

Result<bool> Client::daemonRunning()
{
	ScopedBusError error;
	sd_bus_message *raw = nullptr;
	const int r = sd_bus_call_method(bus_.get(), "org.freedesktop.DBus",
					 "/org/freedesktop/DBus", "org.freedesktop.DBus",
					 "GetNameOwner", error.get(), &raw, "s", ServiceName);
	const MessagePtr reply(raw);
	if (r >= 0)
		return true;
	if (error.isSet() &&
	    std::string_view(error.name()) == "org.freedesktop.DBus.Error.NameHasNoOwner")
		return false;
	return callFailed(error, r, "cannot find rbd-volumed on the bus");
}

namespace {

/* The phase watch of `monitor`, following whichever process owns org.rbdvolume1. */
struct PhaseFollower {
	sd_bus *bus = nullptr;
	const PropertyCallback *onPhase = nullptr;
	const std::function<void(bool)> *onDaemon = nullptr;
	std::optional<PropertyWatch> watch;
	std::optional<Error> failed;
	sd_event *event = nullptr;

	/* Signals from `owner` alone: a name's new owner is a new unique name. */
	void follow(const std::string &owner)
	{
		watch.reset();
		if (owner.empty())
			return;
		auto started = PropertyWatch::start(bus, owner, "", "Phase", *onPhase);
		if (started) {
			watch = std::move(*started);
			return;
		}
		failed = started.error();
		(void)sd_event_exit(event, 0);
	}
};

int onOwnerChanged(sd_bus_message *message, void *userdata, sd_bus_error * /*error*/)
{
	auto *follower = static_cast<PhaseFollower *>(userdata);
	const char *name = nullptr;
	const char *before = nullptr;
	const char *after = nullptr;
	if (sd_bus_message_read(message, "sss", &name, &before, &after) < 0 ||
	    std::string_view(name) != ServiceName)
		return 0;
	/* A C callback: nothing may escape it. */
	try {
		follower->follow(after);
		(*follower->onDaemon)(*after != '\0');
	} catch (...) {
		return -ENOMEM;
	}
	return 0;
}

} /* namespace */

Result<void> Client::watchPhases(const PropertyCallback &onPhase,
				 const std::function<void(bool running)> &onDaemon)
{
	sd_event *rawEvent = nullptr;
	int r = sd_event_new(&rawEvent);
	const EventPtr event(rawEvent);
	if (r < 0)
		return tl::make_unexpected(errorFromErrno(r, "cannot make an event loop"));
	/* sd-event takes a signal only when it is blocked; the loop's end is the verb's. */
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	/* pthread_sigmask: the calling thread only, as the loop runs on it. */
	if (const int err = pthread_sigmask(SIG_BLOCK, &stop, nullptr); err != 0)
		return tl::make_unexpected(errorFromErrno(-err, "cannot block SIGINT and SIGTERM"));
	for (const int signal : { SIGINT, SIGTERM }) {
		r = sd_event_add_signal(event.get(), nullptr, signal, nullptr, nullptr);
		if (r < 0)
			return tl::make_unexpected(errorFromErrno(r, "cannot watch for signals"));
	}
	const AttachedEvent attached(bus_.get(), event.get());
	if (attached.result() < 0)
		return tl::make_unexpected(errorFromErrno(
			attached.result(), "cannot attach the bus to an event loop"));

	PhaseFollower follower;
	follower.bus = bus_.get();
	follower.onPhase = &onPhase;
	follower.onDaemon = &onDaemon;
	follower.event = event.get();
	sd_bus_slot *rawSlot = nullptr;
	r = sd_bus_match_signal(bus_.get(), &rawSlot, "org.freedesktop.DBus",
				"/org/freedesktop/DBus", "org.freedesktop.DBus", "NameOwnerChanged",
				onOwnerChanged, &follower);
	const SlotPtr owners(rawSlot);
	if (r < 0)
		return tl::make_unexpected(
			errorFromErrno(r, "cannot watch rbd-volumed come and go"));
	/* After the match: an owner that comes meanwhile is seen either way. */
	auto owner = daemonUniqueName();
	follower.follow(owner ? *owner : std::string());
	if (follower.failed)
		return tl::make_unexpected(*follower.failed);

	r = sd_event_loop(event.get());
	if (r < 0)
		return tl::make_unexpected(errorFromErrno(r, "watching rbd-volumed failed"));
	if (follower.failed)
		return tl::make_unexpected(*follower.failed);
	return {};
}

Result<void> Client::callAndWait(sd_bus_message *call, const WaitSettings &settings)
{
	/* Watch first, call second: no step can pass unseen between the two. */
	std::optional<PropertyWatch> watch;
	/*
	 * The daemon's unique name filters the signals. With no owner yet (the
	 * daemon restarting after a kill, or about to be started by this very
	 * call) the call goes out unwatched: its reply is what counts, and it
	 * reports a daemon that cannot be reached itself.
	 */
	auto sender = settings.onActivity ? daemonUniqueName() : Result<std::string>();
	if (settings.onActivity && sender) {
		/*
		 * The volume's path follows from its name: asking the daemon (GetVolume)
		 * would miss a spec written a moment ago, which the call itself reads.
		 */
		const std::string path =
			settings.volume.empty() ? std::string() : bus::volumePath(settings.volume);
		/* "" is the volume going idle: nothing to show. */
		auto started = PropertyWatch::start(
			bus_.get(), *sender, path, "Activity",
			[onActivity = settings.onActivity](const std::string &name,
							   const std::string &activity) {
				if (!activity.empty())
					onActivity(name, activity);
			});
		if (!started)
			return tl::make_unexpected(started.error());
		watch = std::move(*started);
	}

	sd_event *rawEvent = nullptr;
	int r = sd_event_new(&rawEvent);
	const EventPtr event(rawEvent);
	if (r < 0)
		return tl::make_unexpected(errorFromErrno(r, "cannot make an event loop"));
	const AttachedEvent attached(bus_.get(), event.get());
	if (attached.result() < 0)
		return tl::make_unexpected(errorFromErrno(
			attached.result(), "cannot attach the bus to an event loop"));

	PendingCall pending;
	pending.event = event.get();
	sd_bus_slot *rawSlot = nullptr;
	r = sd_bus_call_async(bus_.get(), &rawSlot, call, onReply, &pending, NoTimeout);
	const SlotPtr slot(rawSlot);
	if (r < 0)
		return tl::make_unexpected(errorFromErrno(r, "cannot send the call"));

	SourcePtr timer;
	if (settings.timeoutSeconds > 0) {
		sd_event_source *rawTimer = nullptr;
		r = sd_event_add_time_relative(event.get(), &rawTimer, CLOCK_MONOTONIC,
					       settings.timeoutSeconds * UsecPerSecond,
					       TimerAccuracyUsec, onTimeout, &pending);
		timer.reset(rawTimer);
		if (r < 0)
			return tl::make_unexpected(errorFromErrno(r, "cannot set the timeout"));
	}

	Heartbeat heartbeat{ settings.onHeartbeat,
			     static_cast<uint64_t>(
				     std::chrono::duration_cast<std::chrono::microseconds>(
					     settings.heartbeatEvery)
					     .count()) };
	SourcePtr heartbeatTimer;
	if (heartbeat.beat && heartbeat.everyUsec > 0) {
		sd_event_source *rawHeartbeat = nullptr;
		r = sd_event_add_time_relative(event.get(), &rawHeartbeat, CLOCK_MONOTONIC,
					       heartbeat.everyUsec, TimerAccuracyUsec, onHeartbeat,
					       &heartbeat);
		heartbeatTimer.reset(rawHeartbeat);
		if (r < 0)
			return tl::make_unexpected(errorFromErrno(r, "cannot set the heartbeat"));
	}

	r = sd_event_loop(event.get());
	if (r < 0)
		return tl::make_unexpected(errorFromErrno(r, "waiting for rbd-volumed failed"));
	if (pending.timedOut)
		return tl::make_unexpected(noReplyWithin(settings.timeoutSeconds, settings.volume));
	if (!pending.reply)
		return fail(Errc::Internal, "the wait ended without a reply");
	const sd_bus_error *error = sd_bus_message_get_error(pending.reply.get());
	if (error != nullptr)
		return tl::make_unexpected(
			errorFromBus(error->name != nullptr ? error->name : "",
				     error->message != nullptr ? error->message : ""));
	return {};
}

} /* namespace rbdvolume::bus */
