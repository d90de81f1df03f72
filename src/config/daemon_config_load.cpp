/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* loadDaemonConfig(): reading rbd-volumed.toml, bounded in size; no file means the defaults. */
#include <exception>
#include <optional>
#include <string>
#include <utility>

#include "common/result.hpp"
#include "config/daemon_config.hpp"
#include "config/text_file.hpp"

namespace rbdvolume {

namespace {

/* The annotated file is a few KiB; a huge file is a mistake (or /dev/zero). */
constexpr size_t MaxConfigBytes = size_t{ 1024 } * 1024;

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
		Result<std::optional<std::string>> text =
			readSmallTextFile(path, MaxConfigBytes, "a file");
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
