/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * SystemctlUnits: UnitControl as `systemctl` commands through a
 * CommandRunner, for tests that script a unit's start as the commands it
 * runs (the product asks PID 1 over D-Bus: host/bus_units.hpp).
 */
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "host/command_runner.hpp"
#include "host/unit_control.hpp"

namespace rbdvolume::testing {

/* systemctl start/stop through a CommandRunner: what a test scripts as commands. */
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
	/* Waits ReloadTimeout at most: a reload stuck on its server goes on without us. */
	Result<void> reload(const std::string &templateName, const std::string &instance) override;
	/* `systemctl show -P ActiveState`, waiting StateTimeout at most. */
	Result<std::string> activeState(const std::string &templateName,
					const std::string &instance) override;
	/* `systemctl show -P Result`, waiting StateTimeout at most. */
	Result<std::string> result(const std::string &templateName,
				   const std::string &instance) override;

private:
	Result<CommandOutput> run(const std::vector<std::string> &args, const std::string &unit,
				  std::chrono::milliseconds timeout);
	/* `systemctl show -P PROPERTY`: its first line, never empty. */
	Result<std::string> shownProperty(const char *property, const std::string &templateName,
					  const std::string &instance);

	CommandRunner &runner_;
	std::string systemctl_;
	std::chrono::milliseconds timeout_;
};

} /* namespace rbdvolume::testing */
