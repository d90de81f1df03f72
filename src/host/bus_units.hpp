/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * BusUnits: the mapper units started, stopped and reloaded by asking PID 1
 * over its private socket, the way systemctl does as root, without a
 * systemctl process per call: fifty volumes coming up made a hundred of
 * them, each a fork, an exec and a connection. A caller that is not root
 * (the dry run of an operator's shell) reads unit states over the system
 * bus instead, as systemctl does for it.
 */
#pragma once

#include <chrono>
#include <string>

#include "host/unit_control.hpp"

namespace rbdvolume {

class BusUnits : public UnitControl
{
public:
	/* systemd's own socket for root's clients: no bus daemon in between. */
	static constexpr const char *PrivateAddress = "unix:path=/run/systemd/private";

	/* The system bus's socket: the bus daemon in between, systemd one of its names. */
	static constexpr const char *SystemBusAddress = "unix:path=/run/dbus/system_bus_socket";

	/* With busClient, `address` is a bus daemon's, systemd answering there by its name. */
	explicit BusUnits(std::chrono::milliseconds timeout = std::chrono::seconds(90),
			  std::string address = PrivateAddress, bool busClient = false)
		: timeout_(timeout), address_(std::move(address)), busClient_(busClient)
	{
	}
	/* As systemctl picks: PID 1's own socket for root, the system bus for anyone else. */
	static BusUnits forThisUser(std::chrono::milliseconds timeout);

	/* Each waits for its job's end (JobRemoved), as `systemctl start` does, up to the timeout. */
	Result<void> start(const std::string &templateName, const std::string &instance) override;
	Result<void> stop(const std::string &templateName, const std::string &instance) override;
	/* Waits ReloadTimeout at most: a reload stuck on its server goes on without us. */
	Result<void> reload(const std::string &templateName, const std::string &instance) override;
	Result<std::string> activeState(const std::string &templateName,
					const std::string &instance) override;
	Result<std::string> result(const std::string &templateName,
				   const std::string &instance) override;
	/* Its SubState: "auto-restart" while it waits out RestartSec= to start again. */
	Result<std::string> subState(const std::string &templateName, const std::string &instance);

private:
	Result<void> runJob(const char *method, const std::string &unit,
			    std::chrono::milliseconds timeout);

	std::chrono::milliseconds timeout_;
	std::string address_;
	bool busClient_;
};

} /* namespace rbdvolume */
