/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/crypt/key_file.hpp"

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

#include <sys/stat.h>

#include "common/errno_text.hpp"
#include "common/file_io.hpp"
#include "common/unique_fd.hpp"

namespace rbdvolume {

namespace {

tl::unexpected<Error> keyfileError(Errc code, const std::string &path, const std::string &why,
				   int err = 0)
{
	return fail(code, "keyfile '" + path + "': " + why, err);
}

} /* namespace */

Result<Secret> readKeyfile(const std::string &path)
{
	/* Looked at before it is opened for reading: opening a device node can act. */
	const UniqueFd at(::open(path.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
	if (!at.valid()) {
		const int err = errno;
		if (err == ENOENT)
			return keyfileError(Errc::NotFound, path, "no such file", err);
		if (err == ELOOP)
			return keyfileError(Errc::PermissionDenied, path,
					    "is a symbolic link; name the file itself", err);
		return keyfileError(err == EACCES ? Errc::PermissionDenied : Errc::Io, path,
				    errnoText(err), err);
	}
	struct stat st {
	};
	if (fstat(at.get(), &st) < 0)
		return keyfileError(Errc::Io, path, errnoText(errno), errno);
	if (S_ISLNK(st.st_mode))
		return keyfileError(Errc::PermissionDenied, path,
				    "is a symbolic link; name the file itself");
	if (!S_ISREG(st.st_mode))
		return keyfileError(Errc::InvalidArgument, path,
				    "expected a file, found " + fileTypeName(st.st_mode));
	if (st.st_uid != geteuid())
		return keyfileError(Errc::PermissionDenied, path,
				    "owned by uid " + std::to_string(st.st_uid) + ", expected " +
					    std::to_string(geteuid()));
	if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0)
		return keyfileError(Errc::PermissionDenied, path,
				    "others may read or write it (mode 0" +
					    std::to_string((st.st_mode >> 6U) & 7U) +
					    std::to_string((st.st_mode >> 3U) & 7U) +
					    std::to_string(st.st_mode & 7U) +
					    "); chmod 0600 or 0400 it");
	if (st.st_size <= 0)
		return keyfileError(Errc::InvalidArgument, path, "is empty");
	if (static_cast<uint64_t>(st.st_size) > MaxKeyfileBytes)
		return keyfileError(
			Errc::InvalidArgument, path,
			"holds " + std::to_string(st.st_size) + " bytes, more than the " +
				std::to_string(MaxKeyfileBytes) + " a passphrase may have");

	const std::string self = "/proc/self/fd/" + std::to_string(at.get());
	const UniqueFd fd(::open(self.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
	if (!fd.valid())
		return keyfileError(Errc::Io, path, errnoText(errno), errno);
	Secret key(static_cast<size_t>(st.st_size));
	size_t got = 0;
	while (got < key.size()) {
		const ssize_t n = ::read(fd.get(), key.data() + got, key.size() - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return keyfileError(Errc::Io, path, errnoText(errno), errno);
		if (n == 0)
			break;
		got += static_cast<size_t>(n);
	}
	char more = 0;
	if (got != key.size() || ::read(fd.get(), &more, 1) != 0)
		return keyfileError(Errc::Io, path, "changed while it was read");
	return key;
}

} /* namespace rbdvolume */
