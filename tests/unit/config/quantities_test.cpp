/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Sizes as specs write them: binary units, whole sectors, no overflow. */
#include "config/quantities.hpp"

#include <string>

#include <gtest/gtest.h>

namespace rbdvolume {

TEST(Quantities, ParseSizeAcceptsBinaryUnits)
{
	EXPECT_EQ(parseSize("0").value(), 0U);
	EXPECT_EQ(parseSize("512").value(), 512U);
	EXPECT_EQ(parseSize("512B").value(), 512U);
	EXPECT_EQ(parseSize("1K").value(), 1024U);
	EXPECT_EQ(parseSize("1KiB").value(), 1024U);
	EXPECT_EQ(parseSize("1KB").value(), 1024U);
	EXPECT_EQ(parseSize("3M").value(), 3ULL << 20U);
	EXPECT_EQ(parseSize("10G").value(), 10ULL << 30U);
	EXPECT_EQ(parseSize("2T").value(), 2ULL << 40U);
	EXPECT_EQ(parseSize("8191P").value(), 8191ULL << 50U);
	EXPECT_EQ(parseSize("0010G").value(), 10ULL << 30U);
}

TEST(Quantities, ParseSizeRefusesEverythingElse)
{
	for (const std::string_view text : { "", "G", "10 G", "10g", "10k", "10Gi", "10GiBs", "10X",
					     "-1", "+1", "1e9", "0x10", " 10G", "10G " }) {
		SCOPED_TRACE(text);
		const Result<uint64_t> size = parseSize(text);
		ASSERT_FALSE(size.has_value());
		EXPECT_EQ(
			size.error().message,
			"expected a size such as '10G', '512M' or '1073741824' (units K, M, G, T, "
			"P are powers of 1024), found '" +
				std::string(text) + "'");
	}
	EXPECT_EQ(parseSize("1.5G").error().message,
		  "expected a whole number of bytes or units (no decimals), found '1.5G'");
	EXPECT_EQ(parseSize("1,5G").error().message,
		  "expected a whole number of bytes or units (no decimals), found '1,5G'");
	EXPECT_EQ(parseSize("18446744073709551616").error().message,
		  "expected a size below 16 EiB, found '18446744073709551616'");
	EXPECT_EQ(parseSize("16384P").error().message,
		  "expected a size below 16 EiB, found '16384P'");
	EXPECT_TRUE(parseSize("18446744073709551615").has_value());
}

TEST(Quantities, SizeIsWholeSectors)
{
	EXPECT_EQ(sizeBytesProblem(512), std::nullopt);
	EXPECT_EQ(sizeBytesProblem(10ULL << 30U), std::nullopt);
	EXPECT_EQ(sizeBytesProblem(0), "expected a size greater than 0, found 0");
	EXPECT_EQ(sizeBytesProblem(1000), "expected a multiple of 512 bytes, found 1000 bytes");
}

} /* namespace rbdvolume */
