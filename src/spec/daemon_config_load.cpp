/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* loadDaemonConfig(): reading rbd-volumed.toml, bounded in size; no file means the defaults. */
#include <cerrno>
#include <exception>
#include <fcntl.h>
#include <optional>
#include <string>
#include <unistd.h>
#include <utility>

#include <sys/stat.h>

#include "common/errno_text.hpp"
#include "common/result.hpp"
#include "common/unique_fd.hpp"
#include "spec/daemon_config.hpp"

namespace rbdvolume {

namespace {

/* The annotated file is a few KiB; a huge file is a mistake (or /dev/zero). */
constexpr size_t MaxConfigBytes = size_t{ 1024 } * 1024;

/* The file's text; std::nullopt when it does not exist. */
Result<std::optional<std::string>> readConfigFile(const std::string &path)
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
		if (text.size() > MaxConfigBytes)
			return fail(Errc::InvalidArgument,
				    "expected a file of at most 1 MiB, found a larger file");
	}
}

DaemonConfigOutcome unreadable(const std::string &path, std::string message)
{
	DaemonConfigOutcome outcome;
	outcome.diagnostics.push_back(Diagnostic{ path, 0, 0, {}, std::move(message) });
	return outcome;
}

} /* namespace */

DaemonConfigOutcome loadDaemonConfig(const std::string &path)
{
	try {
		Result<std::optional<std::string>> text = readConfigFile(path);
		if (!text)
			return unreadable(path, text.error().message);
		if (!*text)
			return DaemonConfigOutcome{};
		return parseDaemonConfig(**text, path);
	} catch (const std::exception &error) {
		return unreadable(path,
				  std::string("internal error while reading: ") + error.what());
	} catch (...) {
		return unreadable(path, "internal error while reading: unknown exception");
	}
}

} /* namespace rbdvolume */
