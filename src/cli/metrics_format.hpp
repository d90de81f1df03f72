/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `metrics`: the volumes in Prometheus' text format, for node_exporter's textfile collector; pure, no bus. */
#pragma once

#include <optional>
#include <span>
#include <string>

#include "bus/volume_properties.hpp"

namespace rbdvolume::cli {

/*
 * rbdvolume_up (whether rbd-volumed answered), then per volume: its phase
 * (one series per phase, 1 for the current one), since when, its
 * conditions, whether an episode runs, its retries, each step's last
 * duration and its heals. `volumes`
 * nullopt: the daemon did not answer, rbdvolume_up 0 alone.
 */
std::string formatMetrics(const std::optional<std::span<const bus::VolumeProperties>> &volumes);

} /* namespace rbdvolume::cli */
