/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A volume's LUKS passphrase: the keyfile's bytes, or the data key kept in its image's metadata. */
#include "host/volume_keys.hpp"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "fake_world.hpp"
#include "host/crypt/data_key.hpp"
#include "temp_dir.hpp"

namespace rbdvolume::testing {

namespace {

class VolumeKeysTest : public ::testing::Test
{
protected:
	void SetUp() override
	{
		image_.pool = "rbd";
		image_.name = "web-img";
		world_.addImage(image_);
		request_.volume = "web";
		request_.image = image_;
		request_.encryption.source = KeySource::ImageMetadata;
		request_.encryption.keyfile = keyfile("kek", "kek passphrase");
	}

	std::string keyfile(const std::string &name, const std::string &bytes) const
	{
		dir_.write(name, bytes);
		std::string path = dir_.path() + "/" + name;
		chmod(path.c_str(), 0600);
		return path;
	}

	std::optional<std::string> stored(const std::string &key) const
	{
		const auto &metadata = world_.image(image_).metadata;
		const auto it = metadata.find(key);
		return it == metadata.end() ? std::nullopt : std::optional<std::string>(it->second);
	}

	/* What ceph-csi's provisioner leaves: a wrapped key, "encryptionPrepared". */
	std::string provision(const std::string &metadataKey, const std::string &volumeId)
	{
		auto key = newDataKey();
		EXPECT_TRUE(key);
		auto wrapped =
			wrapDataKey(*key, Secret(std::string_view("kek passphrase")), volumeId);
		EXPECT_TRUE(wrapped);
		EXPECT_TRUE(world_.setMetadata(ImageRequest{ "web", image_, {}, false, false },
					       metadataKey, *wrapped));
		EXPECT_TRUE(world_.setMetadata(ImageRequest{ "web", image_, {}, false, false },
					       std::string(EncryptionStateMetadataKey),
					       std::string(EncryptionPrepared)));
		return std::string(key->view());
	}

	TempDir dir_;
	FakeWorld world_;
	ImageSpec image_;
	CryptRequest request_;
	GivenPassphrases given_;
	VolumeKeys keys_{ world_, given_ };
};

} /* namespace */

TEST_F(VolumeKeysTest, AKeyfileIsThePassphraseAndTheMetadataIsLeftAlone)
{
	request_.encryption.source = KeySource::Keyfile;
	auto key = keys_.forFormat(request_);
	ASSERT_TRUE(key) << key.error().message;
	EXPECT_EQ(key->view(), "kek passphrase");
	ASSERT_TRUE(keys_.formatted(request_));
	EXPECT_TRUE(world_.image(image_).metadata.empty());
}

TEST_F(VolumeKeysTest, AFreshImageGetsANewDataKeyStoredBeforeItIsUsed)
{
	auto key = keys_.forFormat(request_);
	ASSERT_TRUE(key) << key.error().message;
	EXPECT_EQ(key->size(), 28U); /* 20 bytes, base64url */
	ASSERT_TRUE(stored(std::string(DataKeyMetadataKey)));
	EXPECT_EQ(stored(std::string(EncryptionStateMetadataKey)), EncryptionPrepared);
	/* What is kept is the key wrapped for the image's name, as ceph-csi wraps it. */
	auto unwrapped = unwrapDataKey(*stored(std::string(DataKeyMetadataKey)),
				       Secret(std::string_view("kek passphrase")), "web-img");
	ASSERT_TRUE(unwrapped) << unwrapped.error().message;
	EXPECT_EQ(unwrapped->view(), key->view());

	/* A format cut short is finished with the same key. */
	auto again = keys_.forFormat(request_);
	ASSERT_TRUE(again) << again.error().message;
	EXPECT_EQ(again->view(), key->view());
	auto opened = keys_.existing(request_);
	ASSERT_TRUE(opened) << opened.error().message;
	EXPECT_EQ(opened->view(), key->view());

	ASSERT_TRUE(keys_.formatted(request_));
	EXPECT_EQ(stored(std::string(EncryptionStateMetadataKey)), EncryptionDone);
}

TEST_F(VolumeKeysTest, AnImageTheMetadataCallsEncryptedIsNeverFormattedAgain)
{
	ASSERT_TRUE(keys_.forFormat(request_));
	ASSERT_TRUE(keys_.formatted(request_));
	auto again = keys_.forFormat(request_);
	ASSERT_FALSE(again);
	EXPECT_EQ(again.error().code, Errc::Conflict);
	EXPECT_NE(again.error().message.find("says it is encrypted"), std::string::npos);
}

TEST_F(VolumeKeysTest, AVolumeCephCsiProvisionedOpensWithItsKeyUnderItsVolumeId)
{
	const std::string id = "0001-0009-rook-ceph-0000000000000002-1b3c5d7e";
	const std::string key = provision(std::string(DataKeyMetadataKey), id);
	request_.encryption.volumeId = id;
	auto formatting = keys_.forFormat(request_);
	ASSERT_TRUE(formatting) << formatting.error().message;
	EXPECT_EQ(formatting->view(), key);
	auto opened = keys_.existing(request_);
	ASSERT_TRUE(opened) << opened.error().message;
	EXPECT_EQ(opened->view(), key);

	/* Another volume's ID, or another passphrase, unwraps nothing. */
	request_.encryption.volumeId.clear();
	auto other = keys_.existing(request_);
	ASSERT_FALSE(other);
	EXPECT_EQ(other.error().code, Errc::PermissionDenied);
	EXPECT_NE(other.error().message.find("web-img"), std::string::npos);
	request_.encryption.volumeId = id;
	request_.encryption.keyfile = keyfile("wrong", "another passphrase");
	auto wrong = keys_.forFormat(request_);
	ASSERT_FALSE(wrong);
	EXPECT_EQ(wrong.error().code, Errc::PermissionDenied);
}

TEST_F(VolumeKeysTest, AVolumeFromBeforeCephCsiRenamedItsKeysOpensToo)
{
	const std::string key = provision(std::string(LegacyDataKeyMetadataKey), "web-img");
	auto opened = keys_.existing(request_);
	ASSERT_TRUE(opened) << opened.error().message;
	EXPECT_EQ(opened->view(), key);
}

TEST_F(VolumeKeysTest, APassphraseGivenAtUpStandsForTheKeyfileUntilItIsForgotten)
{
	const std::string id = "0001-0009-rook-ceph-0000000000000002-1b3c5d7e";
	const std::string key = provision(std::string(DataKeyMetadataKey), id);
	request_.encryption.volumeId = id;
	request_.encryption.keyfile.clear();
	request_.encryption.givenAtUp = true;
	auto none = keys_.existing(request_);
	ASSERT_FALSE(none);
	EXPECT_EQ(none.error().code, Errc::NotFound);
	EXPECT_NE(none.error().message.find("given-at-up"), std::string::npos);

	given_.give("web", Secret(std::string_view("another passphrase")));
	auto wrong = keys_.existing(request_);
	ASSERT_FALSE(wrong);
	EXPECT_EQ(wrong.error().code, Errc::PermissionDenied);
	given_.give("web", Secret(std::string_view("kek passphrase")));
	auto opened = keys_.existing(request_);
	ASSERT_TRUE(opened) << opened.error().message;
	EXPECT_EQ(opened->view(), key);

	/* With passphrase = "keyfile" the given bytes are the LUKS passphrase, as ceph-csi's default KMS has it. */
	request_.encryption.source = KeySource::Keyfile;
	auto plain = keys_.forFormat(request_);
	ASSERT_TRUE(plain) << plain.error().message;
	EXPECT_EQ(plain->view(), "kek passphrase");
	/* ... and like ceph-csi's node, the state is kept for it too. */
	ASSERT_TRUE(keys_.formatted(request_));
	EXPECT_EQ(stored(std::string(EncryptionStateMetadataKey)), EncryptionDone);
	auto again = keys_.forFormat(request_);
	ASSERT_FALSE(again);
	EXPECT_EQ(again.error().code, Errc::Conflict);

	given_.forget("web");
	EXPECT_FALSE(keys_.existing(request_));
}

TEST_F(VolumeKeysTest, WithoutADataKeyNothingOpens)
{
	auto opened = keys_.existing(request_);
	ASSERT_FALSE(opened);
	EXPECT_EQ(opened.error().code, Errc::Conflict);
	EXPECT_NE(opened.error().message.find("rbd.csi.ceph.com/dek"), std::string::npos);
	EXPECT_TRUE(world_.image(image_).metadata.empty());
}

} /* namespace rbdvolume::testing */
