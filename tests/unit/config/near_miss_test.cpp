/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "Did you mean": edit distance, the closest known name, the unknown-key message. */
#include "config/near_miss.hpp"

#include <array>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace rbdvolume {

TEST(NearMiss, EditDistance)
{
	EXPECT_EQ(editDistance("", ""), 0U);
	EXPECT_EQ(editDistance("abc", ""), 3U);
	EXPECT_EQ(editDistance("readonly", "read-only"), 1U);
	EXPECT_EQ(editDistance("read_only", "read-only"), 1U);
	EXPECT_EQ(editDistance("drvier", "driver"), 1U); /* a transposition is one edit */
	EXPECT_EQ(editDistance("kitten", "sitting"), 3U);
}

TEST(NearMiss, ClosestMatchGivesHintsWithinTwoEdits)
{
	constexpr std::array<std::string_view, 4> Keys = { "driver", "read-only", "exclusive",
							   "id" };
	EXPECT_EQ(closestMatch("readonly", Keys), "read-only");
	EXPECT_EQ(closestMatch("exclusiv", Keys), "exclusive");
	EXPECT_EQ(closestMatch("drivers", Keys), "driver");
	EXPECT_EQ(closestMatch("colour", Keys), "");
	/* Too short to say "did you mean 'id'?" for any two letters. */
	EXPECT_EQ(closestMatch("x", Keys), "");
	EXPECT_EQ(closestMatch("ix", Keys), "id");
}

TEST(NearMiss, UnknownKeyMessages)
{
	constexpr std::array<std::string_view, 2> Keys = { "path", "options" };
	EXPECT_EQ(unknownKeyProblem("pth", Keys), "unknown key 'pth'; did you mean 'path'?");
	EXPECT_EQ(unknownKeyProblem("colour", Keys),
		  "unknown key 'colour'; expected one of 'path', 'options'");
	EXPECT_EQ(unknownKeyProblem("x", {}), "unknown key 'x'; this table takes no keys");
}

TEST(NearMiss, OneOfListsTheChoices)
{
	constexpr std::array<std::string_view, 2> Items = { "a", "b" };
	EXPECT_EQ(oneOfProblem(Items, "c"), "expected one of 'a', 'b', found 'c'");
}

} /* namespace rbdvolume */
