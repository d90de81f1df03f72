/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Replies of rbd-volumed decoded into plain views: ListVolumes rows, a Volume's GetAll. */
#pragma once

#include <vector>

#include <systemd/sd-bus.h>

#include "cli/volume_view.hpp"
#include "common/result.hpp"

namespace rbdvolume::cli {

/* A ListVolumes reply, a(ssso), in the order the daemon sent it. */
Result<std::vector<VolumeSummary>> readVolumeList(sd_bus_message *reply);

/* A Properties.GetAll reply for org.rbdvolume1.Volume, a{sv}; unknown properties are skipped. */
Result<VolumeView> readVolumeProperties(sd_bus_message *reply);

} /* namespace rbdvolume::cli */
