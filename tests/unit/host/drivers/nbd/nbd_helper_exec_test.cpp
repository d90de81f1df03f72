/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The real rbd-volume-nbd-helper, run against a fake sysfs and a fake rbd-nbd
 * that records its argv: what it execs, that it execs rather than forks, its
 * exit codes, its --wait readiness check and its --after-exit.
 */
#include <cstdlib>
#include <fstream>
#include <unistd.h>

#include <gtest/gtest.h>

#include "fake_host.hpp"
#include "host/command_runner.hpp"
#include "host/drivers/nbd/nbd_config.hpp"
#include "host/drivers/nbd/nbd_helper.hpp"
#include "host/drivers/nbd/nbd_netlink.hpp"

namespace rbdvolume::testing {
namespace {

using Argv = std::vector<std::string>;

std::string fromEnv(const char *name)
{
	const char *value = std::getenv(name);
	return value != nullptr ? value : "";
}

class NbdHelperExecTest : public ::testing::Test
{
protected:
	void SetUp() override
	{
		if (helper_.empty() || fakeRbdNbd_.empty())
			GTEST_SKIP()
				<< "RBDV_NBD_HELPER and RBDV_FAKE_RBD_NBD are set by meson test";
		DriverTools tools;
		tools.rbdNbd = fakeRbdNbd_;
		config_ = nbdConfigFor(mapRequestOf(volumeSpec()), tools);
		auto text = formatNbdConfig(config_);
		ASSERT_TRUE(text);
		root_.write("conf/data.conf", *text);
	}

	Result<CommandOutput> runHelper(Argv args, std::vector<std::string> env = {})
	{
		Command command;
		command.argv = { helper_, "--config-dir", root_.path() + "/conf", "--sysfs",
				 root_.path() + "/sys" };
		command.argv.insert(command.argv.end(), args.begin(), args.end());
		command.env = std::move(env);
		command.env.push_back("RBDV_FAKE_ARGV_FILE=" + argvFile());
		command.timeout = std::chrono::seconds(10);
		return PosixCommandRunner().run(command);
	}

	std::string argvFile() const { return root_.path() + "/argv"; }

	/* The fake's record: its parent's pid, then its argv. */
	std::pair<std::string, Argv> recorded() const
	{
		std::ifstream in(argvFile());
		std::string ppid;
		std::getline(in, ppid);
		Argv argv;
		for (std::string line; std::getline(in, line);)
			argv.push_back(line);
		return { ppid, argv };
	}

	const std::string helper_ = fromEnv("RBDV_NBD_HELPER");
	const std::string fakeRbdNbd_ = fromEnv("RBDV_FAKE_RBD_NBD");
	TempDir root_;
	NbdVolumeConfig config_;
};

TEST_F(NbdHelperExecTest, ExecsAMapWhenNoDeviceCarriesTheCookie)
{
	addNbd(root_, "nbd0", "10", "rbd-volume.other.0000000000000000");
	auto output = runHelper({ "data" });
	ASSERT_TRUE(output) << output.error().message;
	ASSERT_TRUE(output->succeeded()) << output->describe();
	const auto [ppid, argv] = recorded();
	/* Our own child: the helper replaced itself with rbd-nbd instead of forking it. */
	EXPECT_EQ(ppid, "ppid " + std::to_string(getpid()));
	EXPECT_EQ(argv, rbdNbdArgv(config_, ""));
	EXPECT_EQ(argv, (Argv{ fakeRbdNbd_, "-d", "--id", "admin", "map", "--try-netlink",
			       "--cookie", config_.cookie, "--reattach-timeout", "300",
			       "--io-timeout", "0", "rbd/data" }));
}

TEST_F(NbdHelperExecTest, ExecsAnAttachToTheSurvivingDevice)
{
	addNbd(root_, "nbd0", "10", "rbd-volume.other.0000000000000000");
	addNbd(root_, "nbd6", "4242", config_.cookie);
	auto output = runHelper({ "data" });
	ASSERT_TRUE(output) << output.error().message;
	ASSERT_TRUE(output->succeeded()) << output->describe();
	const auto [ppid, argv] = recorded();
	EXPECT_EQ(ppid, "ppid " + std::to_string(getpid()));
	EXPECT_EQ(argv, (Argv{ fakeRbdNbd_, "-d", "--id", "admin", "attach", "--device",
			       "/dev/nbd6", "--cookie", config_.cookie, "--reattach-timeout", "300",
			       "--io-timeout", "0", "rbd/data" }));
}

TEST_F(NbdHelperExecTest, ExitCodesSystemdWillNotRestart)
{
	auto missing = runHelper({ "other" });
	ASSERT_TRUE(missing);
	EXPECT_EQ(missing->exitStatus, HelperConfigExit);
	EXPECT_NE(missing->err.find("other.conf does not exist"), std::string::npos);

	root_.write("conf/bad.conf", "image=rbd/data\n");
	auto bad = runHelper({ "bad" });
	ASSERT_TRUE(bad);
	EXPECT_EQ(bad->exitStatus, HelperConfigExit);

	auto usage = runHelper({});
	ASSERT_TRUE(usage);
	EXPECT_EQ(usage->exitStatus, HelperUsageExit);
}

TEST_F(NbdHelperExecTest, AnUnrunnableRbdNbdFails)
{
	NbdVolumeConfig broken = config_;
	broken.rbdNbd = root_.path() + "/no-such-rbd-nbd";
	root_.write("conf/data.conf", *formatNbdConfig(broken));
	auto output = runHelper({ "data" });
	ASSERT_TRUE(output);
	EXPECT_EQ(output->exitStatus, EXIT_FAILURE);
	EXPECT_NE(output->err.find("cannot run"), std::string::npos);
}

TEST_F(NbdHelperExecTest, WaitSucceedsOnceTheCookieShows)
{
	addNbd(root_, "nbd2", "4242", config_.cookie);
	auto output = runHelper({ "--wait", "data" }, { "MAINPID=4242" });
	ASSERT_TRUE(output) << output.error().message;
	EXPECT_TRUE(output->succeeded()) << output->describe();
	EXPECT_NE(output->err.find("ready on /dev/nbd2"), std::string::npos);
}

TEST_F(NbdHelperExecTest, WaitFailsOnAnIoctlDevice)
{
	/* rbd-nbd ($MAINPID) connected nbd1, but the kernel has no backend for it. */
	addNbd(root_, "nbd0", "77", "-");
	addNbd(root_, "nbd1", "4242", "-");
	auto output = runHelper({ "--wait", "data" }, { "MAINPID=4242" });
	ASSERT_TRUE(output) << output.error().message;
	EXPECT_EQ(output->exitStatus, EXIT_FAILURE);
	EXPECT_NE(output->err.find("/dev/nbd1 without a backend cookie"), std::string::npos)
		<< output->err;
}

TEST_F(NbdHelperExecTest, AfterExitWithoutTheDeviceDoesNothing)
{
	/* `rbd-nbd unmap` took the device with it, and another volume's device is not ours. */
	addNbd(root_, "nbd0", "77", "rbd-volume.other.0000000000000000");
	auto output = runHelper({ "--after-exit", "data" });
	ASSERT_TRUE(output) << output.error().message;
	EXPECT_TRUE(output->succeeded()) << output->describe();
	EXPECT_EQ(output->err, "");
	EXPECT_NE(access(argvFile().c_str(), F_OK), 0) << "rbd-nbd was run";
}

TEST_F(NbdHelperExecTest, AfterExitTimesOutTheDeviceItLeft)
{
	/*
	 * The fake sysfs names nbd999999, an index no kernel holds (so no real
	 * device of the host running the test is ever touched): the kernel's
	 * answer (no nbd family here, or its refusal) shows that the helper
	 * asked it, and the failure is said.
	 */
	addNbd(root_, "nbd999999", "4242", config_.cookie);
	auto output = runHelper({ "--after-exit", "data" });
	ASSERT_TRUE(output) << output.error().message;
	EXPECT_EQ(output->exitStatus, EXIT_FAILURE) << output->describe();
	const std::string expected =
		genlFamilyOf("nbd") ? "the kernel refused" : "the nbd module is not loaded";
	EXPECT_NE(output->err.find(expected), std::string::npos) << output->err;
	EXPECT_NE(output->err.find(
			  "a request in flight on /dev/nbd999999 waits until a server attaches"),
		  std::string::npos)
		<< output->err;
}

TEST_F(NbdHelperExecTest, AfterExitLeavesASpecsOwnIoTimeout)
{
	config_.ioTimeout = 30;
	auto text = formatNbdConfig(config_);
	ASSERT_TRUE(text);
	root_.write("conf/data.conf", *text);
	addNbd(root_, "nbd2", "4242", config_.cookie);
	auto output = runHelper({ "--after-exit", "data" });
	ASSERT_TRUE(output) << output.error().message;
	EXPECT_TRUE(output->succeeded()) << output->describe();
	EXPECT_EQ(output->err, "");
}

} /* namespace */
} /* namespace rbdvolume::testing */
