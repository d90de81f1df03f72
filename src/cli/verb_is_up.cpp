/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `rbd-volumectl is-up NAME... [--quiet]`: a script's test, as `systemctl
 * is-active` is for units. Prints each volume's phase, one a line (nothing
 * with --quiet); exits 0 when every one is up, 1 otherwise, 5 for a name
 * the daemon does not know, 3 without the daemon, 75 when it did not answer.
 */
#include <cstdio>
#include <string>

#include "bus/client.hpp"
#include "cli/exit_codes.hpp"
#include "cli/verb_options.hpp"
#include "cli/verbs.hpp"
#include "common/volume_name.hpp"

namespace rbdvolume::cli {

int verbIsUp(std::span<const std::string_view> args)
{
	constexpr std::string_view Synopsis = "NAME... [--quiet]";
	const auto options = parseVerbOptions(args, OptionQuiet);
	if (!options)
		return usageError("is-up", options.error().message, Synopsis);
	if (options->operands.empty())
		return usageError("is-up", "name a volume", Synopsis);
	for (const std::string &name : options->operands) {
		if (const auto problem = volumeNameProblem(name))
			return usageError("is-up",
					  "'" + name + "' is not a volume name: " + *problem,
					  Synopsis);
	}

	auto bus = bus::Client::open();
	if (!bus)
		return reportFailure("is-up", bus.error());
	int status = ExitOk;
	for (const std::string &name : options->operands) {
		auto path = bus->volumePath(name, false);
		auto shown =
			path ? bus->volumeProperties(*path) : tl::make_unexpected(path.error());
		if (!shown)
			return reportFailure("is-up " + name, shown.error());
		if (!options->quiet)
			std::printf("%s\n", bus::phaseName(shown->phase));
		if (shown->phase != bus::Phase::Up)
			status = ExitFailure;
	}
	return status;
}

} /* namespace rbdvolume::cli */
