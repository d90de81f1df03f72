/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `monitor`'s lines, text or JSON, one per change; pure, no bus. */
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "bus/volume_properties.hpp"

namespace rbdvolume::cli {

/* A volume's phase as it changed, or rbd-volumed coming and going (volume ""). */
struct MonitorEvent {
	std::chrono::system_clock::time_point at;
	std::string volume;
	std::string phase;    /* the new phase; for the daemon "started" or "stopped" */
	std::string previous; /* "" when not known */
	std::vector<bus::Condition> conditions;
};

/* "08:40:01.123 data: degraded (was up): MapperLost: ...", local time, and a newline. */
std::string formatMonitorText(const MonitorEvent &event);

/*
 * {"time":"2026-11-29T08:40:01.123Z","volume":"data","phase":"degraded",
 *  "previous":"up","conditions":[{"type":..,"message":..}]} (UTC), or
 * {"time":..,"daemon":"started"}, on one line.
 */
std::string formatMonitorJson(const MonitorEvent &event);

} /* namespace rbdvolume::cli */
