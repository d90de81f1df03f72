/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Single-value checks: sizes, names, client ids, monitors, paths, features, key hints. */
#include "config/spec_values.hpp"

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

namespace rbdvolume {

TEST(SpecValues, ParseSizeAcceptsBinaryUnits)
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

TEST(SpecValues, ParseSizeRefusesEverythingElse)
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

TEST(SpecValues, SizeIsWholeSectors)
{
	EXPECT_EQ(sizeBytesProblem(512), std::nullopt);
	EXPECT_EQ(sizeBytesProblem(10ULL << 30U), std::nullopt);
	EXPECT_EQ(sizeBytesProblem(0), "expected a size greater than 0, found 0");
	EXPECT_EQ(sizeBytesProblem(1000), "expected a multiple of 512 bytes, found 1000 bytes");
}

TEST(SpecValues, RbdNames)
{
	EXPECT_EQ(rbdNameProblem("rbd"), std::nullopt);
	EXPECT_EQ(rbdNameProblem("vm-disk_1.img"), std::nullopt);
	EXPECT_EQ(rbdNameProblem(std::string(250, 'a')), std::nullopt);
	EXPECT_EQ(rbdNameProblem(std::string(251, 'a')),
		  "expected at most 250 characters, found 251");
	EXPECT_EQ(rbdNameProblem(""), "expected a non-empty name, found ''");
	for (const std::string_view bad : { "a/b", "a@b", "a b", "a\tb", "a\nb", "\x7f" }) {
		SCOPED_TRACE(bad);
		EXPECT_NE(rbdNameProblem(bad), std::nullopt);
	}
}

TEST(SpecValues, ClientIds)
{
	EXPECT_EQ(clientIdProblem("admin"), std::nullopt);
	EXPECT_EQ(clientIdProblem("rbd-volume.host_1"), std::nullopt);
	EXPECT_EQ(clientIdProblem("client.admin"),
		  "expected the client id without the 'client.' prefix ('admin'), found "
		  "'client.admin'");
	EXPECT_EQ(clientIdProblem(""), "expected a non-empty client id, found ''");
	EXPECT_EQ(clientIdProblem("a:b"),
		  "expected a client id of letters, digits, '_', '.' and '-', found 'a:b'");
}

TEST(SpecValues, GoodMonitors)
{
	for (const std::string_view good :
	     { "192.0.2.1", "192.0.2.1:6789", "mon-a.example.net", "mon_a:3300", "[2001:db8::1]",
	       "[2001:db8::1]:3300", "[::ffff:192.0.2.1]:6789", "v1:192.0.2.1:6789",
	       "v2:[2001:db8::1]:3300", "v2:mon1", "mon:1", "mon:65535" }) {
		SCOPED_TRACE(good);
		EXPECT_EQ(monitorProblem(good), std::nullopt);
	}
}

TEST(SpecValues, BadMonitors)
{
	for (const std::string_view bad :
	     { "", " mon", "a,b", "mon:", "mon:0", "mon:65536", "mon:123456", "mon:x",
	       "2001:db8::1", "[2001:db8::1", "[]:1", "[2001:db8::1]x",
	       "[2001:db8::1]:", "[192.0.2.1]", "v3:mon", "v2:", "mon/1", "mon:1:2", "v2:[x]" }) {
		SCOPED_TRACE(bad);
		EXPECT_NE(monitorProblem(bad), std::nullopt);
	}
}

TEST(SpecValues, Paths)
{
	EXPECT_EQ(pathProblem("/etc/ceph/ceph.conf"), std::nullopt);
	EXPECT_EQ(pathProblem("/"), std::nullopt);
	EXPECT_EQ(pathProblem("/", false), "expected a path below '/', found '/'");
	EXPECT_EQ(pathProblem("/srv/with space"), std::nullopt);
	EXPECT_EQ(pathProblem(""), "expected an absolute path, found ''");
	EXPECT_EQ(pathProblem("etc"), "expected an absolute path, found 'etc'");
	EXPECT_EQ(pathProblem("/a\nb"),
		  "expected a path without control characters, found '/a\\x0ab'");
	for (const std::string_view bad : { "/a/..", "/a/./b", "//a", "/a//b", "/a/" }) {
		SCOPED_TRACE(bad);
		EXPECT_EQ(pathProblem(bad),
			  "expected a normal path (no '.' or '..' component, '//' or trailing "
			  "'/'), found '" +
				  std::string(bad) + "'");
	}
}

TEST(SpecValues, Features)
{
	const auto problems = [](std::vector<std::string> features) {
		return featureProblems(features);
	};
	EXPECT_TRUE(problems({}).empty());
	EXPECT_TRUE(problems({ "layering", "striping", "exclusive-lock", "object-map", "fast-diff",
			       "deep-flatten", "journaling" })
			    .empty());
	/* Order does not matter for dependencies. */
	EXPECT_TRUE(problems({ "fast-diff", "object-map", "exclusive-lock" }).empty());

	using Problems = std::vector<std::pair<size_t, std::string>>;
	EXPECT_EQ(problems({ "object-map" }),
		  (Problems{ { 0, "'object-map' needs 'exclusive-lock', which is not listed" } }));
	EXPECT_EQ(problems({ "exclusive-lock", "fast-diff" }),
		  (Problems{ { 1, "'fast-diff' needs 'object-map', which is not listed" } }));
	EXPECT_EQ(problems({ "layering", "layering" }),
		  (Problems{ { 1, "expected each feature once, found 'layering' again" } }));
	EXPECT_EQ(problems({ "data-pool" }).size(), 1U);
	EXPECT_EQ(knownImageFeatures().size(), 7U);
}

TEST(SpecValues, EditDistance)
{
	EXPECT_EQ(editDistance("", ""), 0U);
	EXPECT_EQ(editDistance("abc", ""), 3U);
	EXPECT_EQ(editDistance("readonly", "read-only"), 1U);
	EXPECT_EQ(editDistance("read_only", "read-only"), 1U);
	EXPECT_EQ(editDistance("drvier", "driver"), 1U); /* a transposition is one edit */
	EXPECT_EQ(editDistance("kitten", "sitting"), 3U);
}

TEST(SpecValues, ClosestMatchGivesHintsWithinTwoEdits)
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

TEST(SpecValues, UnknownKeyMessages)
{
	constexpr std::array<std::string_view, 2> Keys = { "path", "options" };
	EXPECT_EQ(unknownKeyProblem("pth", Keys), "unknown key 'pth'; did you mean 'path'?");
	EXPECT_EQ(unknownKeyProblem("colour", Keys),
		  "unknown key 'colour'; expected one of 'path', 'options'");
	EXPECT_EQ(unknownKeyProblem("x", {}), "unknown key 'x'; this table takes no keys");
}

TEST(SpecValues, Quoting)
{
	EXPECT_EQ(quoted("abc"), "'abc'");
	EXPECT_EQ(quoted(std::string_view("a\0b", 3)), "'a\\x00b'");
	EXPECT_EQ(quoted("\x1b[31m"), "'\\x1b[31m'");
	constexpr std::array<std::string_view, 2> Items = { "a", "b" };
	EXPECT_EQ(quotedList(Items), "'a', 'b'");
	EXPECT_EQ(oneOfProblem(Items, "c"), "expected one of 'a', 'b', found 'c'");
}

} /* namespace rbdvolume */
