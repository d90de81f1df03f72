/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A `systemctl stop` while rbd-volume@NAME's start still runs kills
 * `rbd-volumectl up` with SIGTERM and runs no ExecStop= (the unit never
 * became active): only ExecStopPost= hears of it, from what systemd tells
 * it of the main process ($SERVICE_RESULT, $EXIT_CODE, $EXIT_STATUS;
 * systemd.exec(5)). Without a down then, the daemon would bring up a
 * volume whose unit is stopped.
 */
#pragma once

namespace rbdvolume::cli {

/*
 * The unit was stopped while its start ran: the start's process killed by
 * SIGTERM or SIGINT, the result "signal" (systemd 252 for a oneshot unit;
 * "success" where a signal counts as clean). A start that timed out says
 * "timeout", one that failed "exit-code": the unit starts again, the volume
 * still meant up. An operator's own kill -TERM of `rbd-volumectl up` looks
 * like a stop too: the volume goes down, and the unit's restart brings it
 * up again. The values as systemd sets them; null when unset.
 */
bool startWasCancelled(const char *serviceResult, const char *exitCode, const char *exitStatus);

/* The same, from this process's environment. */
bool startWasCancelled();

} /* namespace rbdvolume::cli */
