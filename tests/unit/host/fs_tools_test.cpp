/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The exact mkfs, fsck and grow command lines, and how their exit codes are read. */
#include "host/fs_tools.hpp"

#include <gtest/gtest.h>

#include "fake_runner.hpp"

namespace rbdvolume::testing {
namespace {

using Argv = std::vector<std::string>;

FilesystemSpec fsOf(FsType type, std::vector<std::string> options = {})
{
	FilesystemSpec fs;
	fs.type = type;
	fs.mkfsOptions = std::move(options);
	return fs;
}

constexpr DeviceContents Unknown = DeviceContents::Unknown;
constexpr DeviceContents Zeroes = DeviceContents::Zeroes;

TEST(FsTools, MkfsNeverForcesAndSkipsTheDiscardPass)
{
	const ToolConfig tools;
	EXPECT_EQ(
		mkfsCommand(tools, "/dev/rbd0", fsOf(FsType::Ext4, { "-L", "data" }), Unknown).argv,
		(Argv{ "/usr/sbin/mkfs.ext4", "-q", "-m", "0", "-E", "nodiscard,lazy_itable_init=1",
		       "-L", "data", "/dev/rbd0" }));
	EXPECT_EQ(mkfsCommand(tools, "/dev/rbd0", fsOf(FsType::Xfs), Unknown).argv,
		  (Argv{ "/usr/sbin/mkfs.xfs", "-q", "-K", "/dev/rbd0" }));
	EXPECT_EQ(mkfsCommand(tools, "/dev/rbd0", fsOf(FsType::Xfs), Unknown).timeout,
		  tools.mkfsTimeout);
}

/* Only a device known to read as zeroes may keep an unwritten journal. */
TEST(FsTools, MkfsLeavesTheJournalUnwrittenOnlyOnZeroes)
{
	const ToolConfig tools;
	EXPECT_EQ(mkfsCommand(tools, "/dev/rbd0", fsOf(FsType::Ext4), Zeroes).argv,
		  (Argv{ "/usr/sbin/mkfs.ext4", "-q", "-m", "0", "-E",
			 "nodiscard,lazy_itable_init=1,lazy_journal_init=1", "/dev/rbd0" }));
	EXPECT_EQ(mkfsCommand(tools, "/dev/rbd0", fsOf(FsType::Xfs), Zeroes).argv,
		  (Argv{ "/usr/sbin/mkfs.xfs", "-q", "-K", "/dev/rbd0" }));
}

TEST(FsTools, ToolPathsComeFromTheConfig)
{
	ToolConfig tools;
	tools.mkfsXfs = "/opt/xfs/mkfs.xfs";
	tools.xfsGrowfs = "/opt/xfs/xfs_growfs";
	EXPECT_EQ(mkfsCommand(tools, "/dev/nbd0", fsOf(FsType::Xfs), Unknown).argv.front(),
		  tools.mkfsXfs);
	EXPECT_EQ(growCommands(tools, "/dev/nbd0", "/mnt", fsOf(FsType::Xfs)).front().argv,
		  (Argv{ "/opt/xfs/xfs_growfs", "/mnt" }));
}

TEST(FsTools, GrowCommands)
{
	const ToolConfig tools;
	const auto online = growCommands(tools, "/dev/rbd0", "/st", fsOf(FsType::Ext4));
	ASSERT_EQ(online.size(), 1U);
	EXPECT_EQ(online[0].argv, (Argv{ "/usr/sbin/resize2fs", "/dev/rbd0" }));
	/* Offline, resize2fs wants a forced check first. */
	const auto offline = growCommands(tools, "/dev/rbd0", "", fsOf(FsType::Ext4));
	ASSERT_EQ(offline.size(), 2U);
	EXPECT_EQ(offline[0].argv, (Argv{ "/usr/sbin/e2fsck", "-f", "-p", "/dev/rbd0" }));
	EXPECT_EQ(offline[1].argv, (Argv{ "/usr/sbin/resize2fs", "/dev/rbd0" }));
}

TEST(FsTools, FsckExitCodesAreReadAsKubeletDoes)
{
	for (const int corrected : { 0, 1, 2 }) {
		FakeRunner runner;
		runner.answer(corrected);
		ToolFilesystems formatter(runner, ToolConfig{});
		EXPECT_TRUE(formatter.check("/dev/rbd0", fsOf(FsType::Ext4))) << corrected;
		EXPECT_EQ(runner.commands.at(0).argv,
			  (Argv{ "/usr/sbin/e2fsck", "-p", "/dev/rbd0" }));
	}
	for (const int uncorrected : { 4, 12 }) {
		FakeRunner runner;
		runner.answer(uncorrected, "", "UNEXPECTED INCONSISTENCY");
		ToolFilesystems formatter(runner, ToolConfig{});
		auto checked = formatter.check("/dev/rbd0", fsOf(FsType::Ext4));
		ASSERT_FALSE(checked) << uncorrected;
		EXPECT_EQ(checked.error().code, Errc::Conflict);
		EXPECT_NE(checked.error().message.find("UNEXPECTED INCONSISTENCY"),
			  std::string::npos);
	}
	/* After a power cut: e2fsck replays the journal and exits 0. */
	{
		FakeRunner runner;
		runner.answer(0,
			      "/dev/rbd0: recovering journal\n/dev/rbd0: clean, 12/65536 files\n");
		ToolFilesystems formatter(runner, ToolConfig{});
		EXPECT_EQ(formatter.check("/dev/rbd0", fsOf(FsType::Ext4)).value_or(""),
			  "clean, its journal replayed");
	}
	/* xfs checks itself at mount time: no tool runs. */
	FakeRunner runner;
	ToolFilesystems formatter(runner, ToolConfig{});
	EXPECT_TRUE(formatter.check("/dev/rbd0", fsOf(FsType::Xfs)));
	EXPECT_TRUE(runner.commands.empty());
}

TEST(FsTools, MkfsFailureNamesTheTool)
{
	FakeRunner runner;
	runner.answer(1, "", "mkfs.ext4: Device size reported to be zero.\n");
	ToolFilesystems formatter(runner, ToolConfig{});
	auto formatted = formatter.format("/dev/rbd0", fsOf(FsType::Ext4), Unknown);
	ASSERT_FALSE(formatted);
	EXPECT_EQ(formatted.error().message,
		  "'/usr/sbin/mkfs.ext4' failed on /dev/rbd0: exit status "
		  "1: mkfs.ext4: Device size reported to be zero.");
}

TEST(FsTools, GrowSaysWhetherAnythingChanged)
{
	FakeRunner grew;
	grew.answer(0, "data blocks changed from 131072 to 262144\n");
	EXPECT_EQ(*ToolFilesystems(grew, ToolConfig{}).grow("/dev/rbd0", "/st", fsOf(FsType::Xfs)),
		  Change::Changed);
	FakeRunner nothing;
	nothing.answer(0, "The filesystem is already 262144 (4k) blocks long.  Nothing to do!\n");
	EXPECT_EQ(*ToolFilesystems(nothing, ToolConfig{})
			   .grow("/dev/rbd0", "/st", fsOf(FsType::Ext4)),
		  Change::Unchanged);
}

TEST(FsTools, OnlineExt4RefusedByTheKernelSaysWhy)
{
	FakeRunner runner;
	runner.answer(1, "",
		      "Filesystem at /dev/loop0 is mounted on /st; on-line resizing required\n"
		      "resize2fs: Permission denied to resize filesystem\n");
	auto grown =
		ToolFilesystems(runner, ToolConfig{}).grow("/dev/loop0", "/st", fsOf(FsType::Ext4));
	ASSERT_FALSE(grown);
	EXPECT_EQ(grown.error().code, Errc::PermissionDenied);
	EXPECT_NE(grown.error().message.find("CAP_SYS_RESOURCE"), std::string::npos);
}

TEST(FsTools, XfsNeverGrowsOffline)
{
	FakeRunner runner;
	auto grown = ToolFilesystems(runner, ToolConfig{}).grow("/dev/rbd0", "", fsOf(FsType::Xfs));
	ASSERT_FALSE(grown);
	EXPECT_EQ(grown.error().code, Errc::Unsupported);
	EXPECT_TRUE(runner.commands.empty());
}

TEST(FsTools, OfflineGrowStopsWhenTheCheckFindsErrors)
{
	FakeRunner runner;
	runner.answer(4, "", "e2fsck: errors left\n");
	auto grown =
		ToolFilesystems(runner, ToolConfig{}).grow("/dev/rbd0", "", fsOf(FsType::Ext4));
	ASSERT_FALSE(grown);
	EXPECT_EQ(runner.commands.size(), 1U) << "resize2fs must not run after a failed check";
}

} /* namespace */
} /* namespace rbdvolume::testing */
