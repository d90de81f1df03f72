/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `rbd-volumectl check [--config FILE] FILE|DIR...`: validates volume specs offline, as the daemon would. */
#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "cli/daemon_rules.hpp"
#include "cli/verb_options.hpp"
#include "cli/verbs.hpp"
#include "config/spec_locate.hpp"
#include "config/spec_parser.hpp"

namespace rbdvolume::cli {

namespace {

constexpr std::string_view Synopsis = "[--config FILE] FILE|DIR...";

struct CheckTally {
	unsigned valid = 0;
	unsigned invalid = 0;
	bool unreadableDirectory = false;
};

void checkFile(const std::string &path, const DaemonRules &rules, CheckTally &tally)
{
	if (const auto hint = daemonSettingsHint(path)) {
		std::printf("%s\n", hint->c_str());
		++tally.invalid;
		return;
	}
	const SpecOutcome outcome = loadSpecAsDaemon(path, rules);
	for (const Diagnostic &diagnostic : outcome.diagnostics)
		std::printf("%s\n", diagnostic.format().c_str());
	if (outcome.ok())
		++tally.valid;
	else
		++tally.invalid;
}

void checkArgument(std::string_view argument, const DaemonRules &rules, CheckTally &tally)
{
	const std::filesystem::path path(argument);
	std::error_code error;
	if (!std::filesystem::is_directory(path, error)) {
		checkFile(std::string(argument), rules, tally);
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
		std::fprintf(stderr, "rbd-volumectl: check: %s: no *.toml files here\n",
			     path.c_str());
	for (const std::string &file : files)
		checkFile(file, rules, tally);
}

} /* namespace */

int verbCheck(std::span<const std::string_view> args)
{
	std::vector<std::string_view> targets;
	std::string configFile;
	bool options = true;
	for (size_t i = 0; i < args.size(); i++) {
		const std::string_view arg = args[i];
		if (options && arg == "--") {
			options = false;
		} else if (options && arg == "--config") {
			if (i + 1 >= args.size())
				return usageError("check", "--config needs a file", Synopsis);
			configFile = args[++i];
		} else if (options && arg.size() > 1 && arg.front() == '-') {
			return usageError("check", "unknown option '" + std::string(arg) + "'",
					  Synopsis);
		} else {
			targets.push_back(arg);
		}
	}
	if (targets.empty() && configFile.empty())
		return usageError("check", "expected FILE or DIR arguments", Synopsis);

	/* The daemon's settings first: with errors in them it would start with no spec at all. */
	const DaemonRules rules = loadDaemonRules(configFile);
	for (const Diagnostic &diagnostic : rules.problems)
		std::printf("%s\n", diagnostic.format().c_str());
	if (!rules.ok()) {
		std::printf("%s: invalid: rbd-volumed would not start; no spec checked\n",
			    rules.file.c_str());
		return ExitFailure;
	}
	if (targets.empty()) { /* `check --config FILE`: the settings alone */
		std::printf("%s: valid\n", rules.file.c_str());
		return ExitOk;
	}

	CheckTally tally;
	for (const std::string_view target : targets)
		checkArgument(target, rules, tally);
	std::printf("checked %u spec(s): %u valid, %u invalid\n", tally.valid + tally.invalid,
		    tally.valid, tally.invalid);
	return tally.invalid == 0 && !tally.unreadableDirectory ? ExitOk : ExitFailure;
}

} /* namespace rbdvolume::cli */
