/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The record of one step: its level, message, MESSAGE_ID and fields. */
#include "report/step_record.hpp"

#include <algorithm>

#include <gtest/gtest.h>

#include "journal/message_ids.hpp"

namespace rbdvolume::testing {
namespace {

VolumeSpec dataSpec()
{
	VolumeSpec spec;
	spec.name = "data";
	spec.image.pool = "rbd";
	spec.image.name = "img";
	return spec;
}

std::string field(const log::Line &line, std::string_view name)
{
	const auto found = std::find_if(line.fields.begin(), line.fields.end(),
					[&](const log::Field &f) { return f.name == name; });
	return found == line.fields.end() ? "(none)" : found->value;
}

StepOutcome outcomeOf(Step step, Change change, std::string device, std::string detail)
{
	return StepOutcome{ std::move(step),
			    change,
			    std::nullopt,
			    false,
			    std::move(device),
			    std::move(detail),
			    std::chrono::microseconds(1500) };
}

TEST(StepRecord, AFormatIsAnEventWithItsCommandLine)
{
	const log::Line line =
		stepLine(dataSpec(), outcomeOf(FormatStep{}, Change::Changed, "/dev/rbd0",
					       "'/usr/sbin/mkfs.ext4' '-q' '/dev/rbd0'"));
	EXPECT_EQ(line.level, log::Level::Info);
	EXPECT_EQ(line.messageId, log::ids::Formatted);
	EXPECT_EQ(line.message,
		  "volume 'data': formatted /dev/rbd0: '/usr/sbin/mkfs.ext4' '-q' '/dev/rbd0' "
		  "(0.002 s)");
	EXPECT_EQ(field(line, "RBDV_VOLUME"), "data");
	EXPECT_EQ(field(line, "RBDV_STEP"), "format-if-blank");
	EXPECT_EQ(field(line, "RBDV_IMAGE"), "rbd/img");
	EXPECT_EQ(field(line, "RBDV_DRIVER"), "krbd");
	EXPECT_EQ(field(line, "RBDV_DEVICE"), "/dev/rbd0");
	EXPECT_EQ(field(line, "RBDV_RESULT"), "changed");
	EXPECT_EQ(field(line, "RBDV_DURATION_USEC"), "1500");
}

TEST(StepRecord, NothingToDoIsDebugButFsckSaysItsVerdict)
{
	log::Line line =
		stepLine(dataSpec(), outcomeOf(GrowStep{}, Change::Unchanged, "/dev/nbd3", ""));
	EXPECT_EQ(line.level, log::Level::Debug);
	EXPECT_EQ(field(line, "RBDV_RESULT"), "unchanged");
	EXPECT_EQ(field(line, "RBDV_DRIVER"), "nbd");
	EXPECT_TRUE(line.messageId.empty());
	line = stepLine(dataSpec(),
			outcomeOf(CheckStep{}, Change::Unchanged, "/dev/loop4", "clean"));
	EXPECT_EQ(line.level, log::Level::Info);
	EXPECT_EQ(line.message, "volume 'data': check /dev/loop4: clean: nothing to change");
	EXPECT_EQ(field(line, "RBDV_DRIVER"), "fuse");
}

TEST(StepRecord, FailuresAreErrorsAndTimeoutsWarnings)
{
	StepOutcome failed = outcomeOf(MapStep{}, Change::Unchanged, "", "");
	failed.error = Error{ Errc::Busy, "rbd/img has another writer: client.4151", EBUSY };
	log::Line line = stepLine(dataSpec(), failed);
	EXPECT_EQ(line.level, log::Level::Err);
	EXPECT_EQ(line.messageId, log::ids::OtherWriter);
	EXPECT_EQ(line.message,
		  "volume 'data': map failed: rbd/img has another writer: client.4151");
	EXPECT_EQ(field(line, "RBDV_RESULT"), "failed");
	EXPECT_EQ(field(line, "RBDV_DEVICE"), "(none)");

	StepOutcome late = outcomeOf(UnmountStep{ "/srv/data", false }, Change::Unchanged,
				     "/dev/rbd0", "/srv/data");
	late.error = Error{ Errc::Timeout, "unmounting '/srv/data' did not come back", ETIMEDOUT };
	late.uncertain = true;
	line = stepLine(dataSpec(), late);
	EXPECT_EQ(line.level, log::Level::Warning);
	EXPECT_EQ(field(line, "RBDV_RESULT"), "uncertain");
}

TEST(StepRecord, TheRecordFollowingTheHostIsSaid)
{
	VolumeSpec spec = dataSpec();
	spec.staging.path = "/run/rbd-volume/staging/data";
	Ownership stored;
	stored.mappedDevice = "/dev/rbd0";
	stored.staged = true;
	stored.publishedTargets = { "/srv/a", "/srv/b" };
	Ownership tidied = stored;
	tidied.publishedTargets = { "/srv/a" };
	tidied.sizedBytes = 1U << 30;
	const auto line = ownershipLine(spec, stored, tidied);
	ASSERT_TRUE(line);
	EXPECT_EQ(line->message, "volume 'data': ownership record: dropped the target /srv/b (as "
				 "the host shows it)");
	EXPECT_EQ(field(*line, "RBDV_STEP"), "record");

	/* A size learned from the superblock is nothing an operator must read. */
	tidied.publishedTargets = stored.publishedTargets;
	EXPECT_FALSE(ownershipLine(spec, stored, tidied));

	tidied.mappedDevice = "/dev/rbd1";
	tidied.staged = false;
	EXPECT_EQ(ownershipLine(spec, stored, tidied)->message,
		  "volume 'data': ownership record: dropped the mapping /dev/rbd0; adopted the "
		  "mapping /dev/rbd1; dropped the staging mount /run/rbd-volume/staging/data (as "
		  "the host shows it)");
}

} /* namespace */
} /* namespace rbdvolume::testing */
