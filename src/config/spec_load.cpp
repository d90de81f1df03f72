/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* loadVolumeSpec(): reading a spec file, bounded in size, then parsing it. */
#include <cerrno>
#include <exception>
#include <string>

#include "common/errno_text.hpp"
#include "common/result.hpp"
#include "config/spec_parser.hpp"
#include "config/text_file.hpp"

namespace rbdvolume {

namespace {

/* A spec is a few hundred bytes; a huge file is a mistake (or /dev/zero), not a spec. */
constexpr size_t MaxSpecBytes = size_t{ 1024 } * 1024;

SpecOutcome unreadable(const std::string &path, std::string message)
{
	SpecOutcome outcome;
	outcome.spec.sourceFile = path;
	outcome.diagnostics.push_back(Diagnostic{ path, 0, 0, {}, std::move(message) });
	return outcome;
}

} /* namespace */

Result<std::optional<std::string>> readSpecFile(const std::string &path)
{
	return readSmallTextFile(path, MaxSpecBytes, "a spec");
}

SpecOutcome volumeSpecFrom(const Result<std::optional<std::string>> &text, const std::string &path)
{
	try {
		if (!text)
			return unreadable(path, text.error().message);
		if (!*text)
			return unreadable(path, "cannot read the file: " + errnoText(ENOENT));
		return parseVolumeSpec(**text, path);
	} catch (const std::exception &error) {
		return unreadable(path,
				  std::string("internal error while reading: ") + error.what());
	}
}

SpecOutcome loadVolumeSpec(const std::string &path)
{
	return volumeSpecFrom(readSpecFile(path), path);
}

} /* namespace rbdvolume */
