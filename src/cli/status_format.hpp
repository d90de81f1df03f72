/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Volumes as a table, readable blocks or JSON, for `list` and `status`; pure, no bus. */
#pragma once

#include <span>
#include <string>

#include "bus/volume_properties.hpp"

namespace rbdvolume::cli {

using bus::VolumeProperties;

/*
 * `list`: a header NAME INTENT PHASE DEVICE (unless `legend` is false:
 * --no-legend) and one row per volume, in the given order; each column as
 * wide as the header and the rows need, whether the header is printed or not.
 */
std::string formatVolumeTable(std::span<const VolumeProperties> volumes, bool legend = true);

/* `list --json`: {"volumes":[{"name":..,"intent":..,"phase":..,"device":..}]} and a newline. */
std::string formatVolumeListJson(std::span<const VolumeProperties> volumes);

/* `status`: one block per volume, blocks separated by an empty line; "no volumes" for none. */
std::string formatStatusText(std::span<const VolumeProperties> volumes);

/* `status --json`: {"volumes":[...]} on one line (docs/cli.md has the schema). */
std::string formatStatusJson(std::span<const VolumeProperties> volumes);

} /* namespace rbdvolume::cli */
