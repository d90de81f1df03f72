/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The `list` and `status` renderings, text and JSON, without a bus. */
#include "cli/status_format.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sample_volumes.hpp"

namespace rbdvolume::cli {

namespace {

using testing::failedVolume;
using testing::invalidVolume;
using testing::upVolume;

/* A row of `list`: what it shows of a volume. */
VolumeProperties row(std::string name, std::string intent, bus::Phase phase,
		     std::string device = "")
{
	VolumeProperties volume;
	volume.name = std::move(name);
	volume.intent = std::move(intent);
	volume.phase = phase;
	volume.device = std::move(device);
	return volume;
}

std::vector<VolumeProperties> summaries()
{
	return { row("archive.2020", "", bus::Phase::Invalid),
		 row("db", "up", bus::Phase::Up, "/dev/rbd0"),
		 row("logs", "down", bus::Phase::Failed, "/dev/nbd1") };
}

constexpr const char *UpBlock = "db\n"
				"  spec file:    /etc/rbd-volume/volumes/db.toml\n"
				"  intent:       up\n"
				"  phase:        up\n"
				"  stage:        published\n"
				"  device:       /dev/rbd0\n"
				"  staging path: /var/lib/rbd-volume/staging/db\n"
				"  targets:      /srv/db\n"
				"                /srv/db-replica\n"
				"  busy:         no\n"
				"  generation:   3 (observed 3)\n"
				"  conditions:   none\n"
				"  last error:   none\n";

constexpr const char *FailedBlock =
	"logs\n"
	"  spec file:    /etc/rbd-volume/volumes/logs.toml\n"
	"  intent:       down\n"
	"  phase:        failed\n"
	"  stage:        mapped\n"
	"  device:       /dev/nbd1\n"
	"  staging path: -\n"
	"  targets:      none\n"
	"  busy:         yes: unmap rbd/logs\n"
	"  generation:   5 (observed 4)\n"
	"  conditions:   Failed: unmap: device or resource busy\n"
	"                Conflict: /srv/logs is mounted by another process\n"
	"  last error:   org.rbdvolume1.Error.Failed: rbd unmap exited 16\n";

TEST(ListTable, EmptyIsTheHeaderAlone)
{
	EXPECT_EQ(formatVolumeTable({}), "NAME  INTENT  PHASE  DEVICE\n");
}

TEST(ListTable, ColumnsLineUpAndAnEmptyValueIsADash)
{
	EXPECT_EQ(formatVolumeTable(summaries()), "NAME          INTENT  PHASE    DEVICE\n"
						  "archive.2020  -       invalid  -\n"
						  "db            up      up       /dev/rbd0\n"
						  "logs          down    failed   /dev/nbd1\n");
}

TEST(ListTable, NoLegendKeepsTheRowsAndTheirColumns)
{
	EXPECT_EQ(formatVolumeTable(summaries(), false),
		  "archive.2020  -       invalid  -\n"
		  "db            up      up       /dev/rbd0\n"
		  "logs          down    failed   /dev/nbd1\n");
	EXPECT_EQ(formatVolumeTable({}, false), "");
}

TEST(ListTable, WidthsCountCharactersNotBytes)
{
	const std::vector<VolumeProperties> volumes = { row("données", "up", bus::Phase::Up),
							row("db", "down", bus::Phase::Down) };
	EXPECT_EQ(formatVolumeTable(volumes), "NAME     INTENT  PHASE  DEVICE\n"
					      "données  up      up     -\n"
					      "db       down    down   -\n");
}

TEST(ListTable, ControlCharactersCannotBreakARow)
{
	const std::vector<VolumeProperties> volumes = { row("a\nb", "\x1b[31mred", bus::Phase::Up,
							    "/dev/\x1b") };
	EXPECT_EQ(formatVolumeTable(volumes), "NAME  INTENT       PHASE  DEVICE\n"
					      "a\\nb  \\x1b[31mred  up     /dev/\\x1b\n");
}

TEST(ListJson, EmptyAndSeveral)
{
	EXPECT_EQ(formatVolumeListJson({}), "{\"volumes\":[]}\n");
	EXPECT_EQ(formatVolumeListJson(summaries()),
		  "{\"volumes\":[{\"name\":\"archive.2020\",\"intent\":\"\",\"phase\":\"invalid\","
		  "\"device\":\"\"},"
		  "{\"name\":\"db\",\"intent\":\"up\",\"phase\":\"up\",\"device\":\"/dev/rbd0\"},"
		  "{\"name\":\"logs\",\"intent\":\"down\",\"phase\":\"failed\",\"device\":\"/dev/"
		  "nbd1\"}]}\n");
}

TEST(StatusText, NoVolumes)
{
	EXPECT_EQ(formatStatusText({}), "no volumes\n");
}

TEST(StatusText, OneVolumeUp)
{
	const std::vector<VolumeProperties> volumes = { upVolume() };
	EXPECT_EQ(formatStatusText(volumes), UpBlock);
}

TEST(StatusText, ConditionsEachOnTheirLineAndTheLastError)
{
	const std::vector<VolumeProperties> volumes = { failedVolume() };
	EXPECT_EQ(formatStatusText(volumes), FailedBlock);
}

TEST(StatusText, BlocksAreSeparatedByAnEmptyLine)
{
	const std::vector<VolumeProperties> volumes = { upVolume(), failedVolume() };
	EXPECT_EQ(formatStatusText(volumes), std::string(UpBlock) + "\n" + FailedBlock);
}

TEST(StatusText, EscapesWhatWouldBreakTheLayout)
{
	const std::vector<VolumeProperties> volumes = { invalidVolume() };
	EXPECT_EQ(formatStatusText(volumes),
		  "archive.2020\n"
		  "  spec file:    -\n"
		  "  intent:       -\n"
		  "  phase:        invalid\n"
		  "  stage:        absent\n"
		  "  device:       -\n"
		  "  staging path: -\n"
		  "  targets:      none\n"
		  "  busy:         no\n"
		  "  generation:   1 (observed 0)\n"
		  "  conditions:   SpecInvalid: 3:8: pool: \"x\\y\"\\tis\\nnot ünïcode-safe\n"
		  "  last error:   none\n");
}

TEST(StatusText, BusyWithoutActivityAndPartialErrors)
{
	VolumeProperties view = upVolume();
	view.busy = true;
	view.conditions = { { "MapperLost", "" } };
	view.lastErrorName = "";
	view.lastErrorMessage = "only a message";
	const std::vector<VolumeProperties> volumes = { view };
	const std::string text = formatStatusText(volumes);
	EXPECT_NE(text.find("  busy:         yes\n"), std::string::npos) << text;
	EXPECT_NE(text.find("  conditions:   MapperLost\n"), std::string::npos) << text;
	EXPECT_NE(text.find("  last error:   only a message\n"), std::string::npos) << text;
}

TEST(StatusJson, Empty)
{
	EXPECT_EQ(formatStatusJson({}), "{\"volumes\":[]}\n");
}

TEST(StatusJson, EveryFieldInTheDocumentedOrder)
{
	const std::vector<VolumeProperties> volumes = { upVolume(), failedVolume() };
	EXPECT_EQ(
		formatStatusJson(volumes),
		"{\"volumes\":["
		"{\"name\":\"db\",\"spec_file\":\"/etc/rbd-volume/volumes/db.toml\","
		"\"intent\":\"up\",\"phase\":\"up\",\"stage\":\"published\",\"busy\":false,"
		"\"activity\":\"\",\"device\":\"/dev/rbd0\","
		"\"staging_path\":\"/var/lib/rbd-volume/staging/db\","
		"\"publish_targets\":[\"/srv/db\",\"/srv/db-replica\"],\"conditions\":[],"
		"\"last_error\":null,\"generation\":3,\"observed_generation\":3},"
		"{\"name\":\"logs\",\"spec_file\":\"/etc/rbd-volume/volumes/logs.toml\","
		"\"intent\":\"down\",\"phase\":\"failed\",\"stage\":\"mapped\",\"busy\":true,"
		"\"activity\":\"unmap rbd/logs\",\"device\":\"/dev/nbd1\",\"staging_path\":\"\","
		"\"publish_targets\":[],\"conditions\":["
		"{\"type\":\"Failed\",\"message\":\"unmap: device or resource busy\"},"
		"{\"type\":\"Conflict\",\"message\":\"/srv/logs is mounted by another process\"}],"
		"\"last_error\":{\"name\":\"org.rbdvolume1.Error.Failed\","
		"\"message\":\"rbd unmap exited 16\"},"
		"\"generation\":5,\"observed_generation\":4}"
		"]}\n");
}

TEST(StatusJson, StringsAreEscaped)
{
	const std::vector<VolumeProperties> volumes = { invalidVolume() };
	const std::string json = formatStatusJson(volumes);
	EXPECT_NE(json.find("\"conditions\":[{\"type\":\"SpecInvalid\","
			    "\"message\":\"3:8: pool: \\\"x\\\\y\\\"\\tis\\nnot ünïcode-safe\"}]"),
		  std::string::npos)
		<< json;
}

TEST(StatusJson, LargeGenerationsStayExact)
{
	VolumeProperties view = upVolume();
	view.generation = 18446744073709551615ULL;
	const std::vector<VolumeProperties> volumes = { view };
	EXPECT_NE(formatStatusJson(volumes).find("\"generation\":18446744073709551615,"),
		  std::string::npos);
}

} /* namespace */

} /* namespace rbdvolume::cli */
