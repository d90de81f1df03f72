/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A client of rbd-volumed: calls on its Manager and volumes, their replies as plain values. */
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bus/property_watch.hpp"
#include "bus/volume_properties.hpp"
#include "common/result.hpp"
#include "common/sd_ptr.hpp"

namespace rbdvolume::bus {

/* How a call that changes something waits for its reply. */
struct WaitSettings {
	uint64_t timeoutSeconds = 0; /* 0: as long as it takes */
	PropertyCallback onActivity; /* each Activity change meanwhile; empty: none */
	std::string volume;	     /* whose Activity; "" for every volume */
	/* Called every `heartbeatEvery` while the call waits; empty or 0: never. */
	std::function<void()> onHeartbeat;
	std::chrono::milliseconds heartbeatEvery{ 0 };
};

/*
 * A connection to the system bus ($DBUS_SYSTEM_BUS_ADDRESS when set), for one
 * thread. Every failure is an Error worded for the operator (errors.hpp).
 * A call that waits runs its own event loop, which closes the connection when
 * it ends (sd-bus does): one Client per waiting call.
 */
class Client
{
public:
	static Result<Client> open();

	/* Manager.ListVolumes, sorted by name. */
	Result<std::vector<VolumeSummary>> listVolumes();

	/* Manager.GetVolume: the object path of volume `name`; `autoStart`: the bus may start the daemon. */
	Result<std::string> volumePath(const std::string &name, bool autoStart = true);

	/* Properties.GetAll of the volume object at `objectPath`. */
	Result<VolumeProperties> volumeProperties(const std::string &objectPath);
	/* listVolumes(), then each one's properties; one removed meanwhile is left out. */
	Result<std::vector<VolumeProperties>> everyVolume();

	/*
	 * Manager.Up / Manager.Down (`member`) of `name`; the daemon waits for
	 * convergence when `wait`. A Down never has the bus start the daemon:
	 * with none running it fails Unreachable, and the caller goes down
	 * without it (see downWithoutDaemon).
	 */
	Result<void> setIntent(const char *member, const std::string &name, bool wait,
			       const WaitSettings &settings);

	/* Manager.Reconcile of `name`, or of every volume when it is "". */
	Result<void> reconcile(const std::string &name, const WaitSettings &settings);

	/* Whether org.rbdvolume1 has an owner now (never starts the daemon). */
	Result<bool> daemonRunning();

	/* Manager.Reload. */
	Result<void> reload(const WaitSettings &settings);

	/*
	 * Hands on each volume's new Phase, and rbd-volumed getting (true) or
	 * losing (false) its name on the bus, until SIGINT or SIGTERM; then
	 * returns, successfully. Never starts the daemon: it waits for one.
	 */
	Result<void> watchPhases(const PropertyCallback &onPhase,
				 const std::function<void(bool running)> &onDaemon);

private:
	explicit Client(BusPtr bus);

	Result<MessagePtr> newManagerCall(const char *member);
	/* Sends `call` and runs an event loop until its reply, the timeout, or a failure. */
	Result<void> callAndWait(sd_bus_message *call, const WaitSettings &settings);
	Result<std::string> daemonUniqueName();

	BusPtr bus_;
};

} /* namespace rbdvolume::bus */
