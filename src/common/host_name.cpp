/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "common/host_name.hpp"

#include <array>
#include <unistd.h>

namespace rbdvolume {

std::string hostName()
{
	std::array<char, 256> name{};
	if (gethostname(name.data(), name.size() - 1) != 0)
		return {};
	return name.data();
}

} /* namespace rbdvolume */
