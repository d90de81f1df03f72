/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/safe_path.hpp"

#include <array>
#include <cerrno>
#include <fcntl.h>
#include <string_view>
#include <vector>

#include <sys/stat.h>

#include "common/errno_text.hpp"
#include "common/paths.hpp"

namespace rbdvolume {

namespace {

std::vector<std::string> componentsOf(const std::string &path)
{
	std::vector<std::string> parts;
	size_t start = 1;
	while (start < path.size()) {
		size_t end = path.find('/', start);
		if (end == std::string::npos)
			end = path.size();
		parts.push_back(path.substr(start, end - start));
		start = end + 1;
	}
	return parts;
}

tl::unexpected<Error> symlinkError(int dir, const std::string &name, const std::string &reached)
{
	std::array<char, 4096> target{};
	const ssize_t length = readlinkat(dir, name.c_str(), target.data(), target.size() - 1);
	const std::string to =
		length > 0
			? " (to '" + std::string(target.data(), static_cast<size_t>(length)) + "')"
			: std::string();
	return fail(Errc::Conflict,
		    "'" + reached + "' is a symbolic link" + to +
			    "; rbd-volume never mounts through a symbolic link",
		    ELOOP);
}

/* What is at dir/name when opening it failed: a link, something else, or nothing. */
tl::unexpected<Error> openError(int dir, const std::string &name, const std::string &reached,
				int err)
{
	struct stat st {
	};
	if (fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(st.st_mode))
			return symlinkError(dir, name, reached);
		if (err == ENOTDIR)
			return fail(Errc::Conflict, "'" + reached + "' is not a directory",
				    ENOTDIR);
	}
	if (err == ENOENT)
		return fail(Errc::NotFound, "'" + reached + "' does not exist", ENOENT);
	return failErrno("cannot open '" + reached + "'", err);
}

/* Makes dir/name when it is missing; someone else making it meanwhile is fine. */
Result<void> makeMissing(int dir, const std::string &name, const std::string &reached, bool file)
{
	if (file) {
		const UniqueFd made(openat(dir, name.c_str(),
					   O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
					   0600));
		if (made.valid() || errno == EEXIST)
			return {};
	} else if (mkdirat(dir, name.c_str(), 0755) == 0 || errno == EEXIST) {
		return {};
	}
	return failErrno("cannot create '" + reached + "'", errno);
}

Result<UniqueFd> walk(const std::string &path, bool make, PathKind kind)
{
	if (!paths::isNormalAbsolutePath(path))
		return fail(Errc::InvalidArgument, "'" + path + "' is not a normal absolute path",
			    EINVAL);
	UniqueFd current(open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
	if (!current.valid())
		return failErrno("cannot open '/'", errno);
	const std::vector<std::string> parts = componentsOf(path);
	std::string reached;
	for (size_t i = 0; i < parts.size(); i++) {
		const std::string &part = parts[i];
		reached += "/" + part;
		const bool last = i + 1 == parts.size();
		const bool file = last && kind == PathKind::File;
		const bool directory = !last || kind == PathKind::Directory;
		/* O_NOFOLLOW with O_PATH opens a link itself: fstat tells. */
		const int flags = O_PATH | O_NOFOLLOW | O_CLOEXEC | (directory ? O_DIRECTORY : 0);
		UniqueFd next(openat(current.get(), part.c_str(), flags));
		if (!next.valid() && errno == ENOENT && make && kind != PathKind::Any) {
			if (auto made = makeMissing(current.get(), part, reached, file); !made)
				return tl::make_unexpected(made.error());
			next.reset(openat(current.get(), part.c_str(), flags));
		}
		if (!next.valid())
			return openError(current.get(), part, reached, errno);
		struct stat st {
		};
		if (fstat(next.get(), &st) < 0)
			return failErrno("cannot stat '" + reached + "'", errno);
		if (S_ISLNK(st.st_mode))
			return symlinkError(current.get(), part, reached);
		if (file && !S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
			return fail(Errc::Conflict,
				    "'" + reached + "' exists and is not a regular file", EEXIST);
		current = std::move(next);
	}
	return current;
}

} /* namespace */

Result<UniqueFd> openNoSymlinks(const std::string &path, PathKind kind)
{
	return walk(path, false, kind);
}

Result<UniqueFd> makeNoSymlinks(const std::string &path, PathKind kind)
{
	return walk(path, true, kind);
}

std::optional<std::string> pathProblem(const std::string &path, PathKind kind)
{
	auto opened = walk(path, false, kind);
	if (!opened && opened.error().code == Errc::Conflict)
		return opened.error().message;
	return std::nullopt;
}

bool isMountRoot(int fd)
{
	struct statx stx {
	};
	if (statx(fd, "", AT_EMPTY_PATH | AT_NO_AUTOMOUNT, STATX_BASIC_STATS, &stx) != 0)
		return false;
	return (stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) != 0 &&
	       (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT) != 0;
}

std::string procFdPath(int fd)
{
	return "/proc/self/fd/" + std::to_string(fd);
}

} /* namespace rbdvolume */
