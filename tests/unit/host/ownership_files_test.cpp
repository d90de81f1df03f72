/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Ownership records on disk: round trip, atomic replacement, removal when empty. */
#include "host/ownership_files.hpp"

#include <filesystem>
#include <unistd.h>

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "temp_dir.hpp"

namespace rbdvolume::testing {
namespace {

TEST(OwnershipFiles, RoundTripAndRemoval)
{
	const TempDir dir;
	OwnershipFiles store(dir.path() + "/owned");
	auto missing = store.load("vol");
	ASSERT_TRUE(missing);
	EXPECT_TRUE(missing->empty());

	Ownership record;
	record.mappedDevice = "/dev/rbd0";
	record.formatted = true;
	record.luksFormatted = true;
	record.luksPending = true;
	record.cryptSpanBytes = 10754195456;
	record.staged = true;
	record.sizedBytes = 10737418240;
	record.publishedTargets = { "/srv/a", "/srv/b c" };
	ASSERT_TRUE(store.save("vol", record));
	EXPECT_EQ(*store.load("vol"), record);

	struct stat st {
	};
	ASSERT_EQ(stat((dir.path() + "/owned/vol").c_str(), &st), 0);
	EXPECT_EQ(st.st_mode & 0777, 0600U);
	/* Nothing but the record: no temp file left behind. */
	EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path() + "/owned"),
				std::filesystem::directory_iterator()),
		  1);

	ASSERT_TRUE(store.save("vol", Ownership{}));
	EXPECT_FALSE(std::filesystem::exists(dir.path() + "/owned/vol"));
	EXPECT_TRUE(store.save("vol", Ownership{})) << "removing twice is fine";
}

TEST(OwnershipFiles, ACorruptRecordIsAnErrorNotAnEmptyRecord)
{
	/* Reading garbage as "we own nothing" could orphan what we made. */
	auto parsed = parseOwnership("mapped-device=/dev/rbd0\nmystery=1\n", "/run/x");
	ASSERT_FALSE(parsed);
	EXPECT_EQ(parsed.error().message, "/run/x:2: unknown key 'mystery' in an ownership record");
}

/* A record we cannot read as ours is moved aside: the volume is known from its markers. */
TEST(OwnershipFiles, ADamagedRecordIsMovedAsideAndReadAsEmpty)
{
	TempDir dir;
	OwnershipFiles store(dir.path() + "/owned");
	dir.write("owned/binary", std::string("\xff\x00\x01garbage\n", 11));
	dir.write("owned/secret", "key = AQBzyzzy==\n");
	ASSERT_EQ(symlink((dir.path() + "/owned/secret").c_str(),
			  (dir.path() + "/owned/linked").c_str()),
		  0);
	for (const char *name : { "binary", "linked" }) {
		auto loaded = store.load(name);
		ASSERT_TRUE(loaded) << name << ": " << loaded.error().message;
		EXPECT_TRUE(loaded->empty()) << name;
		EXPECT_TRUE(std::filesystem::exists(dir.path() + "/owned/" + name + ".damaged") ||
			    std::filesystem::is_symlink(dir.path() + "/owned/" + name + ".damaged"))
			<< name;
		EXPECT_FALSE(std::filesystem::exists(dir.path() + "/owned/" + name)) << name;
	}
	/* What a link pointed at is never read, let alone quoted. */
	EXPECT_EQ(parseOwnership("key = AQBzyzzy==\n", "/run/x").error().message,
		  "/run/x:1: a line that is no key in an ownership record");
}

} /* namespace */
} /* namespace rbdvolume::testing */
