/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Volume names (common/volume_name): what a spec file stem may be. */
#include "common/volume_name.hpp"

#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace rbdvolume {

TEST(VolumeName, Valid)
{
	for (const std::string_view name :
	     { "a", "0", "data", "Data_1", "db.prod", "x_", "a.b.c" }) {
		SCOPED_TRACE(name);
		EXPECT_TRUE(isValidVolumeName(name));
		EXPECT_EQ(volumeNameProblem(name), std::nullopt);
	}
	EXPECT_TRUE(isValidVolumeName(std::string(MaxVolumeNameLength, 'a')));
}

TEST(VolumeName, Invalid)
{
	EXPECT_EQ(volumeNameProblem(""), "a volume name cannot be empty");
	EXPECT_EQ(volumeNameProblem(std::string(MaxVolumeNameLength + 1, 'a')),
		  "a volume name has at most 63 characters, this one has 64");
	EXPECT_EQ(volumeNameProblem("_a"), "a volume name starts with a letter or a digit");
	EXPECT_EQ(volumeNameProblem(".a"), "a volume name starts with a letter or a digit");
	EXPECT_EQ(volumeNameProblem("my-vol"),
		  "a volume name has only letters, digits, '_' and '.', not '-'");
	for (const std::string_view name : { "a/b", "a b", "a@b", "a\\b", "a:b", "\xc3\xa9" }) {
		SCOPED_TRACE(name);
		EXPECT_FALSE(isValidVolumeName(name));
	}
}

} /* namespace rbdvolume */
