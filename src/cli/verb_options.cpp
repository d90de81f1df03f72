/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The options the bus verbs share (--json, --no-wait, --timeout, ...), parsed one way. */
#include "cli/verb_options.hpp"

#include <array>
#include <charconv>
#include <cstdio>
#include <optional>
#include <unistd.h>

#include "cli/verbs.hpp"
#include "common/text_escape.hpp"
#include "common/volume_name.hpp"

namespace rbdvolume::cli {

namespace {

/* A week: long enough for any wait, short enough to stay clear of overflow. */
constexpr uint64_t MaxTimeoutSeconds = 7ULL * 24 * 3600;

struct FlagOption {
	std::string_view name;
	VerbOption option;
};

constexpr std::array<FlagOption, 9> Flags = { {
	{ "--json", OptionJson },
	{ "--if-start-cancelled", OptionIfStartCancelled },
	{ "--no-legend", OptionNoLegend },
	{ "--no-wait", OptionNoWait },
	{ "--progress", OptionProgress },
	{ "--verbose", OptionVerbose },
	{ "-v", OptionVerbose },
	{ "--quiet", OptionQuiet },
	{ "-q", OptionQuiet },
} };

std::optional<VerbOption> flagOption(std::string_view arg)
{
	for (const FlagOption &flag : Flags) {
		if (flag.name == arg)
			return flag.option;
	}
	return std::nullopt;
}

Result<uint64_t> parseSeconds(std::string_view text)
{
	uint64_t value = 0;
	const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
	if (text.empty() || error != std::errc() || end != text.data() + text.size() ||
	    value > MaxTimeoutSeconds)
		return fail(Errc::InvalidArgument, "--timeout takes whole seconds from 0 to " +
							   std::to_string(MaxTimeoutSeconds) +
							   ", not '" + std::string(text) + "'");
	return value;
}

void setFlag(VerbOptions &options, VerbOption option)
{
	switch (option) {
	case OptionJson:
		options.json = true;
		break;
	case OptionNoWait:
		options.wait = false;
		break;
	case OptionProgress:
		options.progress = true;
		break;
	case OptionVerbose:
		options.verbose = true;
		break;
	case OptionQuiet:
		options.quiet = true;
		break;
	case OptionNoLegend:
		options.legend = false;
		break;
	case OptionIfStartCancelled:
		options.ifStartCancelled = true;
		break;
	case OptionTimeout:
	case OptionOutput:
		break;
	}
}

} /* namespace */

Result<VerbOptions> parseVerbOptions(std::span<const std::string_view> args, unsigned allowed)
{
	VerbOptions options;
	bool optionsEnded = false;
	for (size_t i = 0; i < args.size(); i++) {
		const std::string_view arg = args[i];
		if (optionsEnded || arg.empty() || arg.front() != '-' || arg == "-") {
			options.operands.emplace_back(arg);
			continue;
		}
		if (arg == "--") {
			optionsEnded = true;
			continue;
		}
		const std::optional<VerbOption> flag = flagOption(arg);
		if (flag && (allowed & *flag) != 0) {
			setFlag(options, *flag);
			continue;
		}
		if ((allowed & OptionTimeout) != 0 &&
		    (arg == "--timeout" || arg.starts_with("--timeout="))) {
			std::string_view value;
			if (arg == "--timeout") {
				if (i + 1 >= args.size())
					return fail(Errc::InvalidArgument,
						    "--timeout needs a value");
				value = args[++i];
			} else {
				value = arg.substr(std::string_view("--timeout=").size());
			}
			auto seconds = parseSeconds(value);
			if (!seconds)
				return tl::make_unexpected(seconds.error());
			options.timeoutSeconds = *seconds;
			continue;
		}
		if ((allowed & OptionOutput) != 0 &&
		    (arg == "--output" || arg.starts_with("--output="))) {
			if (arg == "--output" && i + 1 >= args.size())
				return fail(Errc::InvalidArgument, "--output needs a file");
			options.output = arg == "--output"
						 ? std::string(args[++i])
						 : std::string(arg.substr(
							   std::string_view("--output=").size()));
			if (options.output.empty())
				return fail(Errc::InvalidArgument, "--output needs a file");
			continue;
		}
		return fail(Errc::InvalidArgument, "unknown option '" + std::string(arg) + "'");
	}
	return options;
}

int usageError(std::string_view verb, std::string_view problem, std::string_view synopsis)
{
	std::fprintf(stderr, "rbd-volumectl: %.*s: %.*s\nUsage: rbd-volumectl %.*s %.*s\n",
		     static_cast<int>(verb.size()), verb.data(), static_cast<int>(problem.size()),
		     problem.data(), static_cast<int>(verb.size()), verb.data(),
		     static_cast<int>(synopsis.size()), synopsis.data());
	return ExitUsage;
}

bus::PropertyCallback progressPrinter(const VerbOptions &options)
{
	if (!options.progress && isatty(STDERR_FILENO) == 0)
		return {};
	return [](const std::string &name, const std::string &activity) {
		std::fprintf(stderr, "%s: %s\n", terminalSafe(name).c_str(),
			     terminalSafe(activity).c_str());
		std::fflush(stderr);
	};
}

Result<std::vector<std::string>> volumeNames(const VerbOptions &options, bool required)
{
	if (options.operands.empty() && required)
		return fail(Errc::InvalidArgument, "name a volume");
	for (const std::string &name : options.operands) {
		if (const auto problem = volumeNameProblem(name))
			return fail(Errc::InvalidArgument,
				    "'" + name + "' is not a volume name: " + *problem);
	}
	return options.operands;
}

} /* namespace rbdvolume::cli */
