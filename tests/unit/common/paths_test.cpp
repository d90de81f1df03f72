/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Path helpers (common/paths): normal absolute paths and containment. */
#include "common/paths.hpp"

#include <string_view>

#include <gtest/gtest.h>

namespace rbdvolume {

TEST(Paths, DefaultStagingPath)
{
	EXPECT_EQ(paths::defaultStagingPath("data"), "/run/rbd-volume/staging/data");
	EXPECT_TRUE(paths::isNormalAbsolutePath(paths::defaultStagingPath("data")));
	EXPECT_TRUE(paths::isSameOrBelow(paths::defaultStagingPath("data"), paths::StagingRoot));
}

TEST(Paths, NormalAbsolutePaths)
{
	for (const std::string_view path :
	     { "/", "/a", "/a/b", "/a.b/..c/c..", "/a/.hidden", "/ a" }) {
		SCOPED_TRACE(path);
		EXPECT_TRUE(paths::isNormalAbsolutePath(path));
	}
	for (const std::string_view path : { "", "a", "a/b", "./a", "//", "//a", "/a//b", "/a/",
					     "/.", "/..", "/a/.", "/a/..", "/a/./b", "/a/../b" }) {
		SCOPED_TRACE(path);
		EXPECT_FALSE(paths::isNormalAbsolutePath(path));
	}
}

TEST(Paths, SameOrBelow)
{
	EXPECT_TRUE(paths::isSameOrBelow("/a", "/a"));
	EXPECT_TRUE(paths::isSameOrBelow("/a/b", "/a"));
	EXPECT_TRUE(paths::isSameOrBelow("/a/b/c", "/a"));
	EXPECT_TRUE(paths::isSameOrBelow("/a", "/"));
	EXPECT_TRUE(paths::isSameOrBelow("/", "/"));
	EXPECT_FALSE(paths::isSameOrBelow("/ab", "/a"));
	EXPECT_FALSE(paths::isSameOrBelow("/a", "/a/b"));
	EXPECT_FALSE(paths::isSameOrBelow("/", "/a"));
	EXPECT_FALSE(paths::isSameOrBelow("/b", "/a"));
}

} /* namespace rbdvolume */
