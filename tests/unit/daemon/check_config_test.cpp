/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `rbd-volumed --check-config [FILE]`, run as the built binary: as `sshd -t`, nothing started. */
#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include "host/command_runner.hpp"
#include "temp_dir.hpp"

namespace rbdvolume::testing {

namespace {

struct Checked {
	int status = -1;
	std::string out;
};

Checked checkConfig(const std::string &file)
{
	const char *binary = std::getenv("RBDV_VOLUMED"); /* NOLINT(concurrency-mt-unsafe) */
	if (binary == nullptr)
		return {};
	auto output = PosixCommandRunner().run(
		Command{ { binary, "--check-config", file }, std::chrono::seconds(30), {} });
	EXPECT_TRUE(output) << output.error().message;
	return output ? Checked{ output->exitStatus, output->out } : Checked{};
}

class CheckConfig : public ::testing::Test
{
protected:
	void SetUp() override
	{
		if (std::getenv("RBDV_VOLUMED") == nullptr) /* NOLINT(concurrency-mt-unsafe) */
			GTEST_SKIP() << "no rbd-volumed in this build (meson -Dceph=enabled)";
	}
	TempDir dir_;
};

} /* namespace */

TEST_F(CheckConfig, ValidSettingsExitZeroAndSayNothing)
{
	const std::string file = dir_.path() + "/rbd-volumed.toml";
	std::ofstream(file) << "[daemon]\nworkers = 4\n";
	const Checked checked = checkConfig(file);
	EXPECT_EQ(checked.status, 0) << checked.out;
	EXPECT_EQ(checked.out, "");

	/* A missing file is the defaults, as a start would take it. */
	EXPECT_EQ(checkConfig(dir_.path() + "/none.toml").status, 0);
}

TEST_F(CheckConfig, TheShippedFileIsValid)
{
	const char *shipped = std::getenv("RBDV_DAEMON_CONFIG"); /* NOLINT(concurrency-mt-unsafe) */
	ASSERT_NE(shipped, nullptr) << "meson sets RBDV_DAEMON_CONFIG";
	const Checked checked = checkConfig(shipped);
	EXPECT_EQ(checked.status, 0) << checked.out;
}

TEST_F(CheckConfig, EachProblemIsALineWithItsPlace)
{
	const std::string file = dir_.path() + "/rbd-volumed.toml";
	std::ofstream(file) << "[daemon]\nworkers = 0\nresync-interval = \"soon\"\n";
	const Checked checked = checkConfig(file);
	EXPECT_EQ(checked.status, 1);
	EXPECT_EQ(checked.out.find(file + ":2:"), 0U) << checked.out;
	EXPECT_NE(checked.out.find("\n" + file + ":3:"), std::string::npos) << checked.out;
}

} /* namespace rbdvolume::testing */
