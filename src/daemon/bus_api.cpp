/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "daemon/bus_api.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "bus/errors.hpp"
#include "bus/volume_properties.hpp"
#include "common/errno_text.hpp"
#include "journal/log.hpp"

namespace rbdvolume::daemon {

namespace {

constexpr const char *ErrorNoSuchVolume = "org.rbdvolume1.Error.NoSuchVolume";
constexpr const char *ErrorSpecInvalid = "org.rbdvolume1.Error.SpecInvalid";

BusApi &api(void *userdata)
{
	return *static_cast<BusApi *>(userdata);
}

/* The error name for a request the reconciler refused before any work. */
const char *refusalName(const Error &error)
{
	switch (error.code) {
	case Errc::NotFound:
		return ErrorNoSuchVolume;
	case Errc::InvalidArgument:
		return ErrorSpecInvalid;
	default:
		return bus::errorName(error.code);
	}
}

/* A caller is always answered: if the reply itself cannot be sent, a plain error is. */
int replyError(sd_bus_message *message, const char *name, const std::string &text)
{
	const int r = sd_bus_reply_method_errorf(message, name, "%s", bus::busText(text).c_str());
	if (r >= 0)
		return r;
	return sd_bus_reply_method_errorf(message, SD_BUS_ERROR_FAILED,
					  "rbd-volumed could not send its answer: %s",
					  errnoText(-r).c_str());
}

/* Mutations are for root; the bus policy says so too, this holds on any bus. */
int requireRoot(sd_bus_message *message)
{
	if (senderIsRoot(message))
		return 0;
	(void)replyError(message, SD_BUS_ERROR_ACCESS_DENIED,
			 "only root may change volumes; reading status is open to all");
	return -EACCES;
}

/* A reply that comes later: keeps the call's message until the work is over. */
Reconciler::Reply laterReply(sd_bus_message *message)
{
	MessagePtr kept(sd_bus_message_ref(message));
	auto shared = std::make_shared<MessagePtr>(std::move(kept));
	return [shared](const Error *error) {
		sd_bus_message *call = shared->get();
		if (error == nullptr)
			(void)sd_bus_reply_method_return(call, nullptr);
		else
			(void)replyError(call, bus::errorName(error->code), error->message);
	};
}

int methodListVolumes(sd_bus_message *message, void *userdata, sd_bus_error * /*unused*/)
{
	Reconciler &reconciler = api(userdata).reconciler();
	sd_bus_message *reply = nullptr;
	int r = sd_bus_message_new_method_return(message, &reply);
	const MessagePtr owned(reply);
	if (r >= 0)
		r = sd_bus_message_open_container(reply, 'a', "(ssso)");
	for (const std::string &name : reconciler.names()) {
		const VolumeStatus *status = reconciler.status(name);
		if (r >= 0)
			r = sd_bus_message_append(
				reply, "(ssso)", bus::busText(name).c_str(), status->intent.c_str(),
				bus::phaseName(status->phase), bus::volumePath(name).c_str());
	}
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	if (r >= 0)
		r = sd_bus_send(nullptr, reply, nullptr);
	return r;
}

int methodGetVolume(sd_bus_message *message, void *userdata, sd_bus_error * /*unused*/)
{
	const char *name = nullptr;
	if (const int r = sd_bus_message_read(message, "s", &name); r < 0)
		return r;
	if (api(userdata).reconciler().status(name) == nullptr)
		return replyError(message, ErrorNoSuchVolume,
				  std::string("no volume '") + name + "'");
	return sd_bus_reply_method_return(message, "o", bus::volumePath(name).c_str());
}

int methodPlanVolume(sd_bus_message *message, void *userdata, sd_bus_error * /*unused*/)
{
	const char *name = nullptr;
	const char *intentText = nullptr;
	if (const int r = sd_bus_message_read(message, "ss", &name, &intentText); r < 0)
		return r;
	const std::string wanted = intentText;
	const std::optional<Intent> intent = intentFromName(wanted);
	if (!wanted.empty() && !intent)
		return replyError(message, SD_BUS_ERROR_INVALID_ARGS,
				  R"(intent is "", "up" or "down", not ")" + wanted + "\"");
	auto shared = std::make_shared<MessagePtr>(sd_bus_message_ref(message));
	auto started = api(userdata).reconciler().plan(
		name, intent, [shared](const Result<std::string> &plan) {
			if (plan)
				(void)sd_bus_reply_method_return(shared->get(), "s",
								 bus::busText(*plan).c_str());
			else
				(void)replyError(shared->get(), bus::errorName(plan.error().code),
						 plan.error().message);
		});
	if (!started)
		return replyError(message, refusalName(started.error()), started.error().message);
	return 1;
}

int setIntent(sd_bus_message *message, void *userdata, Intent intent)
{
	if (const int r = requireRoot(message); r < 0)
		return 0; /* replied already */
	const char *name = nullptr;
	int wait = 0;
	if (const int r = sd_bus_message_read(message, "sb", &name, &wait); r < 0)
		return r;
	auto accepted = api(userdata).reconciler().setIntent(
		name, intent, wait != 0 ? laterReply(message) : nullptr);
	if (!accepted)
		return replyError(message, refusalName(accepted.error()), accepted.error().message);
	/* A volume on its way down needs no passphrase; the next up brings it again. */
	if (intent == Intent::Down)
		api(userdata).passphrases().forget(name);
	return wait != 0 ? 1 : sd_bus_reply_method_return(message, nullptr);
}

int methodUp(sd_bus_message *message, void *userdata, sd_bus_error * /*unused*/)
{
	return setIntent(message, userdata, Intent::Up);
}

/* The bounds of a keyfile hold for a passphrase given over the bus too. */
constexpr size_t MaxPassphraseBytes = 4096;

int methodUpWithPassphrase(sd_bus_message *message, void *userdata, sd_bus_error * /*unused*/)
{
	if (const int r = requireRoot(message); r < 0)
		return 0;
	const char *name = nullptr;
	const void *bytes = nullptr;
	size_t size = 0;
	int wait = 0;
	int r = sd_bus_message_read(message, "s", &name);
	if (r >= 0)
		r = sd_bus_message_read_array(message, 'y', &bytes, &size);
	if (r >= 0)
		r = sd_bus_message_read(message, "b", &wait);
	if (r < 0)
		return r;
	if (size == 0 || size > MaxPassphraseBytes)
		return replyError(message, SD_BUS_ERROR_INVALID_ARGS,
				  "a passphrase is 1 to " + std::to_string(MaxPassphraseBytes) +
					  " bytes, not " + std::to_string(size));
	/* Given before the intent: the pass it starts may need it at once. */
	GivenPassphrases &passphrases = api(userdata).passphrases();
	auto previous = passphrases.copyOf(name);
	passphrases.give(name, Secret(std::string_view(static_cast<const char *>(bytes), size)));
	auto accepted = api(userdata).reconciler().setIntent(
		name, Intent::Up, wait != 0 ? laterReply(message) : nullptr);
	if (!accepted) {
		/* A refused call changes nothing: what was given before stays. */
		if (previous)
			passphrases.give(name, std::move(*previous));
		else
			passphrases.forget(name);
		return replyError(message, refusalName(accepted.error()), accepted.error().message);
	}
	return wait != 0 ? 1 : sd_bus_reply_method_return(message, nullptr);
}

int methodDown(sd_bus_message *message, void *userdata, sd_bus_error * /*unused*/)
{
	return setIntent(message, userdata, Intent::Down);
}

int methodReconcile(sd_bus_message *message, void *userdata, sd_bus_error * /*unused*/)
{
	if (const int r = requireRoot(message); r < 0)
		return 0;
	const char *name = nullptr;
	if (const int r = sd_bus_message_read(message, "s", &name); r < 0)
		return r;
	auto started = api(userdata).reconciler().reconcile(name, laterReply(message));
	if (!started)
		return replyError(message, refusalName(started.error()), started.error().message);
	return 1;
}

int methodReload(sd_bus_message *message, void *userdata, sd_bus_error * /*unused*/)
{
	if (const int r = requireRoot(message); r < 0)
		return 0;
	api(userdata).reconciler().reload(laterReply(message));
	return 1;
}

/* A PrepareForShutdown call, waiting for PID 1's SystemState; freed with its slot. */
struct ShutdownCheck {
	MessagePtr call;
	BusApi *api;
};

void freeShutdownCheck(void *userdata)
{
	const std::unique_ptr<ShutdownCheck> check(static_cast<ShutdownCheck *>(userdata));
}

/* PID 1 answered (or the bus said it could not): only "stopping" goes on. */
int onSystemState(sd_bus_message *reply, void *userdata, sd_bus_error * /*unused*/)
{
	auto &check = *static_cast<ShutdownCheck *>(userdata);
	const char *state = nullptr;
	if (sd_bus_message_is_method_error(reply, nullptr) ||
	    sd_bus_message_read(reply, "v", "s", &state) < 0 || state == nullptr)
		state = "";
	if (std::string_view(state) != "stopping")
		return replyError(check.call.get(), bus::errorName(Errc::Conflict),
				  "the host is not shutting down (systemd says '" +
					  std::string(*state != '\0' ? state : "nothing") + "')");
	check.api->prepareForShutdown();
	return sd_bus_reply_method_return(check.call.get(), nullptr);
}

/*
 * rbd-volume-shutdown.service, as a shutdown begins. PID 1 must say so too
 * (its SystemState is "stopping"): asked without blocking the loop, the
 * call answered when it has.
 */
int methodPrepareForShutdown(sd_bus_message *message, void *userdata, sd_bus_error * /*unused*/)
{
	if (const int r = requireRoot(message); r < 0)
		return 0;
	auto check = std::make_unique<ShutdownCheck>(
		ShutdownCheck{ MessagePtr(sd_bus_message_ref(message)), &api(userdata) });
	sd_bus_slot *slot = nullptr;
	const int r = sd_bus_call_method_async(
		sd_bus_message_get_bus(message), &slot, "org.freedesktop.systemd1",
		"/org/freedesktop/systemd1", "org.freedesktop.DBus.Properties", "Get",
		onSystemState, check.get(), "ss", "org.freedesktop.systemd1.Manager",
		"SystemState");
	if (r < 0)
		return replyError(message, bus::errorName(Errc::Io),
				  "cannot ask systemd whether the host shuts down: " +
					  errnoText(-r));
	/* The slot owns the check from now on, and frees it with itself. */
	(void)sd_bus_slot_set_destroy_callback(slot, freeShutdownCheck);
	(void)sd_bus_slot_set_userdata(slot, check.release());
	api(userdata).keep(SlotPtr(slot));
	return 1;
}

int propertyVersion(sd_bus * /*bus*/, const char * /*path*/, const char * /*interface*/,
		    const char * /*property*/, sd_bus_message *reply, void * /*userdata*/,
		    sd_bus_error * /*error*/)
{
	return sd_bus_message_append(reply, "s", RBDV_VERSION);
}

int propertySummary(sd_bus * /*bus*/, const char * /*path*/, const char * /*interface*/,
		    const char * /*property*/, sd_bus_message *reply, void *userdata,
		    sd_bus_error * /*error*/)
{
	return sd_bus_message_append(reply, "s",
				     bus::busText(api(userdata).reconciler().summary()).c_str());
}

int propertySurveys(sd_bus * /*bus*/, const char * /*path*/, const char * /*interface*/,
		    const char * /*property*/, sd_bus_message *reply, void *userdata,
		    sd_bus_error * /*error*/)
{
	return sd_bus_message_append(reply, "t", api(userdata).reconciler().surveys());
}

const sd_bus_vtable ManagerVtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD_WITH_ARGS("ListVolumes", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(ssso)", volumes),
				methodListVolumes, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("GetVolume", SD_BUS_ARGS("s", name), SD_BUS_RESULT("o", volume),
				methodGetVolume, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("PlanVolume", SD_BUS_ARGS("s", name, "s", intent),
				SD_BUS_RESULT("s", plan), methodPlanVolume,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Up", SD_BUS_ARGS("s", name, "b", wait), SD_BUS_NO_RESULT, methodUp,
				SD_BUS_VTABLE_UNPRIVILEGED),
	/* Sensitive: sd-bus wipes the call and its reply when it frees them. */
	SD_BUS_METHOD_WITH_ARGS("UpWithPassphrase",
				SD_BUS_ARGS("s", name, "ay", passphrase, "b", wait),
				SD_BUS_NO_RESULT, methodUpWithPassphrase,
				SD_BUS_VTABLE_UNPRIVILEGED | SD_BUS_VTABLE_SENSITIVE),
	SD_BUS_METHOD_WITH_ARGS("Down", SD_BUS_ARGS("s", name, "b", wait), SD_BUS_NO_RESULT,
				methodDown, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Reconcile", SD_BUS_ARGS("s", name), SD_BUS_NO_RESULT,
				methodReconcile, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Reload", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, methodReload,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("PrepareForShutdown", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT,
				methodPrepareForShutdown, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_PROPERTY("Version", "s", propertyVersion, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("Summary", "s", propertySummary, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("Surveys", "t", propertySurveys, 0,
			SD_BUS_VTABLE_PROPERTY_EMITS_INVALIDATION),
	SD_BUS_VTABLE_END,
};

/* The volume of the object a property is read on. */
const VolumeStatus *statusAt(void *userdata, const char *path)
{
	return api(userdata).reconciler().status(bus::volumeName(path));
}

/* Every Volume property: bus::volumeProperties() says how each one is appended. */
int getVolumeProperty(sd_bus * /*bus*/, const char *path, const char * /*interface*/,
		      const char *property, sd_bus_message *reply, void *userdata,
		      sd_bus_error * /*error*/)
{
	const VolumeStatus *status = statusAt(userdata, path);
	if (status == nullptr)
		return -ENOENT;
	for (const bus::VolumeProperty &entry : bus::volumeProperties()) {
		if (std::strcmp(entry.name, property) == 0)
			return entry.append(reply, *status);
	}
	return -ENOENT;
}

/* The Volume interface, one property per row of the table; sd-bus keeps its address. */
const sd_bus_vtable *volumeVtable()
{
	static const std::vector<sd_bus_vtable> vtable = [] {
		std::vector<sd_bus_vtable> entries = { SD_BUS_VTABLE_START(0) };
		for (const bus::VolumeProperty &entry : bus::volumeProperties())
			entries.push_back(SD_BUS_PROPERTY(
				entry.name, entry.signature, getVolumeProperty, 0,
				entry.constant ? SD_BUS_VTABLE_PROPERTY_CONST
					       : SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE));
		entries.push_back(SD_BUS_VTABLE_END);
		return entries;
	}();
	return vtable.data();
}

int findVolume(sd_bus * /*bus*/, const char *path, const char * /*interface*/, void *userdata,
	       void **found, sd_bus_error * /*error*/)
{
	if (api(userdata).reconciler().status(bus::volumeName(path)) == nullptr)
		return 0;
	*found = userdata;
	return 1;
}

int enumerateVolumes(sd_bus * /*bus*/, const char * /*prefix*/, void *userdata, char ***nodes,
		     sd_bus_error * /*error*/)
{
	const std::vector<std::string> names = api(userdata).reconciler().names();
	/* NOLINTNEXTLINE(cppcoreguidelines-no-malloc): sd-bus frees the list */
	auto **list = static_cast<char **>(calloc(names.size() + 1, sizeof(char *)));
	if (list == nullptr)
		return -ENOMEM;
	for (size_t i = 0; i < names.size(); i++)
		list[i] = strdup(bus::volumePath(names[i]).c_str());
	*nodes = list;
	return 0;
}

/* The properties whose values differ between two statuses. */
std::vector<std::string> changedProperties(const VolumeStatus &a, const VolumeStatus &b)
{
	std::vector<std::string> names;
	for (const bus::VolumeProperty &entry : bus::volumeProperties()) {
		if (!entry.constant && entry.differs(a, b))
			names.emplace_back(entry.name);
	}
	return names;
}

} /* namespace */

bool senderIsRoot(sd_bus_message *message)
{
	sd_bus_creds *raw = nullptr;
	int r = message == nullptr
			? -ENXIO
			: sd_bus_query_sender_creds(message,
						    SD_BUS_CREDS_EUID | SD_BUS_CREDS_AUGMENT, &raw);
	const CredsPtr creds(raw);
	uid_t uid = 1;
	if (r >= 0)
		r = sd_bus_creds_get_euid(creds.get(), &uid);
	return r >= 0 && uid == 0;
}

Result<void> BusApi::attach()
{
	/* `slot` is read once the call that sets it ran: an argument could be read before. */
	sd_bus_slot *slot = nullptr;
	const auto add = [this, &slot](int r, const char *what) -> Result<void> {
		if (r < 0)
			return failErrno(std::string("cannot register ") + what, -r);
		slots_.emplace_back(slot);
		return {};
	};
	Result<void> done =
		add(sd_bus_add_object_vtable(bus_, &slot, bus::ManagerPath, bus::ManagerInterface,
					     ManagerVtable, this),
		    "the manager");
	if (done)
		done = add(sd_bus_add_fallback_vtable(bus_, &slot, bus::VolumePathPrefix,
						      bus::VolumeInterface, volumeVtable(),
						      findVolume, this),
			   "the volume objects");
	if (done)
		done = add(sd_bus_add_node_enumerator(bus_, &slot, bus::VolumePathPrefix,
						      enumerateVolumes, this),
			   "the volume enumerator");
	if (done)
		done = add(sd_bus_add_object_manager(bus_, &slot, bus::ManagerPath),
			   "the object manager");
	return done;
}

void BusApi::volumeAdded(const std::string &name)
{
	(void)sd_bus_emit_interfaces_added(bus_, bus::volumePath(name).c_str(),
					   bus::VolumeInterface, nullptr);
	if (const VolumeStatus *status = reconciler_.status(name))
		emitted_[name] = *status;
	scheduleEmit();
}

void BusApi::volumeRemoved(const std::string &name)
{
	(void)sd_bus_emit_interfaces_removed(bus_, bus::volumePath(name).c_str(),
					     bus::VolumeInterface, nullptr);
	emitted_.erase(name);
	changed_.erase(name);
	scheduleEmit();
}

void BusApi::statusChanged(const std::string &name)
{
	changed_.insert(name);
	scheduleEmit();
}

void BusApi::scheduleEmit()
{
	if (auto scheduled = emit_.schedule(); !scheduled)
		log::error(scheduled.error().message);
}

void BusApi::emitChanges()
{
	for (const std::string &name : std::exchange(changed_, {})) {
		const VolumeStatus *status = reconciler_.status(name);
		if (status == nullptr)
			continue;
		std::vector<std::string> names = changedProperties(emitted_[name], *status);
		emitted_[name] = *status;
		if (names.empty())
			continue;
		std::vector<char *> list;
		list.reserve(names.size() + 1);
		for (std::string &property : names)
			list.push_back(property.data());
		list.push_back(nullptr);
		(void)sd_bus_emit_properties_changed_strv(bus_, bus::volumePath(name).c_str(),
							  bus::VolumeInterface, list.data());
	}
	std::string summary = reconciler_.summary();
	if (summary != emittedSummary_) {
		emittedSummary_ = std::move(summary);
		(void)sd_bus_emit_properties_changed(bus_, bus::ManagerPath, bus::ManagerInterface,
						     "Summary", nullptr);
	}
}

} /* namespace rbdvolume::daemon */
