/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cStrings(): an argv or envp for exec/posix_spawn, pointing into `strings`. */
#pragma once

#include <string>
#include <vector>

namespace rbdvolume {

/* NULL-terminated; valid while `strings` lives unchanged. */
inline std::vector<char *> cStrings(std::vector<std::string> &strings)
{
	std::vector<char *> out;
	out.reserve(strings.size() + 1);
	for (std::string &s : strings)
		out.push_back(s.data());
	out.push_back(nullptr);
	return out;
}

} /* namespace rbdvolume */
