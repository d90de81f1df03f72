/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The spec's name tables (config/volume_spec): every value has one name, every
 * name reads back as its value, and a name a table lacks reads as nothing.
 */
#include <set>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "config/volume_spec.hpp"

namespace rbdvolume {
namespace {

/* Each of `values` named once, each name unique and read back as its value. */
template<typename E, size_t N>
void expectBijection(const std::array<Named<E>, N> &table, std::initializer_list<E> values)
{
	ASSERT_EQ(table.size(), values.size()) << "a value without a name, or a name too many";
	std::set<std::string_view> names;
	for (const E value : values) {
		const std::string_view name = nameIn(table, value);
		SCOPED_TRACE(name);
		EXPECT_NE(name, "?");
		EXPECT_TRUE(names.insert(name).second) << "named twice";
		EXPECT_EQ(valueIn(table, name), value);
	}
	EXPECT_EQ(valueIn(table, "no-such-name"), std::nullopt);
	EXPECT_EQ(valueIn(table, ""), std::nullopt);
}

TEST(SpecNames, EveryTableBothWays)
{
	expectBijection(VolumeModeNames, { VolumeMode::Filesystem, VolumeMode::Block });
	expectBijection(DriverNames, { Driver::Auto, Driver::Krbd, Driver::Nbd, Driver::Fuse });
	expectBijection(FsTypeNames, { FsType::Ext4, FsType::Xfs });
	expectBijection(FormatPolicyNames, { FormatPolicy::IfBlank, FormatPolicy::Never });
	expectBijection(CheckPolicyNames, { CheckPolicy::Auto, CheckPolicy::Never });
	expectBijection(GrowPolicyNames, { GrowPolicy::Auto, GrowPolicy::Never });
	expectBijection(KeySourceNames, { KeySource::Keyfile, KeySource::ImageMetadata });
	expectBijection(PbkdfNames, { Pbkdf::Argon2id, Pbkdf::Argon2i, Pbkdf::Pbkdf2 });
}

TEST(SpecNames, TheNamesSpecsUse)
{
	EXPECT_STREQ(driverName(Driver::Krbd), "krbd");
	EXPECT_STREQ(driverName(Driver::Auto), "auto");
	EXPECT_STREQ(fsTypeName(FsType::Xfs), "xfs");
	EXPECT_STREQ(pbkdfName(Pbkdf::Argon2id), "argon2id");
	EXPECT_STREQ(nameIn(FormatPolicyNames, FormatPolicy::IfBlank), "if-blank");
	EXPECT_STREQ(nameIn(KeySourceNames, KeySource::ImageMetadata), "image-metadata");
	/* exact: a name differing only in case is another name */
	EXPECT_EQ(valueIn(DriverNames, "KRBD"), std::nullopt);
}

} /* namespace */
} /* namespace rbdvolume */
