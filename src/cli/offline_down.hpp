/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Taking a volume down without rbd-volumed: what `rbd-volumectl down` does
 * when no daemon runs, so that stopping rbd-volume@NAME never waits for the
 * daemon to be started (systemd would start it only after that very stop:
 * the unit is ordered after the daemon). It records the intent, then runs
 * the engine's teardown passes on this host, exactly as the daemon would.
 * The daemon holds a lock for its whole life; this runs only with that
 * lock, so the two never act at once.
 */
#pragma once

#include <string>

#include "common/result.hpp"

namespace rbdvolume::cli {

enum class OfflineDown : uint8_t {
	Done,	    /* the volume is down */
	DaemonRuns, /* the daemon holds its lock (running or starting): ask it */
};

Result<OfflineDown> downWithoutDaemon(const std::string &name);

} /* namespace rbdvolume::cli */
