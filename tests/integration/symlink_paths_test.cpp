/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Symbolic links in the paths the mounter is given, on real mounts: a link
 * anywhere in a target, a staging path or a bind source is refused, nothing
 * is mounted or created through it, and an unmount never follows one. What
 * the observer asks before any step (pathProblem) says the same, and names
 * a path of the wrong kind too.
 */
#include <filesystem>
#include <unistd.h>

#include <sys/mount.h>
#include <sys/stat.h>

#include <gtest/gtest.h>

#include "common/fs_util.hpp"
#include "host/libmount_mounter.hpp"
#include "host/proc_mount_table.hpp"
#include "host/safe_path.hpp"
#include "integration_env.hpp"
#include "shell.hpp"

namespace rbdvolume {

namespace {

using testing::freshDir;
using testing::shellOk;

/* A victim directory the links point at, and a tmpfs mounted as "ours" to bind. */
class SymlinkPaths : public ::testing::Test
{
protected:
	void SetUp() override
	{
		dir_ = freshDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
		victim_ = dir_ + "/victim";
		ASSERT_TRUE(makeDirectories(victim_));
		staging_ = dir_ + "/staging";
		ASSERT_TRUE(makeDirectories(staging_));
		ASSERT_EQ(::mount("ours", staging_.c_str(), "tmpfs", 0, nullptr), 0);
	}
	void TearDown() override { shellOk("umount -R " + dir_ + " 2>/dev/null; true"); }

	static MountRequest bindOf(const std::string &source, const std::string &target)
	{
		MountRequest r;
		r.source = source;
		r.target = target;
		r.owner = "vol1";
		return r;
	}
	static void link(const std::string &to, const std::string &at)
	{
		ASSERT_EQ(symlink(to.c_str(), at.c_str()), 0) << at;
	}
	/* Mounts anywhere below the test's directory, as the kernel lists them. */
	static size_t mountsBelow(const std::string &path)
	{
		auto table = ProcMountTable().read();
		size_t count = 0;
		for (const MountEntry &entry : table.value_or(std::vector<MountEntry>{}))
			count += entry.target.rfind(path, 0) == 0 ? 1U : 0U;
		return count;
	}
	static bool exists(const std::string &path)
	{
		struct stat st {
		};
		return lstat(path.c_str(), &st) == 0;
	}

	std::string dir_;
	std::string victim_;
	std::string staging_;
};

TEST_F(SymlinkPaths, ALinkAsTheTargetIsRefusedAndNothingIsMounted)
{
	link(victim_, dir_ + "/lnk");
	LibmountMounter mounter;
	auto refused = mounter.bind(bindOf(staging_, dir_ + "/lnk"));
	ASSERT_FALSE(refused);
	EXPECT_EQ(refused.error().code, Errc::Conflict);
	EXPECT_EQ(refused.error().message,
		  "'" + dir_ + "/lnk' is a symbolic link (to '" + victim_ +
			  "'); rbd-volume never mounts through a symbolic link");
	EXPECT_EQ(mountsBelow(victim_), 0U);
	/* Asked again (a retry), still nothing: no mount piles up. */
	EXPECT_FALSE(mounter.bind(bindOf(staging_, dir_ + "/lnk")));
	EXPECT_EQ(mountsBelow(victim_), 0U);
	EXPECT_EQ(pathProblem(dir_ + "/lnk", PathKind::Directory), refused.error().message);
}

TEST_F(SymlinkPaths, ALinkedParentIsRefusedAndNothingIsCreatedThroughIt)
{
	link(victim_, dir_ + "/lnkdir");
	LibmountMounter mounter;
	auto refused = mounter.bind(bindOf(staging_, dir_ + "/lnkdir/sub/deeper"));
	ASSERT_FALSE(refused);
	EXPECT_EQ(refused.error().code, Errc::Conflict);
	EXPECT_NE(refused.error().message.find("'" + dir_ + "/lnkdir' is a symbolic link"),
		  std::string::npos)
		<< refused.error().message;
	EXPECT_FALSE(exists(victim_ + "/sub")) << "a directory was made through the link";
	EXPECT_EQ(mountsBelow(victim_), 0U);
	EXPECT_EQ(pathProblem(dir_ + "/lnkdir/sub/deeper", PathKind::Directory),
		  "'" + dir_ + "/lnkdir' is a symbolic link (to '" + victim_ +
			  "'); rbd-volume never mounts through a symbolic link");
}

TEST_F(SymlinkPaths, ALinkedStagingPathIsRefusedForAFilesystemMount)
{
	link(victim_, dir_ + "/stage-link");
	LibmountMounter mounter;
	MountRequest request;
	request.source = "/dev/null-never-reached";
	request.target = dir_ + "/stage-link/vol";
	request.fsType = "ext4";
	request.owner = "vol1";
	auto refused = mounter.mount(request);
	ASSERT_FALSE(refused);
	EXPECT_EQ(refused.error().code, Errc::Conflict);
	EXPECT_FALSE(exists(victim_ + "/vol"));
	EXPECT_EQ(mountsBelow(victim_), 0U);
}

TEST_F(SymlinkPaths, ALinkedBindSourceIsRefused)
{
	link(staging_, dir_ + "/source-link");
	LibmountMounter mounter;
	auto refused = mounter.bind(bindOf(dir_ + "/source-link", dir_ + "/target"));
	ASSERT_FALSE(refused);
	EXPECT_EQ(refused.error().code, Errc::Conflict);
	EXPECT_EQ(mountsBelow(dir_ + "/target"), 0U);
}

TEST_F(SymlinkPaths, APlainPathIsMadeAndBoundWithTheMarker)
{
	LibmountMounter mounter;
	const std::string target = dir_ + "/made/on/the/way";
	auto bound = mounter.bind(bindOf(staging_, target));
	ASSERT_TRUE(bound) << bound.error().message;
	EXPECT_EQ(*bound, Change::Changed);
	auto entry = visibleMount(target);
	ASSERT_TRUE(entry && *entry);
	EXPECT_EQ((*entry)->owner, "vol1");
	EXPECT_EQ(pathProblem(target, PathKind::Directory), std::nullopt);
}

/* What stands at a path already decides what may be mounted there, before anything is tried. */
TEST_F(SymlinkPaths, APathOfTheWrongKindIsNamedBeforeAnyMount)
{
	shellOk("touch " + dir_ + "/file && mkdir " + dir_ + "/dir");
	EXPECT_EQ(pathProblem(dir_ + "/file", PathKind::Directory),
		  "'" + dir_ + "/file' is not a directory");
	EXPECT_EQ(pathProblem(dir_ + "/file/below", PathKind::Directory),
		  "'" + dir_ + "/file' is not a directory");
	EXPECT_EQ(pathProblem(dir_ + "/dir", PathKind::File),
		  "'" + dir_ + "/dir' exists and is not a regular file");
	EXPECT_EQ(pathProblem(dir_ + "/file", PathKind::File), std::nullopt);
	EXPECT_EQ(pathProblem(dir_ + "/dir", PathKind::Directory), std::nullopt);
	EXPECT_EQ(pathProblem(dir_ + "/missing/deeper", PathKind::Directory), std::nullopt);
	/* The mounter refuses the same path with the same words. */
	auto refused = LibmountMounter().bind(bindOf(staging_, dir_ + "/file"));
	ASSERT_FALSE(refused);
	EXPECT_EQ(refused.error().message, "'" + dir_ + "/file' is not a directory");
}

/* A parent swapped for a link after the mount was made: the unmount does not follow it. */
TEST_F(SymlinkPaths, AnUnmountNeverFollowsALinkedParent)
{
	LibmountMounter mounter;
	ASSERT_TRUE(mounter.bind(bindOf(staging_, dir_ + "/pub/t")));
	/* The victim holds a mount at the same relative place. */
	ASSERT_TRUE(makeDirectories(victim_ + "/t"));
	ASSERT_EQ(::mount("victim", (victim_ + "/t").c_str(), "tmpfs", 0, nullptr), 0);
	ASSERT_EQ(rename((dir_ + "/pub").c_str(), (dir_ + "/pub.old").c_str()), 0);
	link(victim_, dir_ + "/pub");

	auto refused = mounter.unmount(dir_ + "/pub/t");
	ASSERT_FALSE(refused);
	EXPECT_EQ(refused.error().code, Errc::Conflict);
	auto victim = visibleMount(victim_ + "/t");
	ASSERT_TRUE(victim && *victim) << "the victim's mount was unmounted";
	EXPECT_EQ((*victim)->source, "victim");
}

TEST_F(SymlinkPaths, AnUnmountOfALinkItselfIsRefused)
{
	ASSERT_TRUE(makeDirectories(victim_ + "/t"));
	ASSERT_EQ(::mount("victim", (victim_ + "/t").c_str(), "tmpfs", 0, nullptr), 0);
	link(victim_ + "/t", dir_ + "/t-link");
	LibmountMounter mounter;
	auto refused = mounter.unmount(dir_ + "/t-link");
	ASSERT_FALSE(refused);
	EXPECT_EQ(refused.error().code, Errc::Conflict);
	auto victim = visibleMount(victim_ + "/t");
	ASSERT_TRUE(victim && *victim);
}

} /* namespace */

} /* namespace rbdvolume */
