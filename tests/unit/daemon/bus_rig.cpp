/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* BusApi over a socketpair: the daemon's end a bus server, the test's a client, one loop. */
#include "bus_rig.hpp"

#include <cerrno>
#include <cstdlib>
#include <unistd.h>

#include <sys/socket.h>

#include <gtest/gtest.h>

#include "common/errno_text.hpp"

namespace rbdvolume::testing {

namespace {

constexpr uid_t NobodyUid = 65534;

bool check(int r, const char *what)
{
	if (r >= 0)
		return true;
	ADD_FAILURE() << what << ": " << errnoText(-r);
	return false;
}

/* Reads an "as" (sd-bus allocates it with malloc). */
bool readStrings(sd_bus_message *message, std::vector<std::string> &strings)
{
	char **raw = nullptr;
	if (sd_bus_message_read_strv(message, &raw) < 0)
		return false;
	const Malloced<char *> values(raw);
	for (char **value = raw; value != nullptr && *value != nullptr; value++) {
		const Malloced<char> owned(*value);
		strings.emplace_back(owned.get());
	}
	return true;
}

/* Reads the value of the variant the message is in, as BusValue::text spells it. */
bool readValue(sd_bus_message *message, const std::string &type, std::string &text)
{
	if (type == "s" || type == "o") {
		const char *value = nullptr;
		if (sd_bus_message_read_basic(message, type[0], &value) < 0)
			return false;
		text = value;
		return true;
	}
	if (type == "b") {
		int value = 0;
		if (sd_bus_message_read_basic(message, 'b', &value) < 0)
			return false;
		text = value != 0 ? "true" : "false";
		return true;
	}
	if (type == "t") {
		uint64_t value = 0;
		if (sd_bus_message_read_basic(message, 't', &value) < 0)
			return false;
		text = std::to_string(value);
		return true;
	}
	if (type == "as") {
		std::vector<std::string> values;
		if (!readStrings(message, values))
			return false;
		for (const std::string &value : values)
			text += (text.empty() ? "" : ",") + value;
		return true;
	}
	if (type == "(ss)") {
		const char *first = nullptr;
		const char *second = nullptr;
		if (sd_bus_message_read(message, "(ss)", &first, &second) < 0)
			return false;
		text = std::string(first) + "|" + second;
		return true;
	}
	if (type == "a(ss)") {
		if (sd_bus_message_enter_container(message, 'a', "(ss)") < 0)
			return false;
		const char *first = nullptr;
		const char *second = nullptr;
		int r = 0;
		while ((r = sd_bus_message_read(message, "(ss)", &first, &second)) > 0)
			text += (text.empty() ? "" : ";") + std::string(first) + "|" + second;
		return r >= 0 && sd_bus_message_exit_container(message) >= 0;
	}
	return sd_bus_message_skip(message, type.c_str()) >= 0;
}

} /* namespace */

bool readProperties(sd_bus_message *message, BusProperties &properties)
{
	if (sd_bus_message_enter_container(message, 'a', "{sv}") < 0)
		return false;
	for (;;) {
		const int r = sd_bus_message_enter_container(message, 'e', "sv");
		if (r < 0)
			return false;
		if (r == 0)
			break;
		const char *name = nullptr;
		if (sd_bus_message_read(message, "s", &name) < 0)
			return false;
		char kind = 0;
		const char *contents = nullptr;
		if (sd_bus_message_peek_type(message, &kind, &contents) < 0 || kind != 'v' ||
		    contents == nullptr)
			return false;
		BusValue value{ contents, "" };
		if (sd_bus_message_enter_container(message, 'v', contents) < 0 ||
		    !readValue(message, value.type, value.text) ||
		    sd_bus_message_exit_container(message) < 0 ||
		    sd_bus_message_exit_container(message) < 0)
			return false;
		properties[name] = value;
	}
	return sd_bus_message_exit_container(message) >= 0;
}

BusRig::BusRig(bool asNobody)
{
	int fds[2] = { -1, -1 };
	const bool drop = asNobody && geteuid() == 0;
	if (drop && seteuid(NobodyUid) < 0)
		ADD_FAILURE() << "seteuid(" << NobodyUid << "): " << errnoText(errno);
	const int paired = socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, fds);
	const int pairErrno = errno;
	if (drop && seteuid(0) < 0)
		ADD_FAILURE() << "seteuid(0): " << errnoText(errno);
	if (paired < 0) {
		ADD_FAILURE() << "socketpair: " << errnoText(pairErrno);
		return;
	}

	sd_bus *bus = nullptr;
	sd_id128_t id{};
	if (!check(sd_bus_new(&bus), "sd_bus_new"))
		return;
	server.reset(bus);
	(void)check(sd_id128_randomize(&id), "sd_id128_randomize");
	(void)check(sd_bus_set_fd(bus, fds[0], fds[0]), "sd_bus_set_fd");
	(void)check(sd_bus_set_server(bus, 1, id), "sd_bus_set_server");
	/* The client authenticates with its real uid; the socket's creds are what count. */
	(void)check(sd_bus_set_anonymous(bus, 1), "sd_bus_set_anonymous");

	if (!check(sd_bus_new(&bus), "sd_bus_new"))
		return;
	client.reset(bus);
	(void)check(sd_bus_set_fd(bus, fds[1], fds[1]), "sd_bus_set_fd");

	api = std::make_unique<daemon::BusApi>(server.get(), rig.loop.get(), *rig.reconciler,
					       passphrases);
	rig.reconciler->setListener(api.get());
}

BusRig::~BusRig()
{
	rig.world.release();
	rig.pool.reset();
	if (rig.reconciler)
		rig.reconciler->setListener(nullptr);
}

bool BusRig::start()
{
	if (!server || !client || !api)
		return false;
	if (!check(sd_bus_attach_event(server.get(), rig.loop.get(), SD_EVENT_PRIORITY_NORMAL),
		   "attach the server") ||
	    !check(sd_bus_attach_event(client.get(), rig.loop.get(), SD_EVENT_PRIORITY_NORMAL),
		   "attach the client"))
		return false;
	if (auto attached = api->attach(); !attached) {
		ADD_FAILURE() << attached.error().message;
		return false;
	}
	if (!check(sd_bus_start(server.get()), "start the server") ||
	    !check(sd_bus_start(client.get()), "start the client"))
		return false;
	sd_bus_slot *slot = nullptr;
	if (!check(sd_bus_match_signal(client.get(), &slot, nullptr, nullptr, nullptr, nullptr,
				       onSignal, this),
		   "match signals"))
		return false;
	match_.reset(slot);
	return rig.start();
}

void BusRig::noteCall(int r, const char *member, BusReply &reply)
{
	if (r >= 0)
		return;
	ADD_FAILURE() << "cannot call " << member << ": " << errnoText(-r);
	reply.done = true;
	reply.errorName = "(not sent)";
}

int BusRig::onReply(sd_bus_message *message, void *userdata, sd_bus_error * /*error*/)
{
	auto &reply = *static_cast<BusReply *>(userdata);
	reply.done = true;
	reply.message.reset(sd_bus_message_ref(message));
	if (const sd_bus_error *error = sd_bus_message_get_error(message)) {
		reply.errorName = error->name != nullptr ? error->name : "";
		reply.errorMessage = error->message != nullptr ? error->message : "";
	}
	return 0;
}

int BusRig::onSignal(sd_bus_message *message, void *userdata, sd_bus_error * /*error*/)
{
	auto &rig = *static_cast<BusRig *>(userdata);
	BusSignal signal;
	const char *member = sd_bus_message_get_member(message);
	signal.member = member != nullptr ? member : "";
	const char *path = nullptr;
	const char *interface = nullptr;
	bool ok = true;
	if (signal.member == "PropertiesChanged") {
		signal.path = sd_bus_message_get_path(message);
		ok = sd_bus_message_read(message, "s", &interface) >= 0 &&
		     readProperties(message, signal.changed);
		signal.interface = interface != nullptr ? interface : "";
	} else if (signal.member == "InterfacesAdded") {
		ok = sd_bus_message_read(message, "o", &path) >= 0 &&
		     sd_bus_message_enter_container(message, 'a', "{sa{sv}}") >= 0;
		while (ok) {
			const int r = sd_bus_message_enter_container(message, 'e', "sa{sv}");
			if (r <= 0) {
				ok = r == 0;
				break;
			}
			BusProperties ignored;
			ok = sd_bus_message_read(message, "s", &interface) >= 0 &&
			     readProperties(message, ignored) &&
			     sd_bus_message_exit_container(message) >= 0;
			if (ok)
				signal.interfaces.emplace_back(interface);
		}
		signal.path = path != nullptr ? path : "";
	} else if (signal.member == "InterfacesRemoved") {
		ok = sd_bus_message_read(message, "o", &path) >= 0 &&
		     readStrings(message, signal.interfaces);
		signal.path = path != nullptr ? path : "";
	} else {
		return 0;
	}
	if (!ok)
		ADD_FAILURE() << "cannot read a " << signal.member << " signal";
	rig.signals.push_back(std::move(signal));
	return 0;
}

bool BusRig::wait(const std::shared_ptr<BusReply> &reply, const std::string &what)
{
	return rig.loop.runUntil([&] { return reply->done; }, "the reply to " + what);
}

BusProperties BusRig::getAll(const std::string &path, const char *interface)
{
	auto reply = call(path, "org.freedesktop.DBus.Properties", "GetAll", "s", interface);
	BusProperties properties;
	if (!wait(reply, std::string("GetAll ") + interface))
		return properties;
	if (!reply->errorName.empty()) {
		ADD_FAILURE() << "GetAll " << interface << " at " << path << ": "
			      << reply->errorName << ": " << reply->errorMessage;
		return properties;
	}
	if (!readProperties(reply->message.get(), properties))
		ADD_FAILURE() << "cannot read the properties of " << path;
	return properties;
}

std::string BusRig::introspect(const std::string &path)
{
	auto reply = call(path, "org.freedesktop.DBus.Introspectable", "Introspect", "");
	if (!wait(reply, "Introspect " + path))
		return "";
	const char *xml = nullptr;
	if (!reply->errorName.empty() || sd_bus_message_read(reply->message.get(), "s", &xml) < 0) {
		ADD_FAILURE() << "Introspect " << path << ": " << reply->errorName << " "
			      << reply->errorMessage;
		return "";
	}
	return xml;
}

std::vector<BusSignal> BusRig::signalsOf(const std::string &member, const std::string &path) const
{
	std::vector<BusSignal> found;
	for (const BusSignal &signal : signals) {
		if (signal.member == member && signal.path == path)
			found.push_back(signal);
	}
	return found;
}

} /* namespace rbdvolume::testing */
