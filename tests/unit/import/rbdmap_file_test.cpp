/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The rbdmap file read as /usr/bin/rbdmap reads it: RBDOPTS and IMAGESPEC. */
#include "import/rbdmap_file.hpp"

#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace rbdvolume::importer {

namespace {

/* ---- RBDOPTS, as rbdmap's create_cmd_params() reads them ---- */

TEST(RbdmapParams, ManPageExample)
{
	const Result<RbdmapParams> parsed = parseRbdmapParams(
		"id=admin,keyring=/etc/ceph/"
		"ceph.client.admin.keyring,options='lock_on_read,queue_depth=1024'");
	ASSERT_TRUE(parsed);
	const std::vector<RbdmapParam> expected = {
		{ "id", "admin" },
		{ "keyring", "/etc/ceph/ceph.client.admin.keyring" },
		{ "options", "lock_on_read,queue_depth=1024" },
	};
	EXPECT_EQ(parsed->params, expected);
	EXPECT_TRUE(parsed->warnings.empty());
}

TEST(RbdmapParams, FlagsEmptyEntriesAndQuotedKeys)
{
	const Result<RbdmapParams> parsed = parseRbdmapParams("'id'=admin,,read-only,");
	ASSERT_TRUE(parsed);
	const std::vector<RbdmapParam> expected = { { "id", "admin" },
						    { "read-only", std::nullopt } };
	EXPECT_EQ(parsed->params, expected);
}

TEST(RbdmapParams, DoubleQuotesAreReadWithAWarning)
{
	const Result<RbdmapParams> parsed =
		parseRbdmapParams(R"(id="web",options="queue_depth=128,noshare")");
	ASSERT_TRUE(parsed);
	const std::vector<RbdmapParam> expected = { { "id", "web" },
						    { "options", "queue_depth=128,noshare" } };
	EXPECT_EQ(parsed->params, expected);
	ASSERT_EQ(parsed->warnings.size(), 1U);
	EXPECT_NE(parsed->warnings[0].find("double quotes"), std::string::npos);
}

TEST(RbdmapParams, ABlankInsideQuotesIsKeptWithAWarning)
{
	const Result<RbdmapParams> parsed = parseRbdmapParams("keyring='/etc/ceph/my keyring'");
	ASSERT_TRUE(parsed);
	ASSERT_EQ(parsed->params.size(), 1U);
	EXPECT_EQ(parsed->params[0].value, "/etc/ceph/my keyring");
	ASSERT_EQ(parsed->warnings.size(), 1U);
	EXPECT_NE(parsed->warnings[0].find("blank"), std::string::npos);
}

TEST(RbdmapParams, HashEndsTheListEvenInsideQuotes)
{
	const Result<RbdmapParams> comment = parseRbdmapParams("id=admin   # the admin");
	ASSERT_TRUE(comment);
	const std::vector<RbdmapParam> expected = { { "id", "admin" } };
	EXPECT_EQ(comment->params, expected);

	const Result<RbdmapParams> quoted = parseRbdmapParams("keyring='/etc/ceph/#1'");
	ASSERT_FALSE(quoted);
	EXPECT_NE(quoted.error().message.find("unterminated"), std::string::npos);
}

TEST(RbdmapParams, UnquotedBlanksAndASecondEqualsAreErrors)
{
	const Result<RbdmapParams> blank = parseRbdmapParams("id=admin keyring=/x");
	ASSERT_FALSE(blank);
	EXPECT_NE(blank.error().message.find("unquoted blank"), std::string::npos);

	const Result<RbdmapParams> equals = parseRbdmapParams("options=queue_depth=128");
	ASSERT_FALSE(equals);
	EXPECT_NE(equals.error().message.find("'options'"), std::string::npos);
	/* A value is never echoed: it may be a secret. */
	EXPECT_EQ(equals.error().message.find("queue_depth"), std::string::npos);

	EXPECT_FALSE(parseRbdmapParams("=admin"));
}

TEST(RbdmapParams, TrailingEqualsArePadding)
{
	const Result<RbdmapParams> parsed = parseRbdmapParams("key=AQBx==,id=a");
	ASSERT_TRUE(parsed);
	ASSERT_EQ(parsed->params.size(), 2U);
	EXPECT_EQ(parsed->params[0].value, "AQBx==");
}

/* ---- IMAGESPEC ---- */

TEST(RbdmapImage, Forms)
{
	const Result<ImageSpec> bare = parseRbdmapImage("data");
	ASSERT_TRUE(bare);
	EXPECT_EQ(bare->display(), "rbd/data");

	const Result<ImageSpec> ns = parseRbdmapImage("pool/tenant/img@snap");
	ASSERT_TRUE(ns);
	EXPECT_EQ(ns->pool, "pool");
	EXPECT_EQ(ns->radosNamespace, "tenant");
	EXPECT_EQ(ns->name, "img");
	EXPECT_EQ(ns->snapshot, "snap");

	EXPECT_FALSE(parseRbdmapImage("a/b/c/d"));
	EXPECT_FALSE(parseRbdmapImage("pool//img"));
	EXPECT_FALSE(parseRbdmapImage("pool/img@"));
	EXPECT_FALSE(parseRbdmapImage("/img"));
}

} /* namespace */

} /* namespace rbdvolume::importer */
