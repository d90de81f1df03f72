/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/unit_control.hpp"

#include "host/mapping_discovery.hpp"

namespace rbdvolume {

std::string unitName(const std::string &templateName, const std::string &instance)
{
	return templateName + "@" + instance + ".service";
}

char processState(pid_t pid)
{
	return processState(SystemRoots{}, std::to_string(pid));
}

} /* namespace rbdvolume */
