/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "spec/text_file.hpp"

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

#include <sys/stat.h>

#include "common/errno_text.hpp"
#include "common/unique_fd.hpp"

namespace rbdvolume {

Result<std::optional<std::string>> readSmallTextFile(const std::string &path, size_t maxBytes,
						     std::string_view what)
{
	const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
	if (fd.get() < 0 && errno == ENOENT)
		return std::optional<std::string>();
	if (fd.get() < 0)
		return fail(Errc::Io, "cannot read the file: " + errnoText(errno), errno);
	struct stat st {
	};
	if (::fstat(fd.get(), &st) < 0)
		return fail(Errc::Io, "cannot read the file: " + errnoText(errno), errno);
	if (S_ISDIR(st.st_mode))
		return fail(Errc::InvalidArgument, "expected a file, found a directory");

	std::string text;
	char buffer[8192];
	for (;;) {
		const ssize_t got = ::read(fd.get(), buffer, sizeof(buffer));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return fail(Errc::Io, "cannot read the file: " + errnoText(errno), errno);
		if (got == 0)
			return std::optional<std::string>(std::move(text));
		text.append(buffer, static_cast<size_t>(got));
		if (text.size() > maxBytes)
			return fail(Errc::InvalidArgument,
				    "expected " + std::string(what) + " of at most " +
					    std::to_string(maxBytes / 1024 / 1024) +
					    " MiB, found a larger file");
	}
}

} /* namespace rbdvolume */
