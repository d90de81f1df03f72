/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "common/file_io.hpp"

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <gtest/gtest.h>

#include "common/unique_fd.hpp"
#include "temp_dir.hpp"

namespace rbdvolume {
namespace {

using testing::TempDir;

TEST(ReadFileBounded, ReadsARegularFileWhole)
{
	TempDir dir;
	dir.write("a", std::string(20000, 'x'));
	auto text = readFileBounded(dir.path() + "/a", 20000);
	ASSERT_TRUE(text) << text.error().message;
	ASSERT_TRUE(text->has_value());
	EXPECT_EQ(**text, std::string(20000, 'x'));
}

TEST(ReadFileBounded, AMissingFileIsNoFile)
{
	TempDir dir;
	auto text = readFileBounded(dir.path() + "/none", 100);
	ASSERT_TRUE(text);
	EXPECT_FALSE(text->has_value());
}

TEST(ReadFileBounded, AFileOverTheBoundIsRefused)
{
	TempDir dir;
	dir.write("big", std::string(4097, 'x'));
	auto text = readFileBounded(dir.path() + "/big", 4096);
	ASSERT_FALSE(text);
	EXPECT_EQ(text.error().message, "expected a file of at most 4 KiB, found a larger one");
	EXPECT_EQ(text.error().sysErrno, EFBIG);
}

/* Opened for reading, a FIFO would wait for a writer forever. */
TEST(ReadFileBounded, AFifoIsRefusedWithoutWaiting)
{
	TempDir dir;
	const std::string fifo = dir.path() + "/x.toml";
	ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
	auto text = readFileBounded(fifo, 100, Symlinks::Follow);
	ASSERT_FALSE(text);
	EXPECT_EQ(text.error().message, "expected a file, found a FIFO");
}

TEST(ReadFileBounded, ADeviceIsRefusedBeforeItIsRead)
{
	auto text = readFileBounded("/dev/zero", 100, Symlinks::Follow);
	ASSERT_FALSE(text);
	EXPECT_EQ(text.error().message, "expected a file, found a character device");
}

TEST(ReadFileBounded, ADirectoryIsRefused)
{
	TempDir dir;
	auto text = readFileBounded(dir.path(), 100);
	ASSERT_FALSE(text);
	EXPECT_EQ(text.error().message, "expected a file, found a directory");
}

TEST(ReadFileBounded, ASocketIsRefused)
{
	TempDir dir;
	const std::string path = dir.path() + "/sock";
	const UniqueFd fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
	sockaddr_un address{};
	address.sun_family = AF_UNIX;
	path.copy(address.sun_path, sizeof(address.sun_path) - 1);
	ASSERT_EQ(bind(fd.get(), reinterpret_cast<sockaddr *>(&address), sizeof(address)), 0);
	auto text = readFileBounded(path, 100, Symlinks::Follow);
	ASSERT_FALSE(text);
	EXPECT_EQ(text.error().message, "expected a file, found a socket");
}

TEST(ReadFileBounded, ALinkToADeviceIsRefusedWhenFollowed)
{
	TempDir dir;
	const std::string link = dir.path() + "/zero.toml";
	ASSERT_EQ(symlink("/dev/zero", link.c_str()), 0);
	auto text = readFileBounded(link, 100, Symlinks::Follow);
	ASSERT_FALSE(text);
	EXPECT_EQ(text.error().message, "expected a file, found a character device");
}

TEST(ReadFileBounded, ALinkToAFileIsFollowedOnlyWhenAllowed)
{
	TempDir dir;
	dir.write("real", "key=value\n");
	const std::string link = dir.path() + "/link";
	ASSERT_EQ(symlink((dir.path() + "/real").c_str(), link.c_str()), 0);
	auto followed = readFileBounded(link, 100, Symlinks::Follow);
	ASSERT_TRUE(followed);
	EXPECT_EQ(followed->value_or(""), "key=value\n");
	auto refused = readFileBounded(link, 100, Symlinks::Refuse);
	ASSERT_FALSE(refused);
	EXPECT_EQ(refused.error().message, "expected a file, found a symbolic link");
}

TEST(ReadFileBounded, KernelAttributesAreRegularFiles)
{
	auto text = readFileBounded("/proc/self/comm", 100);
	ASSERT_TRUE(text) << text.error().message;
	EXPECT_FALSE(text->value_or("").empty());
}

TEST(WriteFileAtomic, WritesWithTheModeAndLeavesNoTemporary)
{
	TempDir dir;
	const std::string path = dir.path() + "/record";
	ASSERT_TRUE(writeFileAtomic(path, "one\n", 0600));
	ASSERT_TRUE(writeFileAtomic(path, "two\n", 0600));
	EXPECT_EQ(readFileBounded(path, 100)->value_or(""), "two\n");
	struct stat st {
	};
	ASSERT_EQ(stat(path.c_str(), &st), 0);
	EXPECT_EQ(st.st_mode & 07777, 0600U);
	size_t entries = 0;
	for ([[maybe_unused]] const auto &entry : std::filesystem::directory_iterator(dir.path()))
		entries++;
	EXPECT_EQ(entries, 1U);
}

TEST(WriteFileNew, WritesOnceAndNeverReplaces)
{
	TempDir dir;
	const std::string path = dir.path() + "/data.toml";
	ASSERT_TRUE(writeFileNew(path, "one\n", 0644));
	auto again = writeFileNew(path, "two\n", 0644);
	ASSERT_FALSE(again);
	EXPECT_EQ(again.error().code, Errc::Conflict);
	EXPECT_EQ(again.error().message, "exists already; refusing to overwrite it");
	EXPECT_EQ(readFileBounded(path, 100)->value_or(""), "one\n");
	struct stat st {
	};
	ASSERT_EQ(stat(path.c_str(), &st), 0);
	EXPECT_EQ(st.st_mode & 07777, 0644U);
	size_t entries = 0;
	for ([[maybe_unused]] const auto &entry : std::filesystem::directory_iterator(dir.path()))
		entries++;
	EXPECT_EQ(entries, 1U) << "a temporary file was left";
}

TEST(WriteFileAtomic, KnowsTheNamesOfItsTemporaries)
{
	EXPECT_TRUE(isAtomicWriteTemporary("data.tmpAb12Cd"));
	EXPECT_TRUE(isAtomicWriteTemporary("/run/rbd-volume/owned/data.tmpAb12Cd"));
	EXPECT_FALSE(isAtomicWriteTemporary("data"));
	EXPECT_FALSE(isAtomicWriteTemporary("data.tmp"));
	EXPECT_FALSE(isAtomicWriteTemporary("data.tmpAb12C"));
	EXPECT_FALSE(isAtomicWriteTemporary("data.tmpAb12Cde"));
}

} /* namespace */
} /* namespace rbdvolume */
