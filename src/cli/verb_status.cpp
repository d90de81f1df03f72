/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `rbd-volumectl status [NAME] [--json]`: everything the daemon shows of its volumes. */
#include <cstdio>
#include <string>
#include <vector>

#include "bus/client.hpp"
#include "cli/exit_codes.hpp"
#include "cli/status_format.hpp"
#include "cli/verb_options.hpp"
#include "cli/verbs.hpp"

namespace rbdvolume::cli {

namespace {

constexpr std::string_view Synopsis = "[NAME...] [--json]";

Result<bus::VolumeProperties> oneVolume(bus::Client &bus, const std::string &name)
{
	auto path = bus.volumePath(name);
	if (!path)
		return tl::make_unexpected(path.error());
	return bus.volumeProperties(*path);
}

} /* namespace */

/* Exit 0 whenever the volumes are shown, whatever their phase: status reports, it does not judge. */
int verbStatus(std::span<const std::string_view> args)
{
	const auto options = parseVerbOptions(args, OptionJson);
	if (!options)
		return usageError("status", options.error().message, Synopsis);
	const auto names = volumeNames(*options, false);
	if (!names)
		return usageError("status", names.error().message, Synopsis);

	auto bus = bus::Client::open();
	if (!bus)
		return reportFailure("status", bus.error(), options->json);
	auto views =
		names->empty() ? bus->everyVolume() : Result<std::vector<bus::VolumeProperties>>();
	if (!views)
		return reportFailure("status", views.error(), options->json);
	/* The volumes named, in that order: a name the daemon does not know fails the
	 * call (exit 5) before anything is printed. */
	for (const std::string &name : *names) {
		auto view = oneVolume(*bus, name);
		if (!view)
			return reportFailure("status " + name, view.error(), options->json);
		views->push_back(std::move(*view));
	}
	const std::string text =
		options->json ? formatStatusJson(*views) : formatStatusText(*views);
	std::fputs(text.c_str(), stdout);
	return ExitOk;
}

} /* namespace rbdvolume::cli */
