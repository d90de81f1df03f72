/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cli/metrics_format.hpp"

#include <array>
#include <cstdio>

namespace rbdvolume::cli {

namespace {

using bus::Phase;
using bus::VolumeProperties;

constexpr std::array<Phase, 8> Phases = { Phase::Unknown, Phase::Invalid,  Phase::Down,
					  Phase::Up,	  Phase::Pending,  Phase::Degraded,
					  Phase::Failed,  Phase::Unmanaged };

/* A label value: backslash, double quote and line feed escaped, as the format asks. */
std::string labelValue(std::string_view text)
{
	std::string out;
	for (const char c : text) {
		if (c == '\\' || c == '"')
			out += { '\\', c };
		else if (c == '\n')
			out += "\\n";
		else
			out += c;
	}
	return out;
}

void header(std::string &out, const char *name, const char *type, const char *help)
{
	out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

/* NAME{volume="V"EXTRA} VALUE */
void sample(std::string &out, const char *name, const VolumeProperties &volume,
	    const std::string &extra, const std::string &value)
{
	out += std::string(name) + "{volume=\"" + labelValue(volume.name) + "\"" + extra + "} " +
	       value + "\n";
}

std::string seconds(uint64_t microseconds)
{
	std::array<char, 32> text{};
	std::snprintf(text.data(), text.size(), "%llu.%06llu",
		      static_cast<unsigned long long>(microseconds / 1000000),
		      static_cast<unsigned long long>(microseconds % 1000000));
	return text.data();
}

} /* namespace */

std::string formatMetrics(const std::optional<std::span<const VolumeProperties>> &volumes)
{
	std::string out;
	header(out, "rbdvolume_up", "gauge", "Whether rbd-volumed answered (1) or not (0).");
	out += volumes ? "rbdvolume_up 1\n" : "rbdvolume_up 0\n";
	if (!volumes || volumes->empty())
		return out;

	header(out, "rbdvolume_volume_phase", "gauge",
	       "The volume's phase: 1 for the one it is in, 0 for the others.");
	for (const VolumeProperties &volume : *volumes) {
		for (const Phase phase : Phases)
			sample(out, "rbdvolume_volume_phase", volume,
			       std::string(",phase=\"") + bus::phaseName(phase) + "\"",
			       phase == volume.phase ? "1" : "0");
	}
	header(out, "rbdvolume_volume_phase_since_seconds", "gauge",
	       "When the volume's phase last changed, in seconds since the epoch.");
	for (const VolumeProperties &volume : *volumes)
		sample(out, "rbdvolume_volume_phase_since_seconds", volume, "",
		       seconds(volume.phaseSince));
	header(out, "rbdvolume_volume_condition", "gauge",
	       "Each condition the volume has now (SpecInvalid, Conflict, MapperLost, Failed, "
	       "...).");
	for (const VolumeProperties &volume : *volumes) {
		for (const bus::Condition &condition : volume.conditions)
			sample(out, "rbdvolume_volume_condition", volume,
			       ",type=\"" + labelValue(condition.type) + "\"", "1");
	}
	header(out, "rbdvolume_volume_busy", "gauge", "1 while a reconcile episode runs.");
	for (const VolumeProperties &volume : *volumes)
		sample(out, "rbdvolume_volume_busy", volume, "", volume.busy ? "1" : "0");
	header(out, "rbdvolume_volume_retries_total", "counter",
	       "Failed episodes retried after their backoff, since rbd-volumed started.");
	for (const VolumeProperties &volume : *volumes)
		sample(out, "rbdvolume_volume_retries_total", volume, "",
		       std::to_string(volume.retries));
	header(out, "rbdvolume_volume_step_seconds", "gauge",
	       "How long each step took the last time it ran (map, format-if-blank, ...).");
	for (const VolumeProperties &volume : *volumes) {
		for (const auto &[step, usec] : volume.stepUsec)
			sample(out, "rbdvolume_volume_step_seconds", volume,
			       ",step=\"" + labelValue(step) + "\"", seconds(usec));
	}
	header(out, "rbdvolume_volume_heals_total", "counter",
	       "Times the volume was degraded or failed and then up again, since rbd-volumed "
	       "started.");
	for (const VolumeProperties &volume : *volumes)
		sample(out, "rbdvolume_volume_heals_total", volume, "",
		       std::to_string(volume.heals));
	return out;
}

} /* namespace rbdvolume::cli */
