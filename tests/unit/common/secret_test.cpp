/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "common/secret.hpp"

#include <utility>

#include <gtest/gtest.h>

namespace rbdvolume {
namespace {

TEST(Secret, HoldsItsBytesAndHandsThemOverOnMove)
{
	Secret a(std::string_view("pass\0word", 9));
	EXPECT_EQ(a.size(), 9U);
	EXPECT_EQ(a.view(), std::string_view("pass\0word", 9));
	const unsigned char *buffer = a.data();
	Secret b(std::move(a));
	EXPECT_EQ(b.data(), buffer) << "moved, not copied";
	EXPECT_TRUE(a.empty()); // NOLINT(bugprone-use-after-move,clang-analyzer-cplusplus.Move)
	Secret c;
	c = std::move(b);
	EXPECT_EQ(c.data(), buffer);
	EXPECT_EQ(c.view(), std::string_view("pass\0word", 9));
}

TEST(Secret, ShrinkKeepsThePrefix)
{
	Secret s(std::string_view("abcdef"));
	s.shrink(3);
	EXPECT_EQ(s.view(), "abc");
	s.shrink(10);
	EXPECT_EQ(s.view(), "abc");
}

TEST(Secret, EqualsComparesBytesAndLengths)
{
	EXPECT_TRUE(Secret(std::string_view("abc")).equals(Secret(std::string_view("abc"))));
	EXPECT_FALSE(Secret(std::string_view("abc")).equals(Secret(std::string_view("abd"))));
	EXPECT_FALSE(Secret(std::string_view("abc")).equals(Secret(std::string_view("abc\0", 4))));
	EXPECT_TRUE(Secret().equals(Secret(std::string_view())));
}

} /* namespace */
} /* namespace rbdvolume */
