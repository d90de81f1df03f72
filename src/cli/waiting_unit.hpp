/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rbd-volume@NAME.service runs `rbd-volumectl up NAME`; a try that found no
 * cluster ends with 75 and systemd starts the unit again 30 s later
 * (Restart=on-failure), each start setting NAME's intent up again. An
 * operator's `rbd-volumectl down NAME` meanwhile would be undone by the
 * next start: down stops a unit that waits so, which cancels the restart
 * and runs nothing (no ExecStop= for a unit whose process has ended).
 */
#pragma once

#include <string>

#include "common/result.hpp"

namespace rbdvolume::cli {

/*
 * Stops rbd-volume@NAME.service if it waits to start again; true when it
 * did. A host without systemd, or whose units cannot be read (not root, no
 * bus), has no such unit to stop: false. An error is a stop that failed.
 */
Result<bool> stopWaitingUnit(const std::string &name);

} /* namespace rbdvolume::cli */
