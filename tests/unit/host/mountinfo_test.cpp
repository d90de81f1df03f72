/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* mountinfo and utab parsed and joined as libmount joins them (host/mountinfo). */
#include "host/mountinfo.hpp"

#include <gtest/gtest.h>

namespace rbdvolume::testing {
namespace {

constexpr std::string_view Table =
	"22 27 0:21 / /proc rw,relatime - proc proc rw\n"
	"36 27 7:0 / /run/rbd-volume/staging/data rw,relatime shared:5 master:1 - ext4 "
	"/dev/loop0 rw\n"
	"37 27 7:0 / /srv/my\\040data ro,relatime shared:5 - ext4 /dev/loop0 rw\n"
	"38 27 0:6 /loop1 /srv/raw rw,nosuid - devtmpfs udev rw,size=100k\n"
	"39 27 0:50 / /mnt/empty rw - tmpfs  rw\n";

MountEntry entry(std::string target, std::string source, std::string root = "/",
		 std::string owner = "")
{
	MountEntry e;
	e.target = std::move(target);
	e.source = std::move(source);
	e.root = std::move(root);
	e.fsType = "ext4";
	e.owner = std::move(owner);
	return e;
}

TEST(Mountinfo, FieldsOfEachLine)
{
	auto entries = parseMountinfo(Table);
	ASSERT_TRUE(entries) << entries.error().message;
	ASSERT_EQ(entries->size(), 5U);
	const MountEntry &staging = (*entries)[1];
	EXPECT_EQ(staging.target, "/run/rbd-volume/staging/data");
	EXPECT_EQ(staging.source, "/dev/loop0");
	EXPECT_EQ(staging.root, "/");
	EXPECT_EQ(staging.fsType, "ext4");
	EXPECT_FALSE(staging.readOnly);
	EXPECT_EQ(staging.owner, "");
	/* escaped space; read-only from the mount's own options, not the superblock's */
	EXPECT_EQ((*entries)[2].target, "/srv/my data");
	EXPECT_TRUE((*entries)[2].readOnly);
	/* a bind of a device node: its root is the node */
	EXPECT_EQ((*entries)[3].root, "/loop1");
	EXPECT_EQ((*entries)[3].source, "udev");
	EXPECT_EQ((*entries)[3].fsType, "devtmpfs");
	/* the kernel prints an empty source as nothing between two spaces */
	EXPECT_EQ((*entries)[4].source, "");
	EXPECT_EQ((*entries)[4].fsType, "tmpfs");
}

TEST(Mountinfo, ALineOfAnotherFormIsAnError)
{
	auto entries = parseMountinfo("22 27 0:21 / /proc rw,relatime proc proc rw\n");
	ASSERT_FALSE(entries);
	EXPECT_EQ(entries.error().message, "/proc/self/mountinfo: cannot parse the line "
					   "'22 27 0:21 / /proc rw,relatime proc proc rw'");
	EXPECT_FALSE(parseMountinfo("22 27 0:21 /\n"));
	EXPECT_TRUE(parseMountinfo("")->empty());
}

TEST(Utab, LinesAndTheirFields)
{
	auto lines = parseUtab("SRC=/dev/loop0 TARGET=/srv/my\\040data ROOT=/ "
			       "OPTS=_netdev,x-rbd-volume=data\n"
			       "# a comment\n"
			       "TARGET=/mnt ROOT=/ OPTS=x-rbd-volume=lost\n"
			       "SRC=/dev/sda1 TARGET=/boot ROOT=/ ATTRS=x\n"
			       "ID=12 SRC=/dev/sdb TARGET=/b ROOT=/sub OPTS=ro BINDSRC=/a\n");
	ASSERT_EQ(lines.size(), 3U);
	EXPECT_EQ(lines[0].source, "/dev/loop0");
	EXPECT_EQ(lines[0].target, "/srv/my data");
	EXPECT_EQ(lines[0].root, "/");
	EXPECT_EQ(lines[0].userOptions, "_netdev,x-rbd-volume=data");
	EXPECT_TRUE(lines[1].hasAttributes);
	EXPECT_EQ(lines[2].root, "/sub");
	EXPECT_EQ(lines[2].userOptions, "ro");
}

TEST(Utab, OwnerOfTheMatchingMount)
{
	std::vector<MountEntry> entries = { entry("/srv/a", "/dev/loop0"),
					    entry("/srv/b", "/dev/loop1") };
	applyOwners(entries,
		    parseUtab("SRC=/dev/loop1 TARGET=/srv/b ROOT=/ OPTS=x-rbd-volume=b\n"
			      "SRC=/dev/loop9 TARGET=/srv/a ROOT=/ OPTS=x-rbd-volume=x\n"
			      "SRC=/dev/loop0 TARGET=/srv/a ROOT=/sub OPTS=x-rbd-volume=y\n"));
	EXPECT_EQ(entries[0].owner, "") << "neither source nor root match";
	EXPECT_EQ(entries[1].owner, "b");
}

/* Mounts stacked on one target: each line, newest first, takes the topmost one left. */
TEST(Utab, StackedMountsAreJoinedTopDown)
{
	std::vector<MountEntry> entries = { entry("/srv/a", "/dev/loop0"),
					    entry("/srv/a", "/dev/loop0"),
					    entry("/srv/a", "/dev/loop0") };
	applyOwners(entries,
		    parseUtab("SRC=/dev/loop0 TARGET=/srv/a ROOT=/ OPTS=x-rbd-volume=older\n"
			      "SRC=/dev/loop0 TARGET=/srv/a ROOT=/ OPTS=_netdev\n"));
	EXPECT_EQ(entries[2].owner, "") << "taken by the newest line, without our marker";
	EXPECT_EQ(entries[1].owner, "older");
	EXPECT_EQ(entries[0].owner, "") << "no line left for it";
}

/* A line with neither options nor attributes joins nothing; a source's trailing '/' does not count. */
TEST(Utab, WhatJoinsAndWhatDoesNot)
{
	std::vector<MountEntry> entries = { entry("/srv/a", "host:/export/"),
					    entry("/srv/b", "/dev/loop1") };
	applyOwners(entries,
		    parseUtab("SRC=host:/export TARGET=/srv/a ROOT=/ OPTS=x-rbd-volume=nfs\n"
			      "SRC=/dev/loop1 TARGET=/srv/b ROOT=/\n"
			      "SRC=/dev/loop1 TARGET=/srv/b ROOT=/ OPTS=x-rbd-volume=b\n"));
	EXPECT_EQ(entries[0].owner, "nfs");
	EXPECT_EQ(entries[1].owner, "b");
}

TEST(Utab, OptionValues)
{
	EXPECT_EQ(optionValue("_netdev,x-rbd-volume=data", "x-rbd-volume"), "data");
	EXPECT_EQ(optionValue("x-rbd-volume=a,x-rbd-volume=b", "x-rbd-volume"), "a");
	EXPECT_EQ(optionValue("x-rbd-volumes=a", "x-rbd-volume"), "");
	EXPECT_EQ(optionValue("x-rbd-volume", "x-rbd-volume"), "");
	EXPECT_EQ(optionValue("x-note=\"a,x-rbd-volume=b\"", "x-rbd-volume"), "");
	EXPECT_EQ(optionValue("", "x-rbd-volume"), "");
}

} /* namespace */
} /* namespace rbdvolume::testing */
