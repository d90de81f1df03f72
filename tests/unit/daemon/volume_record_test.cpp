/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the journal says when a volume's status changes, and when it does not. */
#include "daemon/volume_record.hpp"

#include <string>

#include <gtest/gtest.h>

#include "journal/message_ids.hpp"

namespace rbdvolume::testing {
namespace {

using bus::Phase;
using daemon::VolumeStatus;

VolumeStatus statusIn(Phase phase)
{
	VolumeStatus status;
	status.name = "data";
	status.phase = phase;
	if (phase == Phase::Up) {
		status.device = "/dev/rbd0";
		status.stagingPath = "/run/rbd-volume/staging/data";
		status.publishTargets = { "/srv/data", "/srv/backup" };
	}
	return status;
}

/* Feeds `record` the statuses in turn; the lines of the last change. */
std::vector<log::Line> linesAfter(daemon::VolumeRecord &record, std::vector<VolumeStatus> statuses)
{
	std::vector<log::Line> lines;
	for (size_t i = 1; i < statuses.size(); i++)
		lines = record.changed(statuses[i - 1], statuses[i]);
	return lines;
}

TEST(VolumeRecord, UpAndDownAreEvents)
{
	daemon::VolumeRecord record(true);
	auto lines = linesAfter(record, { statusIn(Phase::Unknown), statusIn(Phase::Down),
					  statusIn(Phase::Pending), statusIn(Phase::Up) });
	ASSERT_EQ(lines.size(), 1U);
	EXPECT_EQ(lines[0].messageId, log::ids::VolumeUp);
	EXPECT_EQ(lines[0].message,
		  "volume 'data' is up: /dev/rbd0 staged at "
		  "/run/rbd-volume/staging/data, published at /srv/data, /srv/backup");
	lines = linesAfter(
		record, { statusIn(Phase::Up), statusIn(Phase::Pending), statusIn(Phase::Down) });
	ASSERT_EQ(lines.size(), 1U);
	EXPECT_EQ(lines[0].messageId, log::ids::VolumeDown);
}

/* A pass that changed nothing, or a daemon's first look, is no news. */
TEST(VolumeRecord, NoNewsIsNotWritten)
{
	daemon::VolumeRecord record(true);
	EXPECT_TRUE(linesAfter(record, { statusIn(Phase::Unknown), statusIn(Phase::Up) }).empty());
	EXPECT_TRUE(linesAfter(record, { statusIn(Phase::Up), statusIn(Phase::Pending),
					 statusIn(Phase::Up) })
			    .empty());
}

/* A volume whose spec appeared while the daemon ran: up is news, down is not. */
TEST(VolumeRecord, AVolumeAddedLaterIsNewsWhenUp)
{
	daemon::VolumeRecord up(false);
	auto lines = linesAfter(
		up, { statusIn(Phase::Unknown), statusIn(Phase::Pending), statusIn(Phase::Up) });
	ASSERT_EQ(lines.size(), 1U);
	EXPECT_EQ(lines[0].messageId, log::ids::VolumeUp);
	daemon::VolumeRecord down(false);
	EXPECT_TRUE(linesAfter(down, { statusIn(Phase::Unknown), statusIn(Phase::Down) }).empty());
}

TEST(VolumeRecord, ARefusalAndALostMapperAreWarnedOnce)
{
	VolumeStatus degraded = statusIn(Phase::Degraded);
	degraded.conditions = { { "Conflict", "foreign-signature /dev/rbd0: carries 'xfs'" },
				{ "MapperLost",
				  "mapper-lost /dev/nbd0: nothing serves /dev/nbd0" } };
	daemon::VolumeRecord record(true);
	auto lines = linesAfter(record, { statusIn(Phase::Unknown), statusIn(Phase::Up),
					  statusIn(Phase::Pending), degraded });
	ASSERT_EQ(lines.size(), 2U);
	EXPECT_EQ(lines[0].level, log::Level::Warning);
	EXPECT_EQ(lines[0].messageId, log::ids::FormatRefused);
	EXPECT_EQ(lines[1].messageId, log::ids::MapperLost);
	EXPECT_TRUE(record.changed(degraded, degraded).empty());
}

/* A stall is warned once with its id; the answer's return says the volume is up again. */
TEST(VolumeRecord, AStallIsWarnedOnceAndTheRecoveryToo)
{
	VolumeStatus stalled = statusIn(Phase::Degraded);
	stalled.conditions = { { "IoStalled", "io-stalled /dev/rbd0: no answer from the cluster "
					      "since 10:02:03 (requests wait on /dev/rbd0)" } };
	daemon::VolumeRecord record(true);
	auto lines = linesAfter(record, { statusIn(Phase::Unknown), statusIn(Phase::Up), stalled });
	ASSERT_EQ(lines.size(), 1U);
	EXPECT_EQ(lines[0].level, log::Level::Warning);
	EXPECT_EQ(lines[0].messageId, log::ids::IoStalled);
	EXPECT_TRUE(record.changed(stalled, stalled).empty());
	lines = record.changed(stalled, statusIn(Phase::Up));
	ASSERT_EQ(lines.size(), 1U);
	EXPECT_EQ(lines[0].messageId, log::ids::VolumeUp);
}

/* A filesystem's errors are warned once: more of them later are in status, not news. */
TEST(VolumeRecord, FilesystemErrorsAreWarnedOnceHoweverManyFollow)
{
	const auto withErrors = [](int count) {
		VolumeStatus status = statusIn(Phase::Degraded);
		status.conditions = { { "FilesystemErrors",
					"ext4 on /dev/rbd0 recorded " + std::to_string(count) +
						" errors since its last check" } };
		return status;
	};
	daemon::VolumeRecord record(true);
	auto lines = linesAfter(record,
				{ statusIn(Phase::Unknown), statusIn(Phase::Up), withErrors(1) });
	ASSERT_EQ(lines.size(), 1U);
	EXPECT_EQ(lines[0].messageId, log::ids::FilesystemErrors);
	EXPECT_TRUE(record.changed(withErrors(1), withErrors(2)).empty());
	EXPECT_TRUE(record.changed(withErrors(2), withErrors(7)).empty());
	/* checked clean, up again, then new errors: news again */
	EXPECT_EQ(record.changed(withErrors(7), statusIn(Phase::Up)).size(), 1U);
	lines = record.changed(statusIn(Phase::Up), withErrors(1));
	ASSERT_EQ(lines.size(), 1U);
	EXPECT_EQ(lines[0].messageId, log::ids::FilesystemErrors);
}

} /* namespace */
} /* namespace rbdvolume::testing */
