/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "common/fs_util.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <unistd.h>

#include <sys/stat.h>

#include "common/errno_text.hpp"
#include "common/paths.hpp"
#include "common/unique_fd.hpp"

namespace rbdvolume {

namespace {

bool pointsBelow(const std::filesystem::path &link, const std::string &path)
{
	std::error_code ec;
	const std::filesystem::path target = std::filesystem::read_symlink(link, ec);
	return !ec && paths::isSameOrBelow(target.string(), path);
}

std::string commandName(const std::string &pid)
{
	auto comm = readFileBounded("/proc/" + pid + "/comm", SmallFileBytes);
	if (!comm || !*comm)
		return {};
	return (*comm)->substr(0, (*comm)->find('\n'));
}

} /* namespace */

Result<void> makeDirectories(const std::string &path, mode_t mode)
{
	size_t pos = 1;
	while (pos != std::string::npos) {
		pos = path.find('/', pos + 1);
		const std::string part = path.substr(0, pos);
		if (mkdir(part.c_str(), mode) < 0 && errno != EEXIST)
			return failErrno("cannot create '" + part + "'", errno);
	}
	if (!isDirectory(path))
		return fail(Errc::Conflict, "'" + path + "' exists and is not a directory",
			    ENOTDIR);
	return {};
}

Result<void> ensureFile(const std::string &path)
{
	if (auto made = makeDirectories(paths::parentOf(path)); !made)
		return made;
	const UniqueFd fd(open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
	if (!fd.valid())
		return failErrno("cannot create '" + path + "'", errno);
	return {};
}

bool isDirectory(const std::string &path)
{
	struct stat st {
	};
	return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool isMountPoint(const std::string &path)
{
	struct statx stx {
	};
	if (statx(AT_FDCWD, path.c_str(), AT_NO_AUTOMOUNT | AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS,
		  &stx) != 0)
		return false;
	return (stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) != 0 &&
	       (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT) != 0;
}

Result<std::optional<std::string>> readFile(const std::string &path, size_t maxBytes,
					    Symlinks symlinks)
{
	auto text = readFileBounded(path, maxBytes, symlinks);
	if (!text)
		return fail(text.error().code, "'" + path + "': " + text.error().message,
			    text.error().sysErrno);
	return text;
}

std::vector<std::string> sortedEntries(const std::string &dir)
{
	std::vector<std::string> names;
	std::error_code ec;
	for (const auto &entry : std::filesystem::directory_iterator(dir, ec))
		names.push_back(entry.path().filename().string());
	std::sort(names.begin(), names.end());
	return names;
}

std::string attributeText(const std::string &path)
{
	auto text = readFile(path);
	if (!text || !*text)
		return {};
	std::string value = std::move(**text);
	while (!value.empty() && (value.back() == '\n' || value.back() == ' '))
		value.pop_back();
	return value;
}

std::string processesUsing(const std::string &path, size_t limit)
{
	std::string found;
	size_t count = 0;
	std::error_code ec;
	for (const auto &proc : std::filesystem::directory_iterator("/proc", ec)) {
		const std::string pid = proc.path().filename().string();
		if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos)
			continue;
		bool uses = pointsBelow(proc.path() / "cwd", path) ||
			    pointsBelow(proc.path() / "root", path);
		std::error_code fdEc;
		for (const auto &fd :
		     std::filesystem::directory_iterator(proc.path() / "fd", fdEc)) {
			if (uses)
				break;
			uses = pointsBelow(fd.path(), path);
		}
		if (!uses)
			continue;
		if (count == limit) {
			found += ", ...";
			break;
		}
		found += (count == 0 ? "" : ", ") + ("pid " + pid + " (" + commandName(pid) + ")");
		count++;
	}
	return found;
}

} /* namespace rbdvolume */
