/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * UnitControl: starting and stopping the supervised process of one volume
 * (rbd-fuse@NAME.service, rbd-nbd@NAME.service). Under systemd that is
 * BusUnits, PID 1 asked over D-Bus; the test suites without a service
 * manager run the same helper directly.
 */
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

#include "common/result.hpp"

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
	/*
	 * Runs its reload action (ExecReload=), in the unit: work that may hang
	 * on the unit's own server hangs there, costing its caller at most the
	 * time it waits.
	 */
	virtual Result<void> reload(const std::string &templateName,
				    const std::string &instance) = 0;
	/*
	 * Its ActiveState ("active", "activating" while systemd restarts it,
	 * "inactive", "failed", ...): whether a server is coming, for a device
	 * whose server is gone.
	 */
	virtual Result<std::string> activeState(const std::string &templateName,
						const std::string &instance) = 0;
	/*
	 * How its main process last ended, as systemd's Service.Result says it
	 * ("success", "signal", "exit-code", ...): for a unit that is
	 * deactivating, whether systemd is cleaning up after a server that failed
	 * (Restart= brings a new one next) or stopping one on request ("success").
	 */
	virtual Result<std::string> result(const std::string &templateName,
					   const std::string &instance) = 0;

	/* The longest a reload, and a read of a state, may keep its caller. */
	static constexpr std::chrono::seconds ReloadTimeout{ 1 };
	static constexpr std::chrono::seconds StateTimeout{ 5 };
};

/* "rbd-fuse@NAME.service"; volume names need no escaping (see volume_name.hpp). */
std::string unitName(const std::string &templateName, const std::string &instance);

/* The state letter of /proc/PID/stat ('R', 'S', 'D', 'T', 'Z', ...); '\0' when gone. */
char processState(pid_t pid);

} /* namespace rbdvolume */
