/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `plan --json`: the plan as one line of JSON, for scripts; pure, no host. */
#pragma once

#include <string>

#include "config/volume_spec.hpp"
#include "engine/plan.hpp"

namespace rbdvolume::cli {

/*
 * {"volume":..,"intent":"up"|"down","steps":[{"step":"map","text":"map rbd/a ..."},..],
 *  "conflicts":[{"kind":"foreign-signature","subject":"/dev/rbd0","detail":..},..]}
 * and a newline: each step's stable name and the line `plan` prints for it,
 * each conflict as the daemon reports it. Keys may be added; none is removed.
 */
std::string formatPlanJson(const Plan &plan, const VolumeSpec &spec);

} /* namespace rbdvolume::cli */
