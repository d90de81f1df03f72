/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* BusApi over a socketpair: the daemon's end a bus server, the test's a client, one loop. */
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "daemon/bus_api.hpp"
#include "daemon_rig.hpp"

namespace rbdvolume::testing {

/* A reply to one asynchronous call. */
struct BusReply {
	bool done = false;
	std::string errorName; /* "" for a method return */
	std::string errorMessage;
	MessagePtr message;
	SlotPtr slot; /* the pending call; dropping it cancels the call */
};

/* One property value as a test compares it: its signature and its value in words. */
struct BusValue {
	std::string type;
	std::string text; /* strings as they are, b as true/false, t in decimal, else "" */
};
using BusProperties = std::map<std::string, BusValue>;

/* A signal the client received. */
struct BusSignal {
	std::string member; /* PropertiesChanged, InterfacesAdded, InterfacesRemoved */
	std::string path;   /* the object it is about */
	std::string interface;
	BusProperties changed;		     /* PropertiesChanged */
	std::vector<std::string> interfaces; /* InterfacesAdded, InterfacesRemoved */
};

/* Reads an a{sv}; false when the message does not hold one. */
bool readProperties(sd_bus_message *message, BusProperties &properties);

class BusRig
{
public:
	/*
	 * `asNobody`: the socketpair is made with euid 65534 when the test runs
	 * as root, so the daemon sees a caller that is not root (SO_PEERCRED).
	 */
	explicit BusRig(bool asNobody = false);
	~BusRig();
	BusRig(const BusRig &) = delete;
	BusRig &operator=(const BusRig &) = delete;
	BusRig(BusRig &&) = delete;
	BusRig &operator=(BusRig &&) = delete;

	/* Both ends connected, the API attached, the reconciler ready. */
	bool start();

	template<typename... Args>
	std::shared_ptr<BusReply> call(const std::string &path, const char *interface,
				       const char *member, const char *types, Args... args)
	{
		auto reply = std::make_shared<BusReply>();
		sd_bus_slot *slot = nullptr;
		const int r = sd_bus_call_method_async(client.get(), &slot, nullptr, path.c_str(),
						       interface, member, onReply, reply.get(),
						       types, args...);
		noteCall(r, member, *reply);
		reply->slot.reset(slot);
		return reply;
	}
	template<typename... Args>
	std::shared_ptr<BusReply> callManager(const char *member, const char *types, Args... args)
	{
		return call(bus::ManagerPath, bus::ManagerInterface, member, types, args...);
	}
	/* Runs the loop until the reply is in; false (a test failure) on timeout. */
	bool wait(const std::shared_ptr<BusReply> &reply, const std::string &what);
	template<typename... Args>
	std::shared_ptr<BusReply> callManagerAndWait(const char *member, const char *types,
						     Args... args)
	{
		auto reply = callManager(member, types, args...);
		(void)wait(reply, member);
		return reply;
	}

	/* Properties.GetAll of `interface` at `path`; empty on failure. */
	BusProperties getAll(const std::string &path, const char *interface);
	/* Introspect of `path`; "" on failure. */
	std::string introspect(const std::string &path);

	/* The signals received about `path` named `member`. */
	std::vector<BusSignal> signalsOf(const std::string &member, const std::string &path) const;

	ReconcilerRig rig;
	GivenPassphrases passphrases;
	BusPtr server;
	BusPtr client;
	std::unique_ptr<daemon::BusApi> api;
	std::vector<BusSignal> signals;

private:
	static int onReply(sd_bus_message *message, void *userdata, sd_bus_error *error);
	static int onSignal(sd_bus_message *message, void *userdata, sd_bus_error *error);
	static void noteCall(int r, const char *member, BusReply &reply);

	SlotPtr match_;
};

} /* namespace rbdvolume::testing */
