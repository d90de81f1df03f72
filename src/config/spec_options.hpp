/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Checks of pass-through options: krbd and rbd-nbd map options, mount options, mkfs arguments. */
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/volume_spec.hpp"

namespace rbdvolume {

/* Each "...Problem" function returns "" for a good option, else a message for a Diagnostic. */

/* One entry of map.krbd.options (`rbd device map -o`). */
std::optional<std::string> krbdOptionProblem(std::string_view option);

/* One entry of map.nbd.options (`rbd-nbd map --OPTION[=VALUE]`, written without "--"). */
std::optional<std::string> nbdOptionProblem(std::string_view option);

/* One entry of staging.options or publish[i].options. */
std::optional<std::string> mountOptionProblem(std::string_view option);

/* Indexes of the arguments in `args` that turn on mkfs's force flag for `type`. */
std::vector<size_t> mkfsForceArguments(FsType type, std::span<const std::string> args);

} /* namespace rbdvolume */
