/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Finding NAME.toml in the spec directories, and refusing to guess between two. */
#include "config/spec_locate.hpp"

#include <gtest/gtest.h>

#include "temp_dir.hpp"

namespace rbdvolume::testing {
namespace {

TEST(SpecLocate, FindsRefusesAndExplains)
{
	const TempDir root;
	const std::vector<std::string> dirs = { root.path() + "/run", root.path() + "/etc" };
	root.write("etc/data.toml", "");
	EXPECT_EQ(*locateSpec("data", dirs), root.path() + "/etc/data.toml");

	auto missing = locateSpec("other", dirs);
	ASSERT_FALSE(missing);
	EXPECT_EQ(missing.error().code, Errc::NotFound);
	EXPECT_NE(missing.error().message.find(root.path() + "/run, " + root.path() + "/etc"),
		  std::string::npos);

	root.write("run/data.toml", "");
	auto twice = locateSpec("data", dirs);
	ASSERT_FALSE(twice);
	EXPECT_EQ(twice.error().code, Errc::Conflict);

	auto bad = locateSpec("../etc/passwd", dirs);
	ASSERT_FALSE(bad);
	EXPECT_EQ(bad.error().code, Errc::InvalidArgument);
}

} /* namespace */
} /* namespace rbdvolume::testing */
