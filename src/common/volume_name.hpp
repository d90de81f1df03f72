/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Volume names: the file stem of a spec, an instance of rbd-volume@.service. */
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace rbdvolume {

/*
 * A volume name is 1 to 63 characters from [A-Za-z0-9_.], starting with a
 * letter or digit. Every such name is its own systemd escape, so
 * `systemctl start rbd-volume@NAME` needs no systemd-escape; '-' is excluded
 * because %I would turn it into '/'.
 */
constexpr size_t MaxVolumeNameLength = 63;

bool isValidVolumeName(std::string_view name);

/* Why a name is invalid, in words, or "" when it is valid. */
std::optional<std::string> volumeNameProblem(std::string_view name);

} /* namespace rbdvolume */
