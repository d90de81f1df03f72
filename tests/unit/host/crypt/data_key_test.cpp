/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/crypt/data_key.hpp"

#include <gtest/gtest.h>

namespace rbdvolume {
namespace {

/*
 * Made apart from our code, with Python's hashlib.scrypt and the
 * cryptography package's AESGCM, the way ceph-csi's secretskms.go wraps a
 * key: scrypt(passphrase, salt = volume ID, 32768, 8, 1, 32), AES-256-GCM
 * with a 12-byte nonce and no associated data, Go's JSON of two []byte
 * fields (standard base64). The data key is base64url of bytes 100..119.
 */
constexpr std::string_view Passphrase = "secret-kek-passphrase";
constexpr std::string_view VolumeId =
	"0001-0009-rook-ceph-0000000000000002-3f1c2d8e-6b5a-4e0f-9a7b-1c2d3e4f5a6b";
constexpr std::string_view DataKey = "ZGVmZ2hpamtsbW5vcHFyc3R1dnc=";
constexpr std::string_view Stored =
	R"({"dek":"QiCYmMAsgb0k6rFCtmahEaTObFNaTXLzIo+H9Kr/BIweD3aeXJTnYV7LblU=","nonce":"AQIDBAUGBwgJCgsM"})";

TEST(DataKey, UnwrapsAKeyWrappedTheWayCephCsiWrapsIt)
{
	auto key = unwrapDataKey(Stored, Secret(Passphrase), VolumeId);
	ASSERT_TRUE(key) << key.error().message;
	EXPECT_EQ(key->view(), DataKey);
}

TEST(DataKey, TakesTheMembersInEitherOrderAndWithSpaces)
{
	const std::string swapped =
		R"( { "nonce" : "AQIDBAUGBwgJCgsM" , "dek" : "QiCYmMAsgb0k6rFCtmahEaTObFNaTXLzIo+H9Kr/BIweD3aeXJTnYV7LblU=" } )";
	auto key = unwrapDataKey(swapped, Secret(Passphrase), VolumeId);
	ASSERT_TRUE(key) << key.error().message;
	EXPECT_EQ(key->view(), DataKey);
}

TEST(DataKey, AWrongPassphraseOrVolumeIsPermissionDenied)
{
	auto wrong =
		unwrapDataKey(Stored, Secret(std::string_view("secret-kek-passphrasE")), VolumeId);
	ASSERT_FALSE(wrong);
	EXPECT_EQ(wrong.error().code, Errc::PermissionDenied);
	EXPECT_NE(wrong.error().message.find("does not unwrap"), std::string::npos);
	EXPECT_EQ(wrong.error().message.find(Passphrase), std::string::npos) << "never the secret";

	auto other = unwrapDataKey(Stored, Secret(Passphrase), "csi-vol-3f1c2d8e");
	ASSERT_FALSE(other);
	EXPECT_EQ(other.error().code, Errc::PermissionDenied);
	EXPECT_NE(other.error().message.find("csi-vol-3f1c2d8e"), std::string::npos);
}

TEST(DataKey, ATamperedKeyOrNonceDoesNotUnwrap)
{
	std::string tampered(Stored);
	tampered[10] = tampered[10] == 'A' ? 'B' : 'A';
	EXPECT_EQ(unwrapDataKey(tampered, Secret(Passphrase), VolumeId).error().code,
		  Errc::PermissionDenied);
	tampered = Stored;
	tampered.replace(tampered.find("AQID"), 4, "AQIE");
	EXPECT_EQ(unwrapDataKey(tampered, Secret(Passphrase), VolumeId).error().code,
		  Errc::PermissionDenied);
}

TEST(DataKey, AnythingButTheWrappedFormIsInvalidArgument)
{
	for (const std::string_view bad : {
		     "",
		     "{}",
		     R"({"dek":"QiCY"})",
		     R"({"dek":"QiCYmMAsgb0k6rFCtmahEaTObFNaTXLzIo+H9Kr/BIweD3aeXJTnYV7LblU=","nonce":"AQIDBAUGBwgJCgsM","x":"y"})",
		     R"({"dek":"QiCYmMAsgb0k6rFCtmahEaTObFNaTXLzIo+H9Kr/BIweD3aeXJTnYV7LblU=","dek":"AQIDBAUGBwgJCgsM"})",
		     R"({"dek":"QiCYmMAsgb0k6rFCtmahEaTObFNaTXLzIo-H9Kr_BIweD3aeXJTnYV7LblU=","nonce":"AQIDBAUGBwgJCgsM"})",
		     R"({"dek":"QiCYmMAsgb0k6rFCtmahEaTObFNaTXLzIo+H9Kr/BIweD3aeXJTnYV7LblU=","nonce":"AQIDBAUGBwgJCgs="})",
		     R"({"dek":"QiCYmMAsgb0k6rFC","nonce":"AQIDBAUGBwgJCgsM"})",
		     R"({"dek":"QiCYmMAsgb0k6rFCtmahEaTObFNaTXLzIo+H9Kr/BIweD3aeXJTnYV7LblU=","nonce":"AQIDBAUGBwgJCgsM"} x)",
		     "encryptionPrepared",
	     }) {
		auto key = unwrapDataKey(bad, Secret(Passphrase), VolumeId);
		ASSERT_FALSE(key) << bad;
		EXPECT_EQ(key.error().code, Errc::InvalidArgument) << bad;
	}
}

TEST(DataKey, AStoredValueBeyondFourKiBIsNotParsed)
{
	const std::string huge =
		R"({"dek":")" + std::string(4096, 'A') + R"(","nonce":"AQIDBAUGBwgJCgsM"})";
	auto key = unwrapDataKey(huge, Secret(Passphrase), VolumeId);
	ASSERT_FALSE(key);
	EXPECT_EQ(key.error().code, Errc::InvalidArgument);
	EXPECT_NE(key.error().message.find("bytes long"), std::string::npos);
}

TEST(DataKey, ANewKeyIsTwentyRandomBytesInBase64Url)
{
	auto one = newDataKey();
	auto two = newDataKey();
	ASSERT_TRUE(one && two);
	ASSERT_EQ(one->size(), 28U);
	EXPECT_EQ(one->view().back(), '=');
	EXPECT_EQ(one->view().find_first_not_of(
			  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_="),
		  std::string_view::npos);
	EXPECT_FALSE(one->equals(*two));
}

TEST(DataKey, WhatWeWrapUnwrapsAndCarriesAFreshNonce)
{
	auto key = newDataKey();
	ASSERT_TRUE(key);
	auto first = wrapDataKey(*key, Secret(Passphrase), VolumeId);
	auto second = wrapDataKey(*key, Secret(Passphrase), VolumeId);
	ASSERT_TRUE(first && second);
	EXPECT_NE(*first, *second);
	EXPECT_EQ(first->find(key->view()), std::string::npos);
	EXPECT_TRUE(first->starts_with(R"({"dek":")")) << *first;
	auto back = unwrapDataKey(*first, Secret(Passphrase), VolumeId);
	ASSERT_TRUE(back) << back.error().message;
	EXPECT_TRUE(back->equals(*key));
}

} /* namespace */
} /* namespace rbdvolume */
