/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A fake rbd-volumed on a bus: org.rbdvolume1 with canned volumes, on its own sd-event thread. */
#include "fake_manager.hpp"

#include <cstdlib>
#include <future>
#include <optional>
#include <string_view>
#include <unistd.h>

#include <sys/epoll.h>
#include <sys/eventfd.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "bus/names.hpp"
#include "common/sd_ptr.hpp"

namespace rbdvolume::testing {

namespace {

constexpr uint64_t StepUsec = 20000;
/* sd-event coalesces timers within 250 ms unless told otherwise. */
constexpr uint64_t TimerAccuracyUsec = 1000;

struct FakeVolume {
	bus::VolumeProperties view;
	std::string path;
};

} /* namespace */

struct FakeManager::Server {
	FakeManager *owner = nullptr;
	std::vector<std::unique_ptr<FakeVolume>> volumes;
	EventPtr event;
	BusPtr bus;
	std::vector<SlotPtr> slots;
	SourcePtr stopSource;

	/* A change call being answered step by step. */
	struct PendingReply {
		Server *server = nullptr;
		MessagePtr call;
		ReplyPlan plan;
		size_t step = 0;
		bool delayed = false;
		SourcePtr timer;
	};
	std::vector<std::unique_ptr<PendingReply>> pending;

	FakeVolume *find(std::string_view name)
	{
		for (const auto &volume : volumes) {
			if (volume->view.name == name)
				return volume.get();
		}
		return nullptr;
	}

	/* Records a change call; the plan for answering it, if the test made one. */
	std::optional<ReplyPlan> record(const std::string &call, const std::string &member,
					const std::string &name) const
	{
		const std::lock_guard lock(owner->mutex_);
		owner->calls_.push_back(call);
		const auto found = owner->plans_.find({ member, name });
		if (found == owner->plans_.end())
			return std::nullopt;
		ReplyPlan plan = found->second;
		if (plan.once)
			owner->plans_.erase(found);
		return plan;
	}

	std::string setUp(const std::string &address, int stopFd);
	void tearDown();
};

namespace {

using Server = FakeManager::Server;

int appendVolumeProperty(sd_bus_message *reply, std::string_view property,
			 const bus::VolumeProperties &view)
{
	if (property == "Name")
		return sd_bus_message_append(reply, "s", view.name.c_str());
	if (property == "SpecFile")
		return sd_bus_message_append(reply, "s", view.specFile.c_str());
	if (property == "Intent")
		return sd_bus_message_append(reply, "s", view.intent.c_str());
	if (property == "Phase")
		return sd_bus_message_append(reply, "s", bus::phaseName(view.phase));
	if (property == "Stage")
		return sd_bus_message_append(reply, "s", bus::stageName(view.stage));
	if (property == "Busy")
		return sd_bus_message_append(reply, "b", static_cast<int>(view.busy));
	if (property == "Activity")
		return sd_bus_message_append(reply, "s", view.activity.c_str());
	if (property == "Device")
		return sd_bus_message_append(reply, "s", view.device.c_str());
	if (property == "StagingPath")
		return sd_bus_message_append(reply, "s", view.stagingPath.c_str());
	if (property == "Generation")
		return sd_bus_message_append(reply, "t", view.generation);
	if (property == "ObservedGeneration")
		return sd_bus_message_append(reply, "t", view.observedGeneration);
	if (property == "LastError")
		return sd_bus_message_append(reply, "(ss)", view.lastErrorName.c_str(),
					     view.lastErrorMessage.c_str());
	if (property == "FutureProperty") /* one the client does not know: it must skip it */
		return sd_bus_message_append(reply, "a{su}", 1, "answer", 42U);
	int r = 0;
	if (property == "PublishTargets") {
		r = sd_bus_message_open_container(reply, 'a', "s");
		for (const std::string &target : view.publishTargets) {
			if (r >= 0)
				r = sd_bus_message_append(reply, "s", target.c_str());
		}
		return r < 0 ? r : sd_bus_message_close_container(reply);
	}
	if (property == "Conditions") {
		r = sd_bus_message_open_container(reply, 'a', "(ss)");
		for (const bus::Condition &condition : view.conditions) {
			if (r >= 0)
				r = sd_bus_message_append(reply, "(ss)", condition.type.c_str(),
							  condition.message.c_str());
		}
		return r < 0 ? r : sd_bus_message_close_container(reply);
	}
	return -ENOENT;
}

int getVolumeProperty(sd_bus * /*bus*/, const char * /*path*/, const char * /*interface*/,
		      const char *property, sd_bus_message *reply, void *userdata,
		      sd_bus_error * /*error*/)
{
	return appendVolumeProperty(reply, property, static_cast<FakeVolume *>(userdata)->view);
}

const sd_bus_vtable VolumeVtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("Name", "s", getVolumeProperty, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("SpecFile", "s", getVolumeProperty, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("Intent", "s", getVolumeProperty, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("Phase", "s", getVolumeProperty, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("Stage", "s", getVolumeProperty, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("Busy", "b", getVolumeProperty, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("Activity", "s", getVolumeProperty, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("Device", "s", getVolumeProperty, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("StagingPath", "s", getVolumeProperty, 0,
			SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("PublishTargets", "as", getVolumeProperty, 0,
			SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("Conditions", "a(ss)", getVolumeProperty, 0,
			SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("LastError", "(ss)", getVolumeProperty, 0,
			SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("Generation", "t", getVolumeProperty, 0,
			SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("ObservedGeneration", "t", getVolumeProperty, 0,
			SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("FutureProperty", "a{su}", getVolumeProperty, 0,
			SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_VTABLE_END,
};

int replyNoSuchVolume(sd_bus_message *call, const std::string &name)
{
	return sd_bus_reply_method_errorf(call, "org.rbdvolume1.Error.NoSuchVolume",
					  "no volume named '%s'", name.c_str());
}

int onListVolumes(sd_bus_message *call, void *userdata, sd_bus_error * /*error*/)
{
	auto *server = static_cast<Server *>(userdata);
	sd_bus_message *raw = nullptr;
	int r = sd_bus_message_new_method_return(call, &raw);
	const MessagePtr reply(raw);
	if (r < 0)
		return r;
	r = sd_bus_message_open_container(reply.get(), 'a', "(ssso)");
	for (const auto &volume : server->volumes) {
		if (r >= 0)
			r = sd_bus_message_append(reply.get(), "(ssso)", volume->view.name.c_str(),
						  volume->view.intent.c_str(),
						  bus::phaseName(volume->view.phase),
						  volume->path.c_str());
	}
	if (r >= 0)
		r = sd_bus_message_close_container(reply.get());
	return r < 0 ? r : sd_bus_send(nullptr, reply.get(), nullptr);
}

int onGetVolume(sd_bus_message *call, void *userdata, sd_bus_error * /*error*/)
{
	auto *server = static_cast<Server *>(userdata);
	const char *name = nullptr;
	const int r = sd_bus_message_read(call, "s", &name);
	if (r < 0)
		return r;
	const FakeVolume *volume = server->find(name);
	if (volume == nullptr)
		return replyNoSuchVolume(call, name);
	return sd_bus_reply_method_return(call, "o", volume->path.c_str());
}

/* Sets a volume's Activity (and Busy) and announces it, as the daemon does during a pass. */
void setActivity(Server &server, const std::string &name, const std::string &activity)
{
	FakeVolume *volume = server.find(name);
	if (volume == nullptr)
		return;
	volume->view.activity = activity;
	volume->view.busy = !activity.empty();
	if (activity.empty())
		sd_bus_emit_properties_changed(server.bus.get(), volume->path.c_str(),
					       bus::VolumeInterface, "Activity", "Busy", "Phase",
					       nullptr);
	else
		sd_bus_emit_properties_changed(server.bus.get(), volume->path.c_str(),
					       bus::VolumeInterface, "Activity", "Busy", nullptr);
}

int onStep(sd_event_source *source, uint64_t /*usec*/, void *userdata)
{
	auto *pending = static_cast<Server::PendingReply *>(userdata);
	const ReplyPlan &plan = pending->plan;
	if (pending->step < plan.activities.size()) {
		const auto &[name, activity] = plan.activities[pending->step++];
		setActivity(*pending->server, name, activity);
		sd_event_source_set_time_relative(source, StepUsec);
		return sd_event_source_set_enabled(source, SD_EVENT_ONESHOT);
	}
	if (plan.neverReply)
		return 0;
	if (plan.replyDelayUsec > 0 && !pending->delayed) {
		pending->delayed = true;
		sd_event_source_set_time_relative(source, plan.replyDelayUsec);
		return sd_event_source_set_enabled(source, SD_EVENT_ONESHOT);
	}
	if (plan.errorName.empty())
		return sd_bus_reply_method_return(pending->call.get(), "");
	return sd_bus_reply_method_errorf(pending->call.get(), plan.errorName.c_str(), "%s",
					  plan.errorMessage.c_str());
}

/* Up, UpWithPassphrase, Down, Reconcile and Reload: recorded, then answered as planned (by default: at once). */
int onChange(sd_bus_message *call, void *userdata, sd_bus_error * /*error*/)
{
	auto *server = static_cast<Server *>(userdata);
	const std::string member = sd_bus_message_get_member(call);
	const char *name = "";
	int wait = 0;
	int r = 0;
	std::string record = member;
	if (member == "Up" || member == "Down") {
		r = sd_bus_message_read(call, "sb", &name, &wait);
		record += std::string(" ") + name + (wait != 0 ? " wait" : " nowait");
	} else if (member == "UpWithPassphrase") {
		const void *bytes = nullptr;
		size_t size = 0;
		r = sd_bus_message_read(call, "s", &name);
		if (r >= 0)
			r = sd_bus_message_read_array(call, 'y', &bytes, &size);
		if (r >= 0)
			r = sd_bus_message_read(call, "b", &wait);
		/* The passphrase too: a test checks what arrived. */
		if (r >= 0)
			record += std::string(" ") + name + (wait != 0 ? " wait " : " nowait ") +
				  std::string(static_cast<const char *>(bytes), size);
	} else if (member == "Reconcile") {
		r = sd_bus_message_read(call, "s", &name);
		record += *name == '\0' ? std::string(" (all)") : std::string(" ") + name;
	}
	if (r < 0)
		return r;

	std::optional<ReplyPlan> plan = server->record(record, member, name);
	if (!plan) {
		if (member != "Reload" && *name != '\0' && server->find(name) == nullptr)
			return replyNoSuchVolume(call, name);
		return sd_bus_reply_method_return(call, "");
	}

	auto pending = std::make_unique<Server::PendingReply>();
	pending->server = server;
	pending->call.reset(sd_bus_message_ref(call));
	pending->plan = std::move(*plan);
	/* A change of Phase alone first: no Activity in it, so nothing is printed for it. */
	if (const FakeVolume *volume = server->find(name); volume != nullptr)
		sd_bus_emit_properties_changed(server->bus.get(), volume->path.c_str(),
					       bus::VolumeInterface, "Phase", nullptr);
	sd_event_source *timer = nullptr;
	r = sd_event_add_time_relative(server->event.get(), &timer, CLOCK_MONOTONIC, StepUsec,
				       TimerAccuracyUsec, onStep, pending.get());
	pending->timer.reset(timer);
	if (r < 0)
		return r;
	server->pending.push_back(std::move(pending));
	return 1;
}

const sd_bus_vtable ManagerVtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD("ListVolumes", "", "a(ssso)", onListVolumes, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("GetVolume", "s", "o", onGetVolume, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Up", "sb", "", onChange, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("UpWithPassphrase", "sayb", "", onChange, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Down", "sb", "", onChange, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Reconcile", "s", "", onChange, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Reload", "", "", onChange, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_VTABLE_END,
};

int onStop(sd_event_source *source, int /*fd*/, uint32_t /*revents*/, void * /*userdata*/)
{
	return sd_event_exit(sd_event_source_get_event(source), 0);
}

std::string failed(const std::string &what, int r)
{
	return what + " failed: errno " + std::to_string(-r);
}

} /* namespace */

std::string FakeManager::Server::setUp(const std::string &address, int stopFd)
{
	sd_event *rawEvent = nullptr;
	int r = sd_event_new(&rawEvent);
	event.reset(rawEvent);
	if (r < 0)
		return failed("sd_event_new", r);
	sd_bus *rawBus = nullptr;
	r = sd_bus_new(&rawBus);
	bus.reset(rawBus);
	if (r < 0)
		return failed("sd_bus_new", r);
	if ((r = sd_bus_set_address(bus.get(), address.c_str())) < 0 ||
	    (r = sd_bus_set_bus_client(bus.get(), 1)) < 0 || (r = sd_bus_start(bus.get())) < 0)
		return failed("connecting to " + address, r);
	if ((r = sd_bus_attach_event(bus.get(), event.get(), SD_EVENT_PRIORITY_NORMAL)) < 0)
		return failed("sd_bus_attach_event", r);

	sd_bus_slot *slot = nullptr;
	r = sd_bus_add_object_vtable(bus.get(), &slot, bus::ManagerPath, bus::ManagerInterface,
				     ManagerVtable, this);
	slots.emplace_back(slot);
	if (r < 0)
		return failed("adding the manager", r);
	for (const auto &volume : volumes) {
		char *raw = nullptr;
		r = sd_bus_path_encode(bus::VolumePathPrefix, volume->view.name.c_str(), &raw);
		const Malloced<char> path(raw);
		if (r < 0)
			return failed("sd_bus_path_encode", r);
		volume->path = path.get();
		slot = nullptr;
		r = sd_bus_add_object_vtable(bus.get(), &slot, volume->path.c_str(),
					     bus::VolumeInterface, VolumeVtable, volume.get());
		slots.emplace_back(slot);
		if (r < 0)
			return failed("adding volume " + volume->view.name, r);
	}
	sd_event_source *source = nullptr;
	r = sd_event_add_io(event.get(), &source, stopFd, EPOLLIN, onStop, nullptr);
	stopSource.reset(source);
	if (r < 0)
		return failed("sd_event_add_io", r);
	if ((r = sd_bus_request_name(bus.get(), bus::ServiceName, 0)) < 0)
		return failed("owning org.rbdvolume1", r);
	return {};
}

void FakeManager::Server::tearDown()
{
	pending.clear();
	stopSource.reset();
	slots.clear();
	if (bus)
		sd_bus_detach_event(bus.get());
	bus.reset();
	event.reset();
}

FakeManager::FakeManager(std::vector<bus::VolumeProperties> volumes)
	: server_(std::make_unique<Server>())
{
	server_->owner = this;
	for (bus::VolumeProperties &view : volumes)
		server_->volumes.push_back(
			std::make_unique<FakeVolume>(FakeVolume{ std::move(view), {} }));
}

FakeManager::~FakeManager()
{
	if (thread_.joinable()) {
		const uint64_t one = 1;
		if (::write(stopFd_.get(), &one, sizeof(one)) < 0) {
			/* The thread cannot be told to stop; joining would hang. */
			std::abort();
		}
		thread_.join();
	}
}

std::string FakeManager::start(const std::string &address)
{
	stopFd_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
	if (!stopFd_.valid())
		return "eventfd failed";
	std::promise<std::string> ready;
	std::future<std::string> readyFuture = ready.get_future();
	thread_ = std::thread([this, address, ready = std::move(ready)]() mutable {
		const std::string problem = server_->setUp(address, stopFd_.get());
		const bool serving = problem.empty();
		ready.set_value(problem);
		if (serving)
			sd_event_loop(server_->event.get());
		server_->tearDown();
	});
	std::string problem = readyFuture.get();
	if (!problem.empty())
		thread_.join();
	return problem;
}

void FakeManager::plan(const std::string &member, const std::string &name, ReplyPlan reply)
{
	const std::lock_guard lock(mutex_);
	plans_[{ member, name }] = std::move(reply);
}

std::vector<std::string> FakeManager::calls() const
{
	const std::lock_guard lock(mutex_);
	return calls_;
}

void FakeManager::clearCalls()
{
	const std::lock_guard lock(mutex_);
	calls_.clear();
	plans_.clear();
}

} /* namespace rbdvolume::testing */
