/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The LUKS tests' key derivation: they time nothing, and argon2's default costs 2 s a slot. */
#pragma once

#include "host/crypt/luks_device.hpp"

namespace rbdvolume::testing {

inline LuksFormat quickLuksFormat()
{
	LuksFormat format;
	format.pbkdfIterations = 4;
	format.pbkdfMemoryKiB = 32;
	return format;
}

} /* namespace rbdvolume::testing */
