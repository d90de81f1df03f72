/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* hostName(): this host's name, as records that other hosts read give it. */
#pragma once

#include <string>

namespace rbdvolume {

/* gethostname(2); "" when it cannot be told. */
std::string hostName();

} /* namespace rbdvolume */
