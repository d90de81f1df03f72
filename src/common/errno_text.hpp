/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* errnoText(): strerror that is safe on worker threads. */
#pragma once

#include <string>

namespace rbdvolume {

std::string errnoText(int err);

} /* namespace rbdvolume */
