/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* clockTime(), utcTime(): a moment as the host's clock shows it, for messages and records. */
#pragma once

#include <chrono>
#include <string>

namespace rbdvolume {

/* "10:02:03", local time; "?" when it cannot be told. */
std::string clockTime(std::chrono::system_clock::time_point when);

/* "2026-12-01T10:02:03Z", for records other hosts read; "?" when it cannot be told. */
std::string utcTime(std::chrono::system_clock::time_point when);

} /* namespace rbdvolume */
