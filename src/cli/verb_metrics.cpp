/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `rbd-volumectl metrics [--output FILE]`: the volumes in Prometheus' text
 * format, on stdout or written atomically to FILE (node_exporter's
 * textfile collector reads *.prom; rbd-volume-metrics.timer writes one). It
 * never starts rbd-volumed: without one it reports rbdvolume_up 0.
 */
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bus/client.hpp"
#include "cli/exit_codes.hpp"
#include "cli/metrics_format.hpp"
#include "cli/verb_options.hpp"
#include "cli/verbs.hpp"
#include "common/file_io.hpp"

namespace rbdvolume::cli {

int verbMetrics(std::span<const std::string_view> args)
{
	constexpr std::string_view Synopsis = "[--output FILE]";
	const auto options = parseVerbOptions(args, OptionOutput);
	if (!options)
		return usageError("metrics", options.error().message, Synopsis);
	if (!options->operands.empty())
		return usageError("metrics", "takes no volume names", Synopsis);

	std::optional<std::vector<bus::VolumeProperties>> volumes;
	if (auto bus = bus::Client::open()) {
		/* A daemon that is not running is reported, not started. */
		if (auto running = bus->daemonRunning(); running && *running) {
			if (auto listed = bus->everyVolume())
				volumes = std::move(*listed);
		}
	}
	const std::string text =
		volumes ? formatMetrics(std::span<const bus::VolumeProperties>(*volumes))
			: formatMetrics(std::nullopt);
	if (options->output.empty()) {
		std::fputs(text.c_str(), stdout);
		return ExitOk;
	}
	if (auto written = writeFileAtomic(options->output, text, 0644); !written)
		return reportFailure("metrics", written.error());
	return ExitOk;
}

} /* namespace rbdvolume::cli */
