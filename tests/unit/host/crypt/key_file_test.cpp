/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The keyfile: its bytes exactly, and only from a file no one else may read. */
#include "host/crypt/key_file.hpp"

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include <sys/stat.h>

#include <gtest/gtest.h>

namespace rbdvolume {

namespace {

class Keyfile : public ::testing::Test
{
protected:
	void SetUp() override
	{
		std::string pattern =
			(std::filesystem::temp_directory_path() / "rbdv-key-XXXXXX").string();
		ASSERT_NE(mkdtemp(pattern.data()), nullptr);
		dir_ = pattern;
	}
	void TearDown() override { std::filesystem::remove_all(dir_); }

	std::string write(const std::string &name, const std::string &bytes, mode_t mode) const
	{
		std::string path = dir_ + "/" + name;
		std::ofstream(path, std::ios::binary) << bytes;
		EXPECT_EQ(chmod(path.c_str(), mode), 0);
		return path;
	}

	std::string dir_;
};

TEST_F(Keyfile, ItsBytesExactlyWithTheNewline)
{
	const std::string path = write("k", "pass phrase\n", 0600);
	auto key = readKeyfile(path);
	ASSERT_TRUE(key) << key.error().message;
	EXPECT_EQ(key->view(), "pass phrase\n");
	EXPECT_TRUE(readKeyfile(write("r", "x", 0400)));
}

TEST_F(Keyfile, AFileOthersMayReadOrWriteIsRefusedAndSaysHowToFixIt)
{
	for (const mode_t mode : { 0640U, 0604U, 0620U, 0602U, 0644U }) {
		auto key = readKeyfile(write("k" + std::to_string(mode), "secret", mode));
		ASSERT_FALSE(key) << std::oct << mode;
		EXPECT_EQ(key.error().code, Errc::PermissionDenied);
		EXPECT_NE(key.error().message.find("chmod 0600"), std::string::npos);
		EXPECT_EQ(key.error().message.find("secret"), std::string::npos)
			<< "the message quotes the key";
	}
}

TEST_F(Keyfile, ASymbolicLinkIsRefused)
{
	const std::string target = write("k", "secret", 0600);
	std::filesystem::create_symlink(target, dir_ + "/link");
	auto key = readKeyfile(dir_ + "/link");
	ASSERT_FALSE(key);
	EXPECT_EQ(key.error().code, Errc::PermissionDenied);
	EXPECT_NE(key.error().message.find("symbolic link"), std::string::npos);
}

TEST_F(Keyfile, EmptyTooLargeMissingAndNotAFileAreRefusedWithoutBlocking)
{
	auto empty = readKeyfile(write("empty", "", 0600));
	ASSERT_FALSE(empty);
	EXPECT_EQ(empty.error().code, Errc::InvalidArgument);

	auto large = readKeyfile(write("large", std::string(MaxKeyfileBytes + 1, 'k'), 0600));
	ASSERT_FALSE(large);
	EXPECT_EQ(large.error().code, Errc::InvalidArgument);
	EXPECT_TRUE(readKeyfile(write("max", std::string(MaxKeyfileBytes, 'k'), 0600)));

	auto missing = readKeyfile(dir_ + "/missing");
	ASSERT_FALSE(missing);
	EXPECT_EQ(missing.error().code, Errc::NotFound);

	/* A FIFO with no writer would block a plain open: refused at once. */
	ASSERT_EQ(mkfifo((dir_ + "/fifo").c_str(), 0600), 0);
	auto fifo = readKeyfile(dir_ + "/fifo");
	ASSERT_FALSE(fifo);
	EXPECT_EQ(fifo.error().code, Errc::InvalidArgument);
	EXPECT_NE(fifo.error().message.find("FIFO"), std::string::npos);

	auto directory = readKeyfile(dir_);
	ASSERT_FALSE(directory);
	EXPECT_EQ(directory.error().code, Errc::InvalidArgument);
}

} /* namespace */

} /* namespace rbdvolume */
