/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `rbd-volumectl up NAME`, `down NAME`: the intent of one volume, waiting for it by default. */
#include <cstdio>
#include <string>

#include "cli/bus_client.hpp"
#include "cli/bus_errors.hpp"
#include "cli/verb_options.hpp"
#include "cli/verbs.hpp"

namespace rbdvolume::cli {

namespace {

constexpr std::string_view Synopsis =
	"NAME [--no-wait] [--timeout SECONDS] [--progress] [--verbose]";

/* `verb` is "up" or "down"; `member` the Manager method it calls. */
int setIntent(std::string_view verb, const char *member, std::span<const std::string_view> args)
{
	const auto options = parseVerbOptions(args, OptionNoWait | OptionTimeout | OptionProgress |
							    OptionVerbose);
	if (!options)
		return usageError(verb, options.error().message, Synopsis);
	const auto name = oneVolumeName(*options, true);
	if (!name)
		return usageError(verb, name.error().message, Synopsis);

	WaitSettings settings;
	settings.timeoutSeconds = options->timeoutSeconds;
	settings.progress = options->wait && wantProgress(*options);
	settings.volume = *name;
	auto bus = BusClient::open();
	const Result<void> done = bus ? bus->setIntent(member, *name, options->wait, settings)
				      : Result<void>(tl::make_unexpected(bus.error()));
	if (!done)
		return reportFailure(std::string(verb) + " " + *name, done.error());
	if (options->verbose)
		std::printf("%s: %.*s%s\n", name->c_str(), static_cast<int>(verb.size()),
			    verb.data(), options->wait ? "" : " (requested)");
	return ExitOk;
}

} /* namespace */

int verbUp(std::span<const std::string_view> args)
{
	return setIntent("up", "Up", args);
}

int verbDown(std::span<const std::string_view> args)
{
	return setIntent("down", "Down", args);
}

} /* namespace rbdvolume::cli */
