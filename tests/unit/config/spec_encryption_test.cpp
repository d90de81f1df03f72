/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The [encryption] table of spec v1: its keys, their checks, and what it cannot be combined with. */
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "config/spec_parser.hpp"

namespace rbdvolume {
namespace {

constexpr std::string_view Image = "[image]\npool = \"rbd\"\nname = \"data\"\n";

SpecOutcome parse(const std::string &encryption)
{
	return parseVolumeSpec(std::string(Image) + "[encryption]\n" + encryption, "/etc/vol.toml");
}

std::vector<std::string> messages(const SpecOutcome &outcome)
{
	std::vector<std::string> lines;
	lines.reserve(outcome.diagnostics.size());
	for (const Diagnostic &diagnostic : outcome.diagnostics)
		lines.push_back(diagnostic.format());
	return lines;
}

TEST(SpecEncryption, EveryKeyIsRead)
{
	const SpecOutcome outcome =
		parse("type = \"luks2\"\n"
		      "passphrase = \"image-metadata\"\n"
		      "keyfile = \"/etc/rbd-volume/keys/kek\"\n"
		      "volume-id = \"0001-0009-rook-ceph-0000000000000002-3f1c\"\n"
		      "cipher = \"serpent-xts-plain64\"\n"
		      "key-size = 256\n"
		      "pbkdf = \"pbkdf2\"\n"
		      "pbkdf-time = \"250ms\"\n");
	EXPECT_EQ(messages(outcome), std::vector<std::string>{});
	ASSERT_TRUE(outcome.spec.encryption);
	const EncryptionSpec &e = *outcome.spec.encryption;
	EXPECT_EQ(e.source, KeySource::ImageMetadata);
	EXPECT_EQ(e.keyfile, "/etc/rbd-volume/keys/kek");
	EXPECT_EQ(e.volumeId, "0001-0009-rook-ceph-0000000000000002-3f1c");
	EXPECT_EQ(e.cipher, "serpent-xts-plain64");
	EXPECT_EQ(e.keyBits, 256U);
	EXPECT_EQ(e.pbkdf, Pbkdf::Pbkdf2);
	EXPECT_EQ(e.pbkdfTime, std::chrono::milliseconds(250));
}

TEST(SpecEncryption, DefaultsAreCryptsetups)
{
	const SpecOutcome outcome = parse("type = \"luks2\"\nkeyfile = \"/etc/k\"\n");
	EXPECT_EQ(messages(outcome), std::vector<std::string>{});
	ASSERT_TRUE(outcome.spec.encryption);
	EXPECT_EQ(outcome.spec.encryption->source, KeySource::Keyfile);
	EXPECT_EQ(outcome.spec.encryption->volumeId, "");
	EXPECT_EQ(outcome.spec.encryption->cipher, "aes-xts-plain64");
	EXPECT_EQ(outcome.spec.encryption->keyBits, 512U);
	EXPECT_EQ(outcome.spec.encryption->pbkdf, Pbkdf::Argon2id);
	EXPECT_EQ(outcome.spec.encryption->pbkdfTime, std::chrono::seconds(2));
}

TEST(SpecEncryption, BothKeySourcesAreAcceptedAndNoTableMeansNoEncryption)
{
	EXPECT_EQ(messages(parse("type = \"luks2\"\nkeyfile = \"/etc/k\"\n")),
		  std::vector<std::string>{});
	const SpecOutcome outcome =
		parse("type = \"luks2\"\npassphrase = \"image-metadata\"\nkeyfile = \"/etc/k\"\n");
	EXPECT_EQ(messages(outcome), std::vector<std::string>{});
	ASSERT_TRUE(outcome.spec.encryption);
	EXPECT_EQ(outcome.spec.encryption->source, KeySource::ImageMetadata);
	EXPECT_FALSE(parseVolumeSpec(Image, "/etc/vol.toml").spec.encryption);
}

TEST(SpecEncryption, APassphraseGivenAtUpTakesTheKeyfilesPlace)
{
	const SpecOutcome given = parse("type = \"luks2\"\npassphrase = \"image-metadata\"\n"
					"given-at-up = true\nvolume-id = \"v1\"\n");
	EXPECT_EQ(messages(given), std::vector<std::string>{});
	ASSERT_TRUE(given.spec.encryption);
	EXPECT_TRUE(given.spec.encryption->givenAtUp);
	EXPECT_EQ(given.spec.encryption->keyfile, "");

	const SpecOutcome both =
		parse("type = \"luks2\"\nkeyfile = \"/etc/k\"\ngiven-at-up = true\n");
	ASSERT_EQ(messages(both).size(), 1U) << ::testing::PrintToString(messages(both));
	EXPECT_NE(messages(both).front().find("/etc/vol.toml:6:"), std::string::npos)
		<< messages(both).front();
	EXPECT_NE(messages(both).front().find("expected no keyfile with given-at-up"),
		  std::string::npos);
	const SpecOutcome neither = parse("type = \"luks2\"\ngiven-at-up = false\n");
	ASSERT_EQ(messages(neither).size(), 1U);
	EXPECT_NE(messages(neither).front().find(
			  "missing required key 'keyfile' in [encryption] (or given-at-up = true)"),
		  std::string::npos)
		<< messages(neither).front();
}

TEST(SpecEncryption, AnExclusiveMappingCannotKeepItsKeyInTheImage)
{
	const std::string map = "[map]\nexclusive = true\n";
	const SpecOutcome metadata = parseVolumeSpec(
		std::string(Image) + map +
			"[encryption]\ntype = \"luks2\"\npassphrase = \"image-metadata\"\n"
			"keyfile = \"/etc/k\"\n",
		"/etc/vol.toml");
	ASSERT_EQ(messages(metadata).size(), 1U) << ::testing::PrintToString(messages(metadata));
	EXPECT_NE(messages(metadata).front().find("/etc/vol.toml:5:"), std::string::npos)
		<< messages(metadata).front();
	EXPECT_NE(messages(metadata).front().find("exclusive = true cannot be combined"),
		  std::string::npos);
	const SpecOutcome keyfile = parseVolumeSpec(
		std::string(Image) + map + "[encryption]\ntype = \"luks2\"\nkeyfile = \"/etc/k\"\n",
		"/etc/vol.toml");
	EXPECT_EQ(messages(keyfile), std::vector<std::string>{});
}

TEST(SpecEncryption, BlockModeAndMultiWriterAreRefused)
{
	const std::string table = "[encryption]\ntype = \"luks2\"\nkeyfile = \"/etc/k\"\n";
	const SpecOutcome block =
		parseVolumeSpec("mode = \"block\"\n" + std::string(Image) + table, "/etc/vol.toml");
	ASSERT_EQ(messages(block).size(), 1U) << ::testing::PrintToString(messages(block));
	EXPECT_NE(messages(block).front().find("mode = 'block' is not supported"),
		  std::string::npos);
	const SpecOutcome shared = parseVolumeSpec("mode = \"block\"\n" + std::string(Image) +
							   "[map]\nmulti-writer = true\n" + table,
						   "/etc/vol.toml");
	/* One vector: two calls of messages() would be two vectors, their iterators unrelated. */
	const std::vector<std::string> found = messages(shared);
	EXPECT_TRUE(std::any_of(found.begin(), found.end(), [](const std::string &m) {
		return m.find("multi-writer = true cannot be encrypted") != std::string::npos;
	})) << ::testing::PrintToString(found);
}

TEST(SpecEncryption, EachBadValueIsNamedAtItsLine)
{
	struct Case {
		std::string table;
		std::string expected;
	};
	const std::vector<Case> cases = {
		{ "keyfile = \"/etc/k\"\n", "missing required key 'type'" },
		{ "type = \"luks2\"\n", "missing required key 'keyfile'" },
		{ "type = \"luks1\"\nkeyfile = \"/etc/k\"\n", "'luks2'" },
		{ "type = \"luks2\"\nkeyfile = \"etc/k\"\n", ":6:" },
		{ "type = \"luks2\"\nkeyfile = \"/etc/k\"\npassphrase = \"vault\"\n",
		  "'image-metadata'" },
		{ "type = \"luks2\"\nkeyfile = \"/etc/k\"\nkey-size = 384\n",
		  "expected 256 or 512" },
		{ "type = \"luks2\"\nkeyfile = \"/etc/k\"\ncipher = \"AES\"\n", "CIPHER-MODE" },
		{ "type = \"luks2\"\nkeyfile = \"/etc/k\"\ncipher = \"aes-\"\n", "CIPHER-MODE" },
		{ "type = \"luks2\"\nkeyfile = \"/etc/k\"\npbkdf = \"scrypt\"\n", "'argon2id'" },
		{ "type = \"luks2\"\nkeyfile = \"/etc/k\"\npbkdf-time = \"0ms\"\n",
		  "expected a duration greater than 0, found '0ms'" },
		{ "type = \"luks2\"\nkeyfile = \"/etc/k\"\npbkdf-time = \"11s\"\n",
		  "expected at most 10s, found '11s'" },
		{ "type = \"luks2\"\nkeyfile = \"/etc/k\"\npbkdf-time = 100\n",
		  "such as '100s', found the integer 100" },
		{ "type = \"luks2\"\nkeyfile = \"/etc/k\"\nvolume-id = \"a b\"\n", "whitespace" },
		{ "type = \"luks2\"\nkeyfile = \"/etc/k\"\nvolume-id = \"" + std::string(129, 'v') +
			  "\"\n",
		  "at most 128 bytes, found 129" },
		{ "type = \"luks2\"\nkeyfile = \"/etc/k\"\nvolume-id = \"v1\"\n",
		  "needs passphrase = 'image-metadata'" },
		{ "type = \"luks2\"\nkeyfile = \"/etc/k\"\npassphrase-file = \"/k\"\n",
		  "unknown key 'passphrase-file'" },
	};
	for (const Case &c : cases) {
		const std::vector<std::string> found = messages(parse(c.table));
		ASSERT_EQ(found.size(), 1U) << c.table << ::testing::PrintToString(found);
		EXPECT_NE(found.front().find(c.expected), std::string::npos)
			<< c.table << found.front();
	}
}

} /* namespace */
} /* namespace rbdvolume */
