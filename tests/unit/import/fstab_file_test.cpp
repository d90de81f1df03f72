/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The fstab through libmount's parser: what mount(8) reads, each entry at its line. */
#include "import/fstab_file.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace rbdvolume::importer {

namespace {

TEST(FstabFile, ReadsAsMountReads)
{
	const FstabFile file = readFstab(
		{ "fstab",
		  "# a comment\n\n  \t\n"
		  "/dev/rbd/p/a\t/srv/a\\040b  xfs  noatime,context=\"x,y\",_netdev 0 2\r\n"
		  "  # an indented comment\n"
		  "/dev/rbd/p/b /srv/b\\040 ext4\n" });
	EXPECT_TRUE(file.messages.empty());
	ASSERT_EQ(file.entries.size(), 2U);
	const FstabEntry &a = file.entries[0];
	EXPECT_EQ(a.line, 4U);
	EXPECT_EQ(a.device, "/dev/rbd/p/a");
	EXPECT_EQ(a.mountPoint, "/srv/a b");
	EXPECT_EQ(a.type, "xfs");
	const std::vector<std::string> options = { "noatime", "context=\"x,y\"", "_netdev" };
	EXPECT_EQ(a.options, options);
	EXPECT_EQ(a.passno, 2);
	const FstabEntry &b = file.entries[1];
	EXPECT_EQ(b.line, 6U);
	EXPECT_EQ(b.mountPoint, "/srv/b "); /* an escape that ends the field */
	EXPECT_TRUE(b.options.empty());
	EXPECT_EQ(b.passno, 0);
}

TEST(FstabFile, ALineLibmountRefusesIsSkippedAtItsLine)
{
	const FstabFile file = readFstab({ "/etc/fstab", "/dev/sda1 / ext4 defaults 0 1\n"
							 "/dev/rbd/p/a /srv/a ext4 defaults 0 x\n"
							 "/dev/rbd/p/b /srv/b ext4 defaults 0 0" });
	ASSERT_EQ(file.entries.size(), 2U);
	EXPECT_EQ(file.entries[0].line, 1U);
	EXPECT_EQ(file.entries[1].line, 3U);
	EXPECT_EQ(file.entries[1].device, "/dev/rbd/p/b");
	ASSERT_EQ(file.messages.size(), 1U);
	EXPECT_EQ(file.messages[0].format(),
		  "/etc/fstab:2: warning: libmount cannot parse this line; mount(8) skips it, and "
		  "so does the import");
}

TEST(FstabFile, ShortLinesAreKeptForTheirDevice)
{
	const FstabFile file = readFstab({ "fstab", "/dev/rbd/p/a\n/dev/rbd/p/b /srv/b\n" });
	EXPECT_TRUE(file.messages.empty());
	ASSERT_EQ(file.entries.size(), 2U);
	EXPECT_EQ(file.entries[0].device, "/dev/rbd/p/a");
	EXPECT_EQ(file.entries[0].mountPoint, "");
	EXPECT_EQ(file.entries[0].type, "auto");
	EXPECT_EQ(file.entries[1].mountPoint, "/srv/b");
	EXPECT_EQ(file.entries[1].type, "auto");
}

TEST(FstabFile, OptionsLibmountCannotSplit)
{
	const FstabFile file =
		readFstab({ "fstab", "/dev/rbd/p/a /srv/a ext4 noatime,x=\"y 0 0\n" });
	EXPECT_TRUE(file.entries.empty());
	ASSERT_EQ(file.messages.size(), 1U);
	EXPECT_NE(file.messages[0].format().find("fstab:1: warning: libmount cannot read the "
						 "options of this entry"),
		  std::string::npos)
		<< file.messages[0].format();
}

} /* namespace */

} /* namespace rbdvolume::importer */
