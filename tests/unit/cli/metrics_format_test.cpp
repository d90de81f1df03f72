/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `metrics`' Prometheus text, without a bus. */
#include "cli/metrics_format.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sample_volumes.hpp"

namespace rbdvolume::cli {

namespace {

TEST(Metrics, NoDaemonIsUpZeroAlone)
{
	EXPECT_EQ(formatMetrics(std::nullopt),
		  "# HELP rbdvolume_up Whether rbd-volumed answered (1) or not (0).\n"
		  "# TYPE rbdvolume_up gauge\n"
		  "rbdvolume_up 0\n");
}

TEST(Metrics, EachVolumeItsPhaseSinceWhenConditionsAndCounters)
{
	bus::VolumeProperties logs = testing::failedVolume();
	logs.phaseSince = 1795941601123456ULL;
	logs.retries = 4;
	logs.heals = 1;
	logs.stepUsec = { { "map", 1250000 }, { "unmap", 7 } };
	const std::vector<bus::VolumeProperties> volumes = { logs };
	const std::string text = formatMetrics(std::span<const bus::VolumeProperties>(volumes));
	for (const char *line : {
		     "rbdvolume_up 1\n",
		     "# TYPE rbdvolume_volume_phase gauge\n",
		     "rbdvolume_volume_phase{volume=\"logs\",phase=\"failed\"} 1\n",
		     "rbdvolume_volume_phase{volume=\"logs\",phase=\"up\"} 0\n",
		     "rbdvolume_volume_phase_since_seconds{volume=\"logs\"} 1795941601.123456\n",
		     "rbdvolume_volume_condition{volume=\"logs\",type=\"Failed\"} 1\n",
		     "rbdvolume_volume_condition{volume=\"logs\",type=\"Conflict\"} 1\n",
		     "rbdvolume_volume_busy{volume=\"logs\"} 1\n",
		     "# TYPE rbdvolume_volume_retries_total counter\n",
		     "rbdvolume_volume_retries_total{volume=\"logs\"} 4\n",
		     "rbdvolume_volume_heals_total{volume=\"logs\"} 1\n",
		     "rbdvolume_volume_step_seconds{volume=\"logs\",step=\"map\"} 1.250000\n",
		     "rbdvolume_volume_step_seconds{volume=\"logs\",step=\"unmap\"} 0.000007\n",
	     })
		EXPECT_NE(text.find(line), std::string::npos) << line << "in:\n" << text;
	/* One series a phase: the eight phases, one of them 1. */
	size_t phases = 0;
	for (size_t at = text.find("rbdvolume_volume_phase{"); at != std::string::npos;
	     at = text.find("rbdvolume_volume_phase{", at + 1))
		phases++;
	EXPECT_EQ(phases, 8U);
}

TEST(Metrics, LabelValuesAreEscaped)
{
	bus::VolumeProperties odd = testing::upVolume();
	odd.conditions = { { "a\"b\\c\nd", "" } };
	const std::vector<bus::VolumeProperties> volumes = { odd };
	EXPECT_NE(formatMetrics(std::span<const bus::VolumeProperties>(volumes))
			  .find("rbdvolume_volume_condition{volume=\"db\",type=\"a\\\"b\\\\c\\nd\"}"
				" 1\n"),
		  std::string::npos);
}

} /* namespace */

} /* namespace rbdvolume::cli */
