/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `rbd-volumectl monitor [NAME...] [--json]`: each phase change of the
 * volumes as it happens, one line each, until Ctrl-C (as `udisksctl
 * monitor`). It never starts rbd-volumed: it waits for one, and says when
 * it comes and goes.
 */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "bus/client.hpp"
#include "cli/exit_codes.hpp"
#include "cli/monitor_format.hpp"
#include "cli/verb_options.hpp"
#include "cli/verbs.hpp"

namespace rbdvolume::cli {

namespace {

/* Whether a phase says something is wrong: its conditions come with it. */
bool troubled(std::string_view phase)
{
	return phase == "degraded" || phase == "failed" || phase == "invalid";
}

} /* namespace */

/* Exit 0 on SIGINT or SIGTERM: watching has no other end. */
int verbMonitor(std::span<const std::string_view> args)
{
	constexpr std::string_view Synopsis = "[NAME...] [--json]";
	const auto options = parseVerbOptions(args, OptionJson);
	if (!options)
		return usageError("monitor", options.error().message, Synopsis);
	const auto names = volumeNames(*options, false);
	if (!names)
		return usageError("monitor", names.error().message, Synopsis);

	auto bus = bus::Client::open();
	if (!bus)
		return reportFailure("monitor", bus.error(), options->json);
	/* What each volume showed last: a change is printed with what it was. */
	std::map<std::string, std::string> shown;
	/* ListVolumes has every phase: no property reads needed for the start. */
	if (auto running = bus->daemonRunning(); running && *running) {
		if (auto volumes = bus->listVolumes())
			for (const bus::VolumeSummary &volume : *volumes)
				shown[volume.name] = bus::phaseName(volume.phase);
	}
	const auto print = [&options](const MonitorEvent &event) {
		const std::string line =
			options->json ? formatMonitorJson(event) : formatMonitorText(event);
		std::fputs(line.c_str(), stdout);
		std::fflush(stdout); /* a pipe or a file sees each line as it happens */
	};
	const auto onPhase = [&](const std::string &name, const std::string &phase) {
		if (!names->empty() &&
		    std::find(names->begin(), names->end(), name) == names->end())
			return;
		std::string &last = shown[name];
		if (last == phase)
			return;
		MonitorEvent event{ std::chrono::system_clock::now(), name, phase, last, {} };
		last = phase;
		if (troubled(phase)) {
			auto properties = bus->volumeProperties(bus::volumePath(name));
			if (properties)
				event.conditions = properties->conditions;
		}
		print(event);
	};
	const auto onDaemon = [&](bool running) {
		print(MonitorEvent{ std::chrono::system_clock::now(),
				    "",
				    running ? "started" : "stopped",
				    "",
				    {} });
	};
	if (auto watched = bus->watchPhases(onPhase, onDaemon); !watched)
		return reportFailure("monitor", watched.error(), options->json);
	return ExitOk;
}

} /* namespace rbdvolume::cli */
