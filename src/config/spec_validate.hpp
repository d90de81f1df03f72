/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Cross-field rules of spec v1 and the defaults that depend on other fields. */
#pragma once

#include "config/spec_report.hpp"
#include "config/volume_spec.hpp"

namespace rbdvolume {

/*
 * Checks the rules that tie fields together (driver sections, block mode,
 * read-only, publish targets) on a spec the parser filled field by field.
 * `report` says which keys were written and where; fields that already
 * failed are skipped, so one mistake gives one diagnostic.
 */
void validateSpec(const VolumeSpec &spec, SpecReport &report);

/* Applies the defaults that depend on other fields (read-only, staging path, filesystem). */
void completeSpec(VolumeSpec &spec, const SpecReport &report);

} /* namespace rbdvolume */
