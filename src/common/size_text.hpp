/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sizeText(): sizes in the binary units a spec is written in (images, files, quotas). */
#pragma once

#include <cstdint>
#include <string>

namespace rbdvolume {

/* "20 GiB", "512 MiB", "4 KiB"; "12345 bytes" when no unit divides it. */
std::string sizeText(uint64_t bytes);

} /* namespace rbdvolume */
