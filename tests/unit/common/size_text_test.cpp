/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sizeText(): the sizes errors name, in the units a spec is written in. */
#include "common/size_text.hpp"

#include <cstdint>

#include <gtest/gtest.h>

namespace rbdvolume {
namespace {

TEST(SizeText, UsesTheLargestUnitThatDividesTheSize)
{
	EXPECT_EQ(sizeText(uint64_t{ 20 } << 30), "20 GiB");
	EXPECT_EQ(sizeText(uint64_t{ 1536 } << 20), "1536 MiB");
	EXPECT_EQ(sizeText(uint64_t{ 3 } << 40), "3 TiB");
	EXPECT_EQ(sizeText(uint64_t{ 1 } << 30), "1 GiB");
	EXPECT_EQ(sizeText(4096), "4 KiB");
	EXPECT_EQ(sizeText(1000), "1000 bytes");
	EXPECT_EQ(sizeText(0), "0 bytes");
}

} /* namespace */
} /* namespace rbdvolume */
