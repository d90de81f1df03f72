/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The record of one step, for the journal: what changed on the host, with
 * the fields an operator queries (RBDV_VOLUME, RBDV_STEP, RBDV_DEVICE,
 * RBDV_IMAGE, RBDV_DRIVER, RBDV_RESULT, RBDV_DURATION_USEC). A change at
 * info, a step that found nothing to do at debug (a converged host is
 * quiet), a failure at err, one that may have happened (timed out) at
 * warning. The daemon and `rbd-volumectl down` without it write the same.
 */
#pragma once

#include <optional>
#include <string>

#include "config/volume_spec.hpp"
#include "engine/executor.hpp"
#include "journal/log.hpp"

namespace rbdvolume {

/* "krbd", "nbd" or "fuse" by the device's name; the spec's choice when it tells nothing. */
std::string driverOfDevice(const std::string &device, Driver specified);

log::Line stepLine(const VolumeSpec &spec, const StepOutcome &outcome);

/* Writes stepLine() (when its level is enabled). */
void recordStep(const VolumeSpec &spec, const StepOutcome &outcome);

/*
 * What a pass changed in the ownership record before any step, for what the
 * host showed: a mapping, staging mount or target adopted (a map that timed
 * out after all, a marker found) or dropped (gone by someone else's hand).
 * None when only sizes were learned.
 */
std::optional<log::Line> ownershipLine(const VolumeSpec &spec, const Ownership &stored,
				       const Ownership &tidied);

} /* namespace rbdvolume */
