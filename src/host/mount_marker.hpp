/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The userspace mount option that marks our mounts (kept by libmount in utab). */
#pragma once

#include <string_view>

namespace rbdvolume {

/* "x-rbd-volume=NAME"; spec validation refuses options that start with it. */
inline constexpr std::string_view MarkerOption = "x-rbd-volume";

} /* namespace rbdvolume */
