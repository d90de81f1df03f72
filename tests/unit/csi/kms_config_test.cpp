/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ceph-csi's KMS config: an entry's type and secret name, and every way the file can be wrong. */
#include "csi/kms_config.hpp"

#include <gtest/gtest.h>

#include "temp_dir.hpp"

namespace rbdvolume::csi {

namespace {

/* As ceph-csi's examples/kms/vault/kms-config.yaml holds it, trimmed. */
constexpr const char *Example = R"({
  "vault-test": {
    "encryptionKMSType": "vault",
    "vaultAddress": "http://vault.default.svc.cluster.local:8200",
    "vaultBackendPath": "secret/"
  },
  "secrets-metadata-test": {"encryptionKMSType": "metadata"},
  "user-ns-secrets-metadata-test": {
    "encryptionKMSType": "metadata",
    "secretName": "storage-encryption-secret",
    "secretNamespace": "default"
  },
  "legacy-vault": {"KMS_PROVIDER": "vaulttokens"}
})";

} /* namespace */

TEST(KmsConfig, AnEntryIsItsTypeAndSecretName)
{
	auto metadata = kmsEntryOf(Example, "config.json", "secrets-metadata-test");
	ASSERT_TRUE(metadata) << metadata.error().message;
	EXPECT_EQ(metadata->type, "metadata");
	EXPECT_EQ(metadata->secretName, "");
	auto user = kmsEntryOf(Example, "config.json", "user-ns-secrets-metadata-test");
	ASSERT_TRUE(user) << user.error().message;
	EXPECT_EQ(user->secretName, "storage-encryption-secret");
	EXPECT_EQ(kmsEntryOf(Example, "config.json", "vault-test")->type, "vault");
	EXPECT_EQ(kmsEntryOf(Example, "config.json", "legacy-vault")->type, "vaulttokens");
}

TEST(KmsConfig, AMissingIdNamesTheOnesThereAre)
{
	auto missing = kmsEntryOf(Example, "config.json", "nope");
	ASSERT_FALSE(missing);
	EXPECT_EQ(missing.error().code, Errc::InvalidArgument);
	EXPECT_NE(missing.error().message.find("'nope' is not in config.json"), std::string::npos);
	EXPECT_NE(missing.error().message.find("'secrets-metadata-test'"), std::string::npos);
}

TEST(KmsConfig, WhatIsNotCephCsisFormatIsRefused)
{
	const std::vector<std::pair<std::string, std::string>> cases = {
		{ "[]", "a JSON object of KMS IDs" },
		{ "{", "a JSON object of KMS IDs" },
		{ R"({"a": "metadata"})", "'a' is not a JSON object" },
		{ R"({"a": {"encryptionKMSType": 3}})", "are strings" },
		{ R"({"a": {}})", "has no encryptionKMSType" },
		{ std::string(100, '[') + std::string(100, ']'), "nested at most 32 deep" },
	};
	for (const auto &[text, expected] : cases) {
		auto entry = kmsEntryOf(text, "config.json", "a");
		ASSERT_FALSE(entry) << text;
		EXPECT_EQ(entry.error().code, Errc::InvalidArgument) << text;
		EXPECT_NE(entry.error().message.find(expected), std::string::npos)
			<< entry.error().message;
	}
}

TEST(KmsConfig, TheFileIsReadOrItsAbsenceNamed)
{
	testing::TempDir dir;
	dir.write("config.json", Example);
	auto entry = loadKmsEntry(dir.path() + "/config.json", "secrets-metadata-test");
	ASSERT_TRUE(entry) << entry.error().message;
	EXPECT_EQ(entry->type, "metadata");
	auto absent = loadKmsEntry(dir.path() + "/none.json", "secrets-metadata-test");
	ASSERT_FALSE(absent);
	EXPECT_EQ(absent.error().code, Errc::InvalidArgument);
	EXPECT_NE(absent.error().message.find("--kms-config"), std::string::npos);
}

} /* namespace rbdvolume::csi */
