/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `rbd-volumectl reconcile [NAME]` and `reload`: a pass now, or the spec directories re-read. */
#include <cstdio>
#include <string>

#include "bus/client.hpp"
#include "cli/exit_codes.hpp"
#include "cli/verb_options.hpp"
#include "cli/verbs.hpp"

namespace rbdvolume::cli {

int verbReconcile(std::span<const std::string_view> args)
{
	constexpr std::string_view Synopsis =
		"[NAME...] [--timeout SECONDS] [--progress] [--verbose]";
	const auto options = parseVerbOptions(args, OptionTimeout | OptionProgress | OptionVerbose);
	if (!options)
		return usageError("reconcile", options.error().message, Synopsis);
	auto names = volumeNames(*options, false);
	if (!names)
		return usageError("reconcile", names.error().message, Synopsis);
	if (names->empty())
		names->emplace_back(); /* "": every volume with an intent */

	/* One after the other, each waited for; the first failure's status, the rest still run. */
	int status = ExitOk;
	for (const std::string &name : *names) {
		bus::WaitSettings settings;
		settings.timeoutSeconds = options->timeoutSeconds;
		settings.onActivity = progressPrinter(*options);
		settings.volume = name;
		auto bus = bus::Client::open();
		const Result<void> done = bus ? bus->reconcile(name, settings)
					      : Result<void>(tl::make_unexpected(bus.error()));
		if (!done) {
			const int failed = reportFailure(
				name.empty() ? "reconcile" : "reconcile " + name, done.error());
			status = status == ExitOk ? failed : status;
			continue;
		}
		if (options->verbose)
			std::printf("%s: reconciled\n",
				    name.empty() ? "every volume" : name.c_str());
	}
	return status;
}

int verbReload(std::span<const std::string_view> args)
{
	constexpr std::string_view Synopsis = "[--timeout SECONDS] [--verbose]";
	const auto options = parseVerbOptions(args, OptionTimeout | OptionVerbose);
	if (!options)
		return usageError("reload", options.error().message, Synopsis);
	if (!options->operands.empty())
		return usageError("reload", "takes no arguments", Synopsis);

	bus::WaitSettings settings;
	settings.timeoutSeconds = options->timeoutSeconds;
	auto bus = bus::Client::open();
	const Result<void> done =
		bus ? bus->reload(settings) : Result<void>(tl::make_unexpected(bus.error()));
	if (!done)
		return reportFailure("reload", done.error());
	if (options->verbose)
		std::printf("reloaded\n");
	return ExitOk;
}

} /* namespace rbdvolume::cli */
