/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "common/paths.hpp"

namespace rbdvolume::paths {

std::string defaultStagingPath(std::string_view volumeName)
{
	std::string path(StagingRoot);
	path += '/';
	path += volumeName;
	return path;
}

bool isNormalAbsolutePath(std::string_view path)
{
	if (path.empty() || path.front() != '/')
		return false;
	if (path == "/")
		return true;
	if (path.back() == '/')
		return false;

	size_t start = 1;
	while (start <= path.size()) {
		size_t end = path.find('/', start);
		if (end == std::string_view::npos)
			end = path.size();
		const std::string_view part = path.substr(start, end - start);
		if (part.empty() || part == "." || part == "..")
			return false;
		start = end + 1;
	}
	return true;
}

std::string parentOf(std::string_view path)
{
	const size_t slash = path.rfind('/');
	return slash == 0 || slash == std::string_view::npos ? "/"
							     : std::string(path.substr(0, slash));
}

bool isSameOrBelow(std::string_view inner, std::string_view outer)
{
	if (outer == "/")
		return true;
	if (inner.size() < outer.size() || inner.substr(0, outer.size()) != outer)
		return false;
	return inner.size() == outer.size() || inner[outer.size()] == '/';
}

std::optional<std::string> ownStateProblem(std::string_view path, bool staging)
{
	if (staging && isSameOrBelow(path, StagingRoot) && path != StagingRoot)
		return std::nullopt;
	for (const std::string_view own : { RuntimeDir, ConfigDir }) {
		if (isSameOrBelow(path, own))
			return "expected a path outside rbd-volume's own state (" +
			       std::string(own) +
			       (staging ? ", but for " + std::string(StagingRoot) + "/..." : "") +
			       "), found '" + std::string(path) + "'";
		if (isSameOrBelow(own, path))
			return "expected a path that does not cover rbd-volume's own state (" +
			       std::string(own) + "), found '" + std::string(path) + "'";
	}
	return std::nullopt;
}

} /* namespace rbdvolume::paths */
