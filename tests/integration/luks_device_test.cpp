/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * LUKS through libcryptsetup on a real loop device, checked with the
 * cryptsetup command where it can say what the header holds. Opening,
 * closing and growing need device-mapper, which only the kernel suite's
 * guest has (tests/kernel).
 */
#include "host/crypt/luks_device.hpp"

#include <string>

#include <gtest/gtest.h>

#include "host/drivers/fuse/loop_device.hpp"
#include "integration_env.hpp"
#include "quick_luks.hpp"
#include "shell.hpp"

namespace rbdvolume {
namespace {

using testing::quickLuksFormat;
using testing::shellOk;

class LuksDevice : public ::testing::Test
{
protected:
	void SetUp() override
	{
		const std::string file = testing::freshDir("luks") + "/disk";
		shellOk("truncate -s 32M " + file);
		auto attached = attachLoop(file, false);
		ASSERT_TRUE(attached) << attached.error().message;
		device_ = *attached;
	}
	void TearDown() override
	{
		if (!device_.empty())
			(void)detachLoop(device_);
	}
	std::string device_;
	const Secret first_{ std::string_view("first passphrase") };
	const Secret second_{ std::string_view("second\npassphrase\0with a NUL", 28) };
};

TEST_F(LuksDevice, FormatWritesALuks2HeaderWithOneSlotThePassphraseOpens)
{
	EXPECT_EQ(readLuksHeader(device_).error().code, Errc::NotFound) << "blank before";
	auto formatted = formatLuks(device_, quickLuksFormat(), first_);
	ASSERT_TRUE(formatted) << formatted.error().message;

	auto header = readLuksHeader(device_);
	ASSERT_TRUE(header) << header.error().message;
	EXPECT_EQ(header->version, "LUKS2");
	EXPECT_EQ(header->cipher, "aes-xts-plain64");
	EXPECT_EQ(header->keyBits, 512U);
	EXPECT_EQ(header->keyslots, std::vector<int>{ 0 });
	EXPECT_EQ(header->uuid.size(), 36U);

	const std::string dump = shellOk("cryptsetup luksDump " + device_);
	EXPECT_NE(dump.find("Version:       \t2"), std::string::npos) << dump;
	EXPECT_NE(dump.find("aes-xts-plain64"), std::string::npos) << dump;
	EXPECT_NE(dump.find("PBKDF:      argon2id"), std::string::npos) << dump;
	EXPECT_NE(dump.find(header->uuid), std::string::npos) << dump;
	EXPECT_EQ(shellOk("blkid -p -o value -s TYPE " + device_), "crypto_LUKS\n");

	EXPECT_EQ(checkPassphrase(device_, first_).value_or(-1), 0);
	auto wrong = checkPassphrase(device_, second_);
	ASSERT_FALSE(wrong);
	EXPECT_EQ(wrong.error().code, Errc::PermissionDenied) << wrong.error().message;
}

TEST_F(LuksDevice, ThePassphraseIsItsExactBytes)
{
	ASSERT_TRUE(formatLuks(device_, quickLuksFormat(), second_));
	EXPECT_EQ(checkPassphrase(device_, second_).value_or(-1), 0);
	const Secret truncated(second_.view().substr(0, 17)); /* up to its NUL */
	EXPECT_FALSE(checkPassphrase(device_, truncated));
	/* The cryptsetup command reads a key file byte for byte, as ceph-csi feeds it. */
	const std::string keyFile = testing::freshDir("luks-key") + "/key";
	shellOk("printf 'first passphrase' > " + keyFile);
	shellOk("wipefs -a -q " + device_);
	ASSERT_TRUE(formatLuks(device_, quickLuksFormat(), first_));
	shellOk("cryptsetup open --test-passphrase --key-file " + keyFile + " " + device_);
}

TEST_F(LuksDevice, APassphraseIsAddedThenTheOldOneRemovedEachStepRepeatable)
{
	ASSERT_TRUE(formatLuks(device_, quickLuksFormat(), first_));
	auto added = addPassphrase(device_, first_, second_, quickLuksFormat());
	ASSERT_TRUE(added) << added.error().message;
	EXPECT_EQ(*added, 1);
	EXPECT_EQ(addPassphrase(device_, first_, second_, quickLuksFormat()).value_or(-1), 1)
		<< "a second add finds the slot the first made";
	EXPECT_EQ(readLuksHeader(device_)->keyslots, (std::vector<int>{ 0, 1 }));

	auto removed = removePassphrase(device_, second_, first_);
	ASSERT_TRUE(removed) << removed.error().message;
	EXPECT_TRUE(removePassphrase(device_, second_, first_)) << "gone already";
	EXPECT_EQ(readLuksHeader(device_)->keyslots, std::vector<int>{ 1 });
	EXPECT_FALSE(checkPassphrase(device_, first_));
	EXPECT_EQ(checkPassphrase(device_, second_).value_or(-1), 1);

	auto refused = removePassphrase(device_, first_, second_);
	ASSERT_FALSE(refused);
	EXPECT_EQ(refused.error().code, Errc::PermissionDenied) << "the kept one must open";
	EXPECT_EQ(checkPassphrase(device_, second_).value_or(-1), 1) << "nothing removed";
	auto same = removePassphrase(device_, second_, second_);
	ASSERT_FALSE(same);
	EXPECT_EQ(same.error().code, Errc::Conflict);
}

TEST_F(LuksDevice, FormatRefusesADeviceWithASignatureAndLeavesItAsItWas)
{
	shellOk("mkfs.ext4 -q " + device_);
	const std::string before = shellOk("sha256sum < " + device_);
	auto formatted = formatLuks(device_, quickLuksFormat(), first_);
	ASSERT_FALSE(formatted);
	EXPECT_EQ(formatted.error().code, Errc::Conflict) << formatted.error().message;
	EXPECT_NE(formatted.error().message.find("ext4"), std::string::npos);
	EXPECT_EQ(shellOk("sha256sum < " + device_), before);

	shellOk("wipefs -a -q " + device_);
	ASSERT_TRUE(formatLuks(device_, quickLuksFormat(), first_));
	auto again = formatLuks(device_, quickLuksFormat(), second_);
	ASSERT_FALSE(again) << "never a second header over the first";
	EXPECT_EQ(again.error().code, Errc::Conflict);
	EXPECT_EQ(checkPassphrase(device_, first_).value_or(-1), 0);
}

TEST_F(LuksDevice, AFilesystemIsNoLuksHeader)
{
	shellOk("mkfs.ext4 -q " + device_);
	auto header = readLuksHeader(device_);
	ASSERT_FALSE(header);
	EXPECT_EQ(header.error().code, Errc::NotFound) << header.error().message;
	EXPECT_EQ(checkPassphrase(device_, first_).error().code, Errc::NotFound);
}

TEST(LuksMapping, ClosingWhatIsNotOpenChangesNothing)
{
	auto closed = closeLuks("rbdv-never-opened");
	ASSERT_TRUE(closed) << closed.error().message;
	EXPECT_FALSE(*closed);
}

} /* namespace */
} /* namespace rbdvolume */
