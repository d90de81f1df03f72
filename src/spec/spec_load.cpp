/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* loadVolumeSpec(): reading a spec file, bounded in size, then parsing it. */
#include <cerrno>
#include <exception>
#include <fcntl.h>
#include <string>
#include <system_error>
#include <unistd.h>

#include <sys/stat.h>

#include "common/errno_text.hpp"
#include "common/result.hpp"
#include "common/unique_fd.hpp"
#include "spec/spec_parser.hpp"

namespace rbdvolume {

namespace {

/* A spec is a few hundred bytes; a huge file is a mistake (or /dev/zero), not a spec. */
constexpr size_t MaxSpecBytes = size_t{ 1024 } * 1024;

Result<std::string> readSpecFile(const std::string &path)
{
	const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
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
			return text;
		text.append(buffer, static_cast<size_t>(got));
		if (text.size() > MaxSpecBytes)
			return fail(Errc::InvalidArgument,
				    "expected a spec of at most 1 MiB, found a larger file");
	}
}

SpecOutcome unreadable(const std::string &path, std::string message)
{
	SpecOutcome outcome;
	outcome.spec.sourceFile = path;
	outcome.diagnostics.push_back(Diagnostic{ path, 0, 0, {}, std::move(message) });
	return outcome;
}

} /* namespace */

SpecOutcome loadVolumeSpec(const std::string &path)
{
	try {
		Result<std::string> text = readSpecFile(path);
		if (!text)
			return unreadable(path, text.error().message);
		return parseVolumeSpec(*text, path);
	} catch (const std::exception &error) {
		return unreadable(path,
				  std::string("internal error while reading: ") + error.what());
	}
}

} /* namespace rbdvolume */
