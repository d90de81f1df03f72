/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rbd-volumed's event loop: triggers, the workers, the bus and sd_notify, wired together. */
#pragma once

#include "config/daemon_config.hpp"

namespace rbdvolume::daemon {

/* Runs until SIGTERM/SIGINT (or the bus goes away); the process's exit status. */
int runDaemon(const DaemonConfig &config);

} /* namespace rbdvolume::daemon */
