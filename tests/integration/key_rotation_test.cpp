/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Key rotation on a real LUKS2 header (a loop device): stopped after each
 * step, as a crash would stop it, the header still opens with the volume's
 * keyfile, and the same rotation run again finishes it.
 */
#include "host/key_rotation.hpp"

#include <fstream>

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "host/drivers/fuse/loop_device.hpp"
#include "integration_env.hpp"
#include "quick_luks.hpp"
#include "read_text.hpp"
#include "shell.hpp"

namespace rbdvolume {
namespace {

using rbdvolume::testing::readText;

using testing::quickLuksFormat;
using testing::shellOk;

void writeKey(const std::string &path, const std::string &bytes, mode_t mode)
{
	std::ofstream(path) << bytes;
	ASSERT_EQ(chmod(path.c_str(), mode), 0);
}

class KeyRotationTest : public ::testing::Test
{
protected:
	void SetUp() override
	{
		dir_ = testing::freshDir("rotation");
		shellOk("truncate -s 32M " + dir_ + "/disk");
		auto attached = attachLoop(dir_ + "/disk", false);
		ASSERT_TRUE(attached) << attached.error().message;
		device_ = *attached;
		ASSERT_TRUE(
			formatLuks(device_, quickLuksFormat(), Secret(std::string_view(OldKey))));
		rotation_.device = device_;
		rotation_.keyfile = dir_ + "/volume.key";
		rotation_.newKeyfile = dir_ + "/new.key";
		rotation_.format = quickLuksFormat();
		writeKey(rotation_.keyfile, OldKey, 0400);
		writeKey(rotation_.newKeyfile, NewKey, 0600);
	}
	void TearDown() override
	{
		if (!device_.empty())
			(void)detachLoop(device_);
	}

	bool opensWith(const std::string &key) const
	{
		return checkPassphrase(device_, Secret(std::string_view(key))).has_value();
	}

	static constexpr const char *OldKey = "the old key";
	static constexpr const char *NewKey = "the new\nkey";
	std::string dir_;
	std::string device_;
	KeyRotation rotation_;
};

} /* namespace */

TEST_F(KeyRotationTest, AllStepsLeaveOnlyTheNewKeyInTheHeaderAndTheKeyfile)
{
	std::vector<std::string> lines;
	auto rotated = rotateKey(
		rotation_, RotationSteps, [&lines](RotationStep step, const std::string &detail) {
			lines.push_back(std::string(rotationStepName(step)) + ": " + detail);
		});
	ASSERT_TRUE(rotated) << rotated.error().message;
	EXPECT_EQ(lines, (std::vector<std::string>{
				 "add-key: key slot 1", "verify: the new key opens key slot 1",
				 "mark-old: key slot 0 retiring", "replace: " + rotation_.keyfile,
				 "remove-old: key slot 0 destroyed" }));
	EXPECT_FALSE(opensWith(OldKey));
	EXPECT_TRUE(opensWith(NewKey));
	EXPECT_EQ(readLuksHeader(device_)->keyslots, std::vector<int>{ 1 });
	EXPECT_EQ(readText(rotation_.keyfile), NewKey);
	auto mark = retiringKeySlot(device_);
	ASSERT_TRUE(mark) << mark.error().message;
	EXPECT_FALSE(*mark) << "the record is dropped";
	EXPECT_EQ(shellOk("cryptsetup luksDump " + device_).find("rbd-volume-rotation"),
		  std::string::npos);
	struct stat st {
	};
	ASSERT_EQ(stat(rotation_.keyfile.c_str(), &st), 0);
	EXPECT_EQ(st.st_mode & 07777, 0400U) << "the keyfile's mode is kept";

	/* Done is done: run again, nothing changes. */
	ASSERT_TRUE(rotateKey(rotation_, RotationSteps, nullptr));
	EXPECT_EQ(readLuksHeader(device_)->keyslots, std::vector<int>{ 1 });
}

TEST_F(KeyRotationTest, StoppedAfterAnyStepItOpensAndRunAgainItFinishes)
{
	for (size_t stop = 0; stop <= RotationSteps.size(); ++stop) {
		SCOPED_TRACE("stopped after " + std::to_string(stop) + " steps");
		if (stop != 0) /* a fresh header and keyfiles: the fixture made the first */
			SetUp();
		ASSERT_TRUE(rotateKey(rotation_, std::span(RotationSteps).first(stop), nullptr));
		/* Whatever the keyfile holds opens the header: the volume can always be opened. */
		const std::string inKeyfile = readText(rotation_.keyfile);
		EXPECT_TRUE(opensWith(inKeyfile));
		EXPECT_EQ(inKeyfile, stop < 4 ? OldKey : NewKey);
		EXPECT_EQ(opensWith(OldKey), stop < 5);
		EXPECT_EQ(opensWith(NewKey), stop >= 1);
		auto mark = retiringKeySlot(device_);
		ASSERT_TRUE(mark) << mark.error().message;
		EXPECT_EQ(mark->has_value(), stop >= 3 && stop < 5);
		if (mark->has_value()) {
			EXPECT_NE(shellOk("cryptsetup luksDump " + device_)
					  .find("rbd-volume-rotation"),
				  std::string::npos);
		}

		auto finished = rotateKey(rotation_, RotationSteps, nullptr);
		ASSERT_TRUE(finished) << finished.error().message;
		EXPECT_FALSE(opensWith(OldKey));
		EXPECT_TRUE(opensWith(NewKey));
		EXPECT_EQ(readLuksHeader(device_)->keyslots.size(), 1U);
		EXPECT_EQ(readText(rotation_.keyfile), NewKey);
		EXPECT_FALSE(retiringKeySlot(device_).value_or(1).has_value());
		TearDown();
		device_.clear();
	}
}

TEST_F(KeyRotationTest, AKeyThatOpensNothingChangesNothing)
{
	writeKey(rotation_.keyfile, "not the key", 0600);
	auto refused = rotateKey(rotation_, RotationSteps, nullptr);
	ASSERT_FALSE(refused);
	EXPECT_EQ(refused.error().code, Errc::PermissionDenied) << refused.error().message;
	EXPECT_EQ(refused.error().message.rfind("add-key: ", 0), 0U) << refused.error().message;
	EXPECT_EQ(readLuksHeader(device_)->keyslots, std::vector<int>{ 0 });
	EXPECT_EQ(readText(rotation_.keyfile), "not the key");

	writeKey(rotation_.newKeyfile, "loose", 0644);
	auto unsafe = rotateKey(rotation_, RotationSteps, nullptr);
	ASSERT_FALSE(unsafe);
	EXPECT_NE(unsafe.error().message.find("new.key"), std::string::npos);
}

} /* namespace rbdvolume */
