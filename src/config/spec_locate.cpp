/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config/spec_locate.hpp"

#include <algorithm>
#include <filesystem>
#include <unistd.h>

#include "common/paths.hpp"
#include "common/volume_name.hpp"

namespace rbdvolume {

bool isSpecFileName(const std::string &fileName)
{
	return fileName.size() > 5 && fileName.ends_with(".toml") && fileName.front() != '.';
}

bool listSpecFiles(const std::string &dir, std::vector<std::string> &files, std::error_code &error)
{
	std::filesystem::directory_iterator it(dir, error);
	if (error)
		return false;
	/* increment(error), not ++: a directory that changes under us throws no exception. */
	for (; it != std::filesystem::directory_iterator(); it.increment(error)) {
		const std::filesystem::path &path = it->path();
		std::error_code typeError;
		if (isSpecFileName(path.filename().string()) && !it->is_directory(typeError))
			files.push_back(path.string());
	}
	if (error)
		return false;
	std::sort(files.begin(), files.end());
	return true;
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
