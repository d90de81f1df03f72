/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "bus/shared_client.hpp"

#include <cerrno>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include <sys/epoll.h>
#include <sys/eventfd.h>

#include "bus/errors.hpp"
#include "bus/names.hpp"
#include "common/errno_text.hpp"
#include "common/sd_ptr.hpp"
#include "common/unique_fd.hpp"

namespace rbdvolume::bus {

namespace {

using Clock = std::chrono::steady_clock;

/* Let a timeout end within a millisecond, not sd-event's default 250 ms slack. */
constexpr uint64_t TimerAccuracyUsec = 1000;
/* sd_bus_call_async() waits forever for this timeout: our own timer bounds each call. */
constexpr uint64_t NoTimeout = UINT64_MAX;
/* A caller waits this much past its timeout for the loop's answer before giving up on it. */
constexpr std::chrono::seconds LoopGrace{ 5 };

/* The error an error reply carries; success for a method return. */
Result<void> replyOutcome(sd_bus_message *reply)
{
	const sd_bus_error *error = sd_bus_message_get_error(reply);
	if (error == nullptr)
		return {};
	return tl::make_unexpected(errorFromBus(error->name != nullptr ? error->name : "",
						error->message != nullptr ? error->message : ""));
}

/* One call on the loop: what to send, and what to do with its reply (on the loop's thread). */
struct Call {
	std::string path;
	const char *interface = nullptr;
	const char *member = nullptr;
	std::function<int(sd_bus_message *)> append; /* the arguments; empty: none */
	Clock::time_point deadline;
	std::chrono::milliseconds timeout{}; /* all it was given, for the message */
	std::string volume;		     /* the volume it is about, for the message */
	/* The reply (maybe an error reply) or, when there is none, why. */
	std::function<void(sd_bus_message *reply, const Error *error)> done;
};

} /* namespace */

/* The loop's thread and everything only it touches, and the queue callers fill. */
struct SharedClient::Loop {
	std::mutex mutex;
	std::deque<Call> queue; /* guarded by mutex */
	bool stopping = false;	/* guarded by mutex */
	UniqueFd wake;		/* an eventfd: a call was queued, or the loop should stop */
	std::thread thread;

	/* Only on the thread. */
	struct Pending {
		Loop *loop = nullptr;
		uint64_t id = 0;
		SlotPtr slot;
		SourcePtr timer;
		Call call;
	};
	EventPtr event;
	SourcePtr wakeSource;
	BusPtr bus;
	uint64_t nextId = 0;
	std::map<uint64_t, std::unique_ptr<Pending>> pending;

	/* From any thread. */
	void submit(Call call)
	{
		std::optional<Call> refused;
		{
			const std::lock_guard lock(mutex);
			if (stopping)
				refused = std::move(call);
			else
				queue.push_back(std::move(call));
		}
		if (refused) {
			const Error stopped{ Errc::ShuttingDown, "the bus client is stopping", 0 };
			refused->done(nullptr, &stopped);
			return;
		}
		const uint64_t one = 1;
		(void)!write(wake.get(), &one, sizeof(one));
	}

	void run()
	{
		(void)sd_event_loop(event.get());
		/* Nothing is left waiting: every call still pending or queued is answered. */
		const Error stopped{ Errc::ShuttingDown, "the bus client is stopping", 0 };
		for (auto &[id, entry] : std::exchange(pending, {}))
			entry->call.done(nullptr, &stopped);
		std::deque<Call> left;
		{
			const std::lock_guard lock(mutex);
			left.swap(queue);
		}
		for (Call &call : left)
			call.done(nullptr, &stopped);
		if (bus)
			(void)sd_bus_detach_event(bus.get());
		bus.reset();
	}

	static int onWake(sd_event_source * /*source*/, int fd, uint32_t /*events*/, void *userdata)
	{
		auto *self = static_cast<Loop *>(userdata);
		uint64_t count = 0;
		(void)!read(fd, &count, sizeof(count));
		std::deque<Call> calls;
		bool stop = false;
		{
			const std::lock_guard lock(self->mutex);
			calls.swap(self->queue);
			stop = self->stopping;
		}
		for (Call &call : calls)
			self->send(std::move(call));
		if (stop)
			return sd_event_exit(self->event.get(), 0);
		return 0;
	}

	/* The connection, made again when it dropped. */
	Result<void> connect()
	{
		if (bus && sd_bus_is_open(bus.get()) > 0)
			return {};
		if (bus)
			(void)sd_bus_detach_event(bus.get());
		bus.reset();
		sd_bus *raw = nullptr;
		int r = sd_bus_open_system(&raw);
		BusPtr opened(raw);
		if (r < 0)
			return tl::make_unexpected(daemonUnreachable(
				"cannot connect to the system bus: " + errnoText(-r)));
		r = sd_bus_attach_event(opened.get(), event.get(), SD_EVENT_PRIORITY_NORMAL);
		if (r < 0)
			return tl::make_unexpected(
				errorFromErrno(r, "cannot attach the bus to an event loop"));
		bus = std::move(opened);
		return {};
	}

	/* Sends `call` on the loop's thread; its `done` runs exactly once. */
	void send(Call call)
	{
		const auto failed = [&call](const Error &error) { call.done(nullptr, &error); };
		if (auto connected = connect(); !connected)
			return failed(connected.error());
		sd_bus_message *raw = nullptr;
		int r = sd_bus_message_new_method_call(bus.get(), &raw, ServiceName,
						       call.path.c_str(), call.interface,
						       call.member);
		const MessagePtr message(raw);
		if (r >= 0 && call.append)
			r = call.append(message.get());
		if (r < 0)
			return failed(errorFromErrno(r, "cannot build the call"));

		auto entry = std::make_unique<Pending>();
		entry->loop = this;
		entry->id = nextId++;
		const auto left = std::chrono::duration_cast<std::chrono::microseconds>(
			call.deadline - Clock::now());
		const auto usec = static_cast<uint64_t>(std::max<int64_t>(left.count(), 1));
		sd_bus_slot *slot = nullptr;
		r = sd_bus_call_async(bus.get(), &slot, message.get(), onReply, entry.get(),
				      NoTimeout);
		entry->slot.reset(slot);
		if (r < 0)
			return failed(errorFromErrno(r, "cannot send the call"));
		sd_event_source *timer = nullptr;
		r = sd_event_add_time_relative(event.get(), &timer, CLOCK_MONOTONIC, usec,
					       TimerAccuracyUsec, onTimeout, entry.get());
		entry->timer.reset(timer);
		if (r < 0)
			return failed(errorFromErrno(r, "cannot set the timeout"));
		entry->call = std::move(call);
		const uint64_t id = entry->id;
		pending.emplace(id, std::move(entry));
	}

	/* Takes the call out of `pending` before answering: its answer may send another. */
	void finish(uint64_t id, sd_bus_message *reply, const Error *error)
	{
		const auto found = pending.find(id);
		if (found == pending.end())
			return;
		std::unique_ptr<Pending> entry = std::move(found->second);
		pending.erase(found);
		entry->call.done(reply, error);
	}

	static int onReply(sd_bus_message *reply, void *userdata, sd_bus_error * /*error*/)
	{
		auto *entry = static_cast<Pending *>(userdata);
		entry->loop->finish(entry->id, reply, nullptr);
		return 0;
	}

	static int onTimeout(sd_event_source * /*source*/, uint64_t /*usec*/, void *userdata)
	{
		auto *entry = static_cast<Pending *>(userdata);
		const auto seconds = std::chrono::ceil<std::chrono::seconds>(entry->call.timeout);
		const Error timedOut =
			noReplyWithin(static_cast<uint64_t>(seconds.count()), entry->call.volume);
		entry->loop->finish(entry->id, nullptr, &timedOut);
		return 0;
	}
};

namespace {

/* A caller's side of one call: the loop fulfils it, the caller waits for it. */
template<typename T> struct Answer {
	std::shared_ptr<std::promise<Result<T>>> promise =
		std::make_shared<std::promise<Result<T>>>();

	Result<T> wait(std::chrono::milliseconds timeout) const
	{
		auto future = promise->get_future();
		if (future.wait_for(timeout + LoopGrace) != std::future_status::ready)
			return fail(Errc::Internal, "the bus client's loop did not answer");
		return future.get();
	}
};

Call managerCall(const char *member, const std::string &volume, std::chrono::milliseconds timeout)
{
	Call call;
	call.path = ManagerPath;
	call.interface = ManagerInterface;
	call.member = member;
	call.deadline = Clock::now() + timeout;
	call.timeout = timeout;
	call.volume = volume;
	return call;
}

/* Answers a call whose reply has no body to read. */
auto answerVoid(std::shared_ptr<std::promise<Result<void>>> promise)
{
	return [promise = std::move(promise)](sd_bus_message *reply, const Error *error) {
		promise->set_value(error != nullptr ? Result<void>(tl::make_unexpected(*error))
						    : replyOutcome(reply));
	};
}

} /* namespace */

SharedClient::SharedClient(std::unique_ptr<Loop> loop) : loop_(std::move(loop))
{
}

Result<std::unique_ptr<SharedClient>> SharedClient::start()
{
	auto loop = std::make_unique<Loop>();
	loop->wake = UniqueFd(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
	if (!loop->wake.valid())
		return failErrno("cannot make an eventfd", errno);
	sd_event *event = nullptr;
	int r = sd_event_new(&event);
	loop->event.reset(event);
	if (r < 0)
		return tl::make_unexpected(errorFromErrno(r, "cannot make an event loop"));
	sd_event_source *source = nullptr;
	r = sd_event_add_io(event, &source, loop->wake.get(), EPOLLIN, Loop::onWake, loop.get());
	loop->wakeSource.reset(source);
	if (r < 0)
		return tl::make_unexpected(errorFromErrno(r, "cannot watch the eventfd"));
	/* sd-event belongs to the thread that made it: the loop's thread takes it over. */
	loop->thread = std::thread([raw = loop.get()] { raw->run(); });
	return std::unique_ptr<SharedClient>(new SharedClient(std::move(loop)));
}

SharedClient::~SharedClient()
{
	{
		const std::lock_guard lock(loop_->mutex);
		loop_->stopping = true;
	}
	const uint64_t one = 1;
	(void)!write(loop_->wake.get(), &one, sizeof(one));
	loop_->thread.join();
}

Result<void> SharedClient::setIntent(const char *member, const std::string &name,
				     std::chrono::milliseconds timeout)
{
	Answer<void> answer;
	Call call = managerCall(member, name, timeout);
	call.append = [name](sd_bus_message *m) {
		return sd_bus_message_append(m, "sb", name.c_str(), 1);
	};
	call.done = answerVoid(answer.promise);
	loop_->submit(std::move(call));
	return answer.wait(timeout);
}

Result<void> SharedClient::upWithPassphrase(const std::string &name, const Secret &passphrase,
					    std::chrono::milliseconds timeout)
{
	Answer<void> answer;
	Call call = managerCall("UpWithPassphrase", name, timeout);
	/* A copy the call owns (std::function copies what it holds: share, never duplicate). */
	auto bytes = std::make_shared<const Secret>(passphrase.view());
	call.append = [name, bytes](sd_bus_message *m) {
		int r = sd_bus_message_sensitive(m);
		if (r >= 0)
			r = sd_bus_message_append(m, "s", name.c_str());
		if (r >= 0)
			r = sd_bus_message_append_array(m, 'y', bytes->data(), bytes->size());
		if (r >= 0)
			r = sd_bus_message_append(m, "b", 1);
		return r;
	};
	call.done = answerVoid(answer.promise);
	loop_->submit(std::move(call));
	return answer.wait(timeout);
}

Result<void> SharedClient::reconcile(const std::string &name, std::chrono::milliseconds timeout)
{
	Answer<void> answer;
	Call call = managerCall("Reconcile", name, timeout);
	call.append = [name](sd_bus_message *m) {
		return sd_bus_message_append(m, "s", name.c_str());
	};
	call.done = answerVoid(answer.promise);
	loop_->submit(std::move(call));
	return answer.wait(timeout);
}

Result<std::optional<VolumeProperties>> SharedClient::volume(const std::string &name,
							     std::chrono::milliseconds timeout)
{
	using Found = std::optional<VolumeProperties>;
	Answer<Found> answer;
	auto promise = answer.promise;
	/* Fails the call, or finds no volume when the daemon knows none of that name. */
	const auto failed = [promise](const Error &error) {
		promise->set_value(error.code == Errc::NotFound
					   ? Result<Found>(Found{})
					   : Result<Found>(tl::make_unexpected(error)));
	};
	Call properties;
	properties.interface = PropertiesInterface;
	properties.member = "GetAll";
	properties.append = [](sd_bus_message *m) {
		return sd_bus_message_append(m, "s", VolumeInterface);
	};
	properties.done = [promise, failed](sd_bus_message *reply, const Error *error) {
		if (error != nullptr)
			return failed(*error);
		if (auto outcome = replyOutcome(reply); !outcome)
			return failed(outcome.error());
		auto read = readVolumeProperties(reply);
		if (!read)
			return failed(read.error());
		promise->set_value(Found{ std::move(*read) });
	};

	Call lookup = managerCall("GetVolume", name, timeout);
	lookup.append = [name](sd_bus_message *m) {
		return sd_bus_message_append(m, "s", name.c_str());
	};
	/* The properties next, from the loop's thread, in what is left of the time. */
	lookup.done = [loop = loop_.get(), failed, properties = std::move(properties),
		       deadline = lookup.deadline, timeout,
		       name](sd_bus_message *reply, const Error *error) mutable {
		if (error != nullptr)
			return failed(*error);
		if (auto outcome = replyOutcome(reply); !outcome)
			return failed(outcome.error());
		const char *path = nullptr;
		if (sd_bus_message_read(reply, "o", &path) <= 0 || path == nullptr)
			return failed(Error{
				Errc::Unsupported,
				"cannot read the volume's object path from rbd-volumed", 0 });
		properties.path = path;
		properties.deadline = deadline;
		properties.timeout = timeout;
		properties.volume = name;
		loop->send(std::move(properties));
	};
	loop_->submit(std::move(lookup));
	return answer.wait(timeout);
}

Result<std::vector<VolumeSummary>> SharedClient::listVolumes(std::chrono::milliseconds timeout)
{
	Answer<std::vector<VolumeSummary>> answer;
	Call call = managerCall("ListVolumes", "", timeout);
	call.done = [promise = answer.promise](sd_bus_message *reply, const Error *error) {
		if (error != nullptr)
			return promise->set_value(tl::make_unexpected(*error));
		if (auto outcome = replyOutcome(reply); !outcome)
			return promise->set_value(tl::make_unexpected(outcome.error()));
		promise->set_value(readVolumeList(reply));
	};
	loop_->submit(std::move(call));
	return answer.wait(timeout);
}

} /* namespace rbdvolume::bus */
