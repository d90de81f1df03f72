/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `rbd-volumectl check [--config FILE] [--json] FILE|DIR...`: validates volume specs offline, as the daemon would. */
#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "cli/daemon_rules.hpp"
#include "cli/verb_options.hpp"
#include "cli/verbs.hpp"
#include "common/text_escape.hpp"
#include "config/spec_locate.hpp"
#include "config/spec_parser.hpp"

namespace rbdvolume::cli {

namespace {

constexpr std::string_view Synopsis = "[--config FILE] [--json] FILE|DIR...";

/* What check found: printed as it goes, or with --json gathered and printed as one object. */
class CheckReport
{
public:
	explicit CheckReport(bool json) : json_(json) {}

	void problem(const Diagnostic &diagnostic)
	{
		if (json_)
			problems_.push_back(diagnostic);
		else
			std::printf("%s\n", diagnostic.format().c_str());
	}
	void spec(bool valid) { ++(valid ? valid_ : invalid_); }
	void unreadableDirectory() { unreadableDirectory_ = true; }
	bool ok() const { return invalid_ == 0 && !unreadableDirectory_; }

	/* The summary line, or the JSON object: {"checked":N,"valid":N,"invalid":N,"diagnostics":[...]}. */
	void finish() const
	{
		if (!json_) {
			std::printf("checked %u spec(s): %u valid, %u invalid\n", valid_ + invalid_,
				    valid_, invalid_);
			return;
		}
		std::string out = "{\"checked\":" + std::to_string(valid_ + invalid_) +
				  ",\"valid\":" + std::to_string(valid_) +
				  ",\"invalid\":" + std::to_string(invalid_) + ",\"diagnostics\":[";
		for (size_t i = 0; i < problems_.size(); i++) {
			const Diagnostic &d = problems_[i];
			const auto place = [](unsigned n) {
				return n == 0 ? std::string("null") : std::to_string(n);
			};
			out += std::string(i == 0 ? "" : ",") + "{\"file\":" + jsonQuote(d.file) +
			       ",\"line\":" + place(d.line) + ",\"column\":" + place(d.column) +
			       ",\"key\":" + (d.field.empty() ? "null" : jsonQuote(d.field)) +
			       ",\"message\":" + jsonQuote(d.message) + "}";
		}
		std::printf("%s]}\n", out.c_str());
	}

private:
	bool json_;
	unsigned valid_ = 0;
	unsigned invalid_ = 0;
	bool unreadableDirectory_ = false;
	std::vector<Diagnostic> problems_;
};

void checkFile(const std::string &path, const DaemonRules &rules, CheckReport &report)
{
	if (const auto hint = daemonSettingsHint(path)) {
		report.problem({ path, 0, 0, {}, *hint });
		report.spec(false);
		return;
	}
	const SpecOutcome outcome = loadSpecAsDaemon(path, rules);
	for (const Diagnostic &diagnostic : outcome.diagnostics)
		report.problem(diagnostic);
	report.spec(outcome.ok());
}

void checkArgument(std::string_view argument, const DaemonRules &rules, CheckReport &report)
{
	const std::filesystem::path path(argument);
	std::error_code error;
	if (!std::filesystem::is_directory(path, error)) {
		checkFile(std::string(argument), rules, report);
		return;
	}

	std::vector<std::string> files;
	if (!listSpecFiles(path.string(), files, error)) {
		report.problem({ path.string(),
				 0,
				 0,
				 {},
				 "cannot read the directory: " + error.message() });
		report.unreadableDirectory();
		return;
	}
	if (files.empty())
		std::fprintf(stderr, "rbd-volumectl: check: %s: no *.toml files here\n",
			     path.c_str());
	for (const std::string &file : files)
		checkFile(file, rules, report);
}

} /* namespace */

int verbCheck(std::span<const std::string_view> args)
{
	std::vector<std::string_view> targets;
	std::string configFile;
	bool json = false;
	bool options = true;
	for (size_t i = 0; i < args.size(); i++) {
		const std::string_view arg = args[i];
		if (options && arg == "--") {
			options = false;
		} else if (options && arg == "--config") {
			if (i + 1 >= args.size())
				return usageError("check", "--config needs a file", Synopsis);
			configFile = args[++i];
		} else if (options && arg == "--json") {
			json = true;
		} else if (options && arg.size() > 1 && arg.front() == '-') {
			return usageError("check", "unknown option '" + std::string(arg) + "'",
					  Synopsis);
		} else {
			targets.push_back(arg);
		}
	}
	if (targets.empty() && configFile.empty())
		return usageError("check", "expected FILE or DIR arguments", Synopsis);

	CheckReport report(json);
	/* The daemon's settings first: with errors in them it would start with no spec at all. */
	const DaemonRules rules = loadDaemonRules(configFile);
	for (const Diagnostic &diagnostic : rules.problems)
		report.problem(diagnostic);
	if (!rules.ok()) {
		report.problem({ rules.file,
				 0,
				 0,
				 {},
				 "invalid: rbd-volumed would not start; no spec checked" });
		if (json)
			report.finish();
		return ExitFailure;
	}
	if (targets.empty()) { /* `check --config FILE`: the settings alone */
		if (json)
			report.finish();
		else
			std::printf("%s: valid\n", rules.file.c_str());
		return ExitOk;
	}

	for (const std::string_view target : targets)
		checkArgument(target, rules, report);
	report.finish();
	return report.ok() ? ExitOk : ExitFailure;
}

} /* namespace rbdvolume::cli */
