/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The names of rbd-volumed's bus API (src/daemon/org.rbdvolume1.xml), for its server and clients. */
#pragma once

namespace rbdvolume::bus {

constexpr const char *ServiceName = "org.rbdvolume1";
constexpr const char *ManagerPath = "/org/rbdvolume1";
constexpr const char *ManagerInterface = "org.rbdvolume1.Manager";
constexpr const char *VolumeInterface = "org.rbdvolume1.Volume";
/* Volume objects are VolumePathPrefix/NAME, NAME escaped as sd_bus_path_encode() does. */
constexpr const char *VolumePathPrefix = "/org/rbdvolume1/volume";

constexpr const char *PropertiesInterface = "org.freedesktop.DBus.Properties";

} /* namespace rbdvolume::bus */
