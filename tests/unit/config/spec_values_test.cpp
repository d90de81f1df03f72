/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Single-value checks: names, client ids, monitors, paths, features. */
#include "config/spec_values.hpp"

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

namespace rbdvolume {

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

} /* namespace rbdvolume */
