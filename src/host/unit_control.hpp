/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * UnitControl: starting and stopping the supervised process of one volume
 * (rbd-fuse@NAME.service, rbd-nbd@NAME.service). Under systemd that is
 * systemctl; the test suites without a service manager run the same helper
 * directly.
 */
#pragma once

#include <chrono>
#include <string>

#include "common/result.hpp"
#include "host/command_runner.hpp"

namespace rbdvolume {

class UnitControl
{
public:
	virtual ~UnitControl() = default;
	/* Starts `template@instance.service` (a no-op when it runs). */
	virtual Result<void> start(const std::string &templateName,
				   const std::string &instance) = 0;
	/* Stops it (a no-op when it does not run). */
	virtual Result<void> stop(const std::string &templateName, const std::string &instance) = 0;
};

/* systemctl start/stop through the CommandRunner. */
class SystemctlUnits : public UnitControl
{
public:
	explicit SystemctlUnits(CommandRunner &runner, std::string systemctl = "/usr/bin/systemctl",
				std::chrono::milliseconds timeout = std::chrono::seconds(90))
		: runner_(runner), systemctl_(std::move(systemctl)), timeout_(timeout)
	{
	}

	Result<void> start(const std::string &templateName, const std::string &instance) override;
	Result<void> stop(const std::string &templateName, const std::string &instance) override;

private:
	Result<void> run(const char *verb, const std::string &unit);

	CommandRunner &runner_;
	std::string systemctl_;
	std::chrono::milliseconds timeout_;
};

/* "rbd-fuse@NAME.service"; volume names need no escaping (see volume_name.hpp). */
std::string unitName(const std::string &templateName, const std::string &instance);

} /* namespace rbdvolume */
