/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * BusUnits: the mapper units started, stopped and reloaded by asking PID 1
 * over its private socket, the way systemctl does as root, without a
 * systemctl process per call: fifty volumes coming up made a hundred of
 * them, each a fork, an exec and a connection.
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

	explicit BusUnits(std::chrono::milliseconds timeout = std::chrono::seconds(90),
			  std::string address = PrivateAddress)
		: timeout_(timeout), address_(std::move(address))
	{
	}

	/* Each waits for its job's end (JobRemoved), as `systemctl start` does, up to the timeout. */
	Result<void> start(const std::string &templateName, const std::string &instance) override;
	Result<void> stop(const std::string &templateName, const std::string &instance) override;
	/* Waits ReloadTimeout at most: a reload stuck on its server goes on without us. */
	Result<void> reload(const std::string &templateName, const std::string &instance) override;
	Result<std::string> activeState(const std::string &templateName,
					const std::string &instance) override;
	Result<std::string> result(const std::string &templateName,
				   const std::string &instance) override;

	static constexpr std::chrono::seconds ReloadTimeout = SystemctlUnits::ReloadTimeout;
	static constexpr std::chrono::seconds StateTimeout = SystemctlUnits::StateTimeout;

private:
	Result<void> runJob(const char *method, const std::string &unit,
			    std::chrono::milliseconds timeout);

	std::chrono::milliseconds timeout_;
	std::string address_;
};

} /* namespace rbdvolume */
