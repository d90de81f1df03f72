/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config/spec_locate.hpp"

#include <unistd.h>

#include "common/paths.hpp"
#include "common/volume_name.hpp"

namespace rbdvolume {

bool isSpecFileName(const std::string &fileName)
{
	return fileName.size() > 5 && fileName.ends_with(".toml") && fileName.front() != '.';
}

std::vector<std::string> defaultSpecDirs()
{
	return { std::string(paths::RuntimeSpecDir), std::string(paths::AdminSpecDir) };
}

Result<std::string> locateSpec(const std::string &name, const std::vector<std::string> &dirs)
{
	if (const auto problem = volumeNameProblem(name))
		return fail(Errc::InvalidArgument, "'" + name + "': " + *problem);
	std::vector<std::string> found;
	for (const std::string &dir : dirs) {
		const std::string path = dir + "/" + name + ".toml";
		if (access(path.c_str(), F_OK) == 0)
			found.push_back(path);
	}
	if (found.empty()) {
		std::string searched;
		for (const std::string &dir : dirs)
			searched += (searched.empty() ? "" : ", ") + dir;
		return fail(Errc::NotFound, "no spec for volume '" + name + "' in " + searched);
	}
	if (found.size() > 1)
		return fail(Errc::Conflict, "volume '" + name + "' is defined twice: " + found[0] +
						    " and " + found[1] + "; remove one");
	return found.front();
}

} /* namespace rbdvolume */
