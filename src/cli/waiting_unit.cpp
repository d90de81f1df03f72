/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cli/waiting_unit.hpp"

#include <chrono>

#include "host/bus_units.hpp"

namespace rbdvolume::cli {

namespace {

constexpr const char *VolumeTemplate = "rbd-volume";

/* A stop of a unit that waits to restart is a state change in PID 1: no process runs. */
constexpr std::chrono::seconds StopTimeout{ 10 };

} /* namespace */

Result<bool> stopWaitingUnit(const std::string &name)
{
	BusUnits units = BusUnits::forThisUser(StopTimeout);
	const auto state = units.subState(VolumeTemplate, name);
	if (!state || *state != "auto-restart")
		return false;
	if (auto stopped = units.stop(VolumeTemplate, name); !stopped)
		return fail(stopped.error().code,
			    unitName(VolumeTemplate, name) +
				    " waits to start again, and stopping it failed (" +
				    stopped.error().message + "); its next start brings " + name +
				    " up again: run `systemctl stop " +
				    unitName(VolumeTemplate, name) + "`");
	return true;
}

} /* namespace rbdvolume::cli */
