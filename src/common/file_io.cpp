/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "common/file_io.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <fcntl.h>
#include <unistd.h>

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "common/errno_text.hpp"
#include "common/paths.hpp"
#include "common/size_text.hpp"
#include "common/unique_fd.hpp"

namespace rbdvolume {

namespace {

/* The largest single read of a file. */
constexpr size_t MaxChunk = size_t{ 1 } << 20;

} /* namespace */

std::string fileTypeName(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
		return "a regular file";
	case S_IFDIR:
		return "a directory";
	case S_IFIFO:
		return "a FIFO";
	case S_IFSOCK:
		return "a socket";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFLNK:
		return "a symbolic link";
	default:
		return "a file of unknown type";
	}
}

Result<std::optional<std::string>> readFileBounded(const std::string &path, size_t maxBytes,
						   Symlinks symlinks)
{
	/* O_NONBLOCK: opening a FIFO for reading would wait for a writer. */
	const int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
			  (symlinks == Symlinks::Refuse ? O_NOFOLLOW : 0);
	const UniqueFd fd(open(path.c_str(), flags));
	if (!fd.valid()) {
		if (errno == ENOENT)
			return std::optional<std::string>();
		if (errno == ELOOP && symlinks == Symlinks::Refuse)
			return fail(Errc::InvalidArgument, "expected a file, found a symbolic link",
				    ELOOP);
		const int err = errno;
		/* A socket (ENXIO) or a device without a driver: say what is there. */
		struct stat st {
		};
		if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
			return fail(Errc::InvalidArgument,
				    "expected a file, found " + fileTypeName(st.st_mode), err);
		return failErrno("cannot read the file", err);
	}
	struct stat st {
	};
	if (fstat(fd.get(), &st) < 0)
		return failErrno("cannot read the file", errno);
	if (!S_ISREG(st.st_mode))
		return fail(Errc::InvalidArgument,
			    "expected a file, found " + fileTypeName(st.st_mode));

	/*
	 * Straight into the string, in chunks that double: a /proc table of
	 * thousands of lines in a few reads (each read of mountinfo takes the
	 * kernel's namespace lock), a small file in one.
	 */
	std::string data;
	size_t chunk = 4096;
	for (;;) {
		const size_t had = data.size();
		data.resize(had + chunk);
		const ssize_t got = read(fd.get(), data.data() + had, chunk);
		const int err = errno;
		data.resize(had + static_cast<size_t>(std::max<ssize_t>(got, 0)));
		if (got < 0 && err == EINTR)
			continue;
		if (got < 0)
			return failErrno("cannot read the file", err);
		if (got == 0)
			return std::optional<std::string>(std::move(data));
		chunk = std::min(chunk * 2, MaxChunk);
		if (data.size() > maxBytes)
			return fail(Errc::InvalidArgument,
				    "expected a file of at most " + sizeText(maxBytes) +
					    ", found a larger one",
				    EFBIG);
	}
}

namespace {

/* The temporary file's suffix, before mkostemp()'s six characters. */
constexpr std::string_view TempSuffix = ".tmp";
constexpr size_t TempRandomChars = 6;

} /* namespace */

Result<uint64_t> blockDeviceSize(const std::string &path)
{
	struct stat st {
	};
	if (stat(path.c_str(), &st) != 0)
		return failErrno("cannot stat " + path, errno);
	if (!S_ISBLK(st.st_mode))
		return fail(Errc::InvalidArgument,
			    path + ": expected a block device, found " + fileTypeName(st.st_mode),
			    ENOTBLK);
	const std::string sysfs = "/sys/dev/block/" + std::to_string(major(st.st_rdev)) + ":" +
				  std::to_string(minor(st.st_rdev)) + "/size";
	auto text = readFileBounded(sysfs, SmallFileBytes);
	if (!text || !*text)
		return fail(Errc::Io, "cannot read the size of " + path + " from " + sysfs +
					      (text ? "" : ": " + text.error().message));
	uint64_t sectors = 0;
	const std::string &value = **text;
	const auto parsed = std::from_chars(value.data(), value.data() + value.size(), sectors);
	if (parsed.ec != std::errc() || sectors > UINT64_MAX / 512)
		return fail(Errc::Io, sysfs + ": not a size: '" + value + "'");
	return sectors * 512; /* sysfs counts 512-byte sectors whatever the block size */
}

bool isAtomicWriteTemporary(std::string_view name)
{
	const size_t dot = name.rfind(TempSuffix);
	return dot != std::string_view::npos &&
	       name.size() - dot == TempSuffix.size() + TempRandomChars;
}

namespace {

/* A temporary file from `pattern` (…XXXXXX) holding `data` with `mode`, synced; its name. */
Result<std::string> writeTemporary(std::string pattern, const std::string &dir,
				   std::string_view data, mode_t mode)
{
	const UniqueFd fd(mkostemp(pattern.data(), O_CLOEXEC));
	if (!fd.valid())
		return failErrno("cannot create a file in '" + dir + "'", errno);
	const auto cleanup = [&](const std::string &what, int err) {
		unlink(pattern.c_str());
		return failErrno(what, err);
	};
	size_t done = 0;
	while (done < data.size()) {
		const ssize_t n = write(fd.get(), data.data() + done, data.size() - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return cleanup("cannot write '" + pattern + "'", errno);
		done += static_cast<size_t>(n);
	}
	if (fchmod(fd.get(), mode) < 0 || fsync(fd.get()) < 0)
		return cleanup("cannot sync '" + pattern + "'", errno);
	return pattern;
}

/* So the new name survives a crash, not only the file's data. */
void syncDirectory(const std::string &dir)
{
	const UniqueFd dirFd(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	if (dirFd.valid())
		(void)fsync(dirFd.get());
}

} /* namespace */

Result<void> writeFileAtomic(const std::string &path, std::string_view data, mode_t mode)
{
	const std::string dir = paths::parentOf(path);
	auto temp = writeTemporary(path + std::string(TempSuffix) + "XXXXXX", dir, data, mode);
	if (!temp)
		return tl::make_unexpected(temp.error());
	if (rename(temp->c_str(), path.c_str()) < 0) {
		const int err = errno;
		unlink(temp->c_str());
		return failErrno("cannot rename to '" + path + "'", err);
	}
	syncDirectory(dir);
	return {};
}

Result<void> writeFileNew(const std::string &path, std::string_view data, mode_t mode)
{
	const std::string dir = paths::parentOf(path);
	const std::string base = path.substr(path.rfind('/') + 1);
	/* Hidden, and not named like the file: a reader of *.toml never sees it. */
	auto temp = writeTemporary(dir + "/." + base + ".XXXXXX", dir, data, mode);
	if (!temp)
		return tl::make_unexpected(temp.error());
	const int linked = link(temp->c_str(), path.c_str());
	const int err = errno;
	unlink(temp->c_str());
	if (linked < 0 && err == EEXIST)
		return fail(Errc::Conflict, "exists already; refusing to overwrite it");
	if (linked < 0)
		return failErrno("cannot create '" + path + "'", err);
	syncDirectory(dir);
	return {};
}

} /* namespace rbdvolume */
