/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * org.freedesktop.LogControl1 on the daemon's bus name, systemd's standard:
 * `systemctl service-log-level rbd-volumed debug` (and log-target) change
 * what rbd-volumed writes, at once, without a restart. The level in
 * rbd-volumed.toml (log-level) is the one it starts with.
 */
#pragma once

#include <systemd/sd-bus.h>

#include "common/result.hpp"
#include "common/sd_ptr.hpp"

namespace rbdvolume::daemon {

inline constexpr const char *LogControlPath = "/org/freedesktop/LogControl1";
inline constexpr const char *LogControlInterface = "org.freedesktop.LogControl1";

/* Registers the object on `bus`; it stays as long as the returned slot. */
Result<SlotPtr> attachLogControl(sd_bus *bus);

} /* namespace rbdvolume::daemon */
