/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `rbd-volumectl list [--json] [--no-legend]`: every volume rbd-volumed knows, its intent, phase and device. */
#include <cstdio>

#include "bus/client.hpp"
#include "cli/exit_codes.hpp"
#include "cli/status_format.hpp"
#include "cli/verb_options.hpp"
#include "cli/verbs.hpp"

namespace rbdvolume::cli {

int verbList(std::span<const std::string_view> args)
{
	constexpr std::string_view Synopsis = "[--json] [--no-legend]";
	const auto options = parseVerbOptions(args, OptionJson | OptionNoLegend);
	if (!options)
		return usageError("list", options.error().message, Synopsis);
	if (!options->operands.empty())
		return usageError("list", "takes no arguments", Synopsis);

	auto bus = bus::Client::open();
	auto volumes =
		bus ? bus->everyVolume()
		    : Result<std::vector<bus::VolumeProperties>>(tl::make_unexpected(bus.error()));
	if (!volumes)
		return reportFailure("list", volumes.error(), options->json);
	const std::string text = options->json ? formatVolumeListJson(*volumes)
					       : formatVolumeTable(*volumes, options->legend);
	std::fputs(text.c_str(), stdout);
	return ExitOk;
}

} /* namespace rbdvolume::cli */
