/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "common/errno_text.hpp"

#include <array>
#include <cstring>

namespace rbdvolume {

std::string errnoText(int err)
{
	std::array<char, 256> buffer{};
	/* The GNU strerror_r returns the message, which may or may not be in buffer. */
	return strerror_r(err, buffer.data(), buffer.size());
}

} /* namespace rbdvolume */
