/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `rbd-volumectl check FILE|DIR...`: validates volume specs offline. */
#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "cli/verbs.hpp"
#include "config/spec_locate.hpp"
#include "config/spec_parser.hpp"

namespace rbdvolume::cli {

namespace {

struct CheckTally {
	unsigned valid = 0;
	unsigned invalid = 0;
	bool unreadableDirectory = false;
};

void checkFile(const std::string &path, CheckTally &tally)
{
	const SpecOutcome outcome = loadVolumeSpec(path);
	for (const Diagnostic &diagnostic : outcome.diagnostics)
		std::printf("%s\n", diagnostic.format().c_str());
	if (outcome.ok())
		++tally.valid;
	else
		++tally.invalid;
}

void checkArgument(std::string_view argument, CheckTally &tally)
{
	const std::filesystem::path path(argument);
	std::error_code error;
	if (!std::filesystem::is_directory(path, error)) {
		checkFile(std::string(argument), tally);
		return;
	}

	std::vector<std::string> files;
	if (!listSpecFiles(path.string(), files, error)) {
		std::printf("%s: cannot read the directory: %s\n", path.c_str(),
			    error.message().c_str());
		tally.unreadableDirectory = true;
		return;
	}
	if (files.empty())
		std::fprintf(stderr, "%s: no *.toml files here\n", path.c_str());
	for (const std::string &file : files)
		checkFile(file, tally);
}

} /* namespace */

int verbCheck(std::span<const std::string_view> args)
{
	std::vector<std::string_view> targets;
	bool options = true;
	for (const std::string_view arg : args) {
		if (options && arg == "--") {
			options = false;
		} else if (options && arg.size() > 1 && arg.front() == '-') {
			std::fprintf(stderr, "rbd-volumectl check: unknown option '%.*s'\n",
				     static_cast<int>(arg.size()), arg.data());
			return ExitUsage;
		} else {
			targets.push_back(arg);
		}
	}
	if (targets.empty()) {
		std::fprintf(stderr, "rbd-volumectl check: expected FILE or DIR arguments\n");
		return ExitUsage;
	}

	CheckTally tally;
	for (const std::string_view target : targets)
		checkArgument(target, tally);
	std::printf("checked %u spec(s): %u valid, %u invalid\n", tally.valid + tally.invalid,
		    tally.valid, tally.invalid);
	return tally.invalid == 0 && !tally.unreadableDirectory ? ExitOk : ExitFailure;
}

} /* namespace rbdvolume::cli */
