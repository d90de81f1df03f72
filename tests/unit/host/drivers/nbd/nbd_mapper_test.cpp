/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nbd: the config file, the unit's start and stop, the cookie check, and the unmap sequence. */
#include "host/drivers/nbd/nbd_mapper.hpp"

#include <filesystem>

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "common/fs_util.hpp"
#include "fake_host.hpp"
#include "hook_runner.hpp"
#include "host/drivers/nbd/nbd_config.hpp"
#include "systemctl_units.hpp"

namespace rbdvolume::testing {
namespace {

using Argv = std::vector<std::string>;
using namespace std::chrono_literals;

const Argv Start = { "/usr/bin/systemctl", "start", "rbd-nbd@data.service" };
const Argv Stop = { "/usr/bin/systemctl", "stop", "rbd-nbd@data.service" };

Argv unmapArgv(const std::string &device)
{
	return { "/usr/bin/rbd-nbd", "unmap", device };
}

std::vector<Argv> argvs(const std::vector<Command> &commands)
{
	std::vector<Argv> out;
	out.reserve(commands.size());
	for (const Command &command : commands)
		out.push_back(command.argv);
	return out;
}

mode_t modeOf(const std::string &path)
{
	struct stat st {
	};
	return stat(path.c_str(), &st) == 0 ? st.st_mode & 07777 : 0;
}

class NbdMapperTest : public ::testing::Test
{
protected:
	DriverTools tools()
	{
		DriverTools t;
		t.nbdConfigDir = root_.path() + "/run/rbd-volume/nbd";
		t.nbdReadyTimeout = 50ms;
		t.nbdPollInterval = 1ms;
		return t;
	}

	std::string configPath() const { return root_.path() + "/run/rbd-volume/nbd/data.conf"; }

	/* What rbd-nbd@data.service does on start: rbd-nbd connects nbd0 through netlink. */
	void startMapsThroughNetlink(const std::string &name = "nbd0")
	{
		runner_.onRun = [this, name](const Command &command) {
			if (command.argv.at(1) != "start")
				return;
			addNbd(root_, name, "4242", cookie_);
			addRbdNbdProcess(root_, "4242", "rbd/data");
		};
	}

	TempDir root_;
	HookRunner runner_;
	SystemctlUnits units_{ runner_ };
	NbdMapper mapper_{ runner_, units_, tools(), rootsIn(root_) };
	const std::string cookie_ = nbdCookie(mapRequestOf(volumeSpec()));
};

TEST_F(NbdMapperTest, UnmapCommandLine)
{
	DriverTools t;
	t.rbdNbd = "/opt/rbd-nbd";
	t.unmapTimeout = std::chrono::seconds(7);
	const Command unmap = nbdUnmapCommand(t, "/dev/nbd2");
	EXPECT_EQ(unmap.argv, (Argv{ "/opt/rbd-nbd", "unmap", "/dev/nbd2" }));
	EXPECT_EQ(unmap.timeout, std::chrono::seconds(7));
}

TEST_F(NbdMapperTest, MapsThroughTheVolumesUnit)
{
	startMapsThroughNetlink();
	auto device = mapper_.map(mapRequestOf(volumeSpec()));
	ASSERT_TRUE(device) << device.error().message;
	EXPECT_EQ(*device, "/dev/nbd0");
	EXPECT_EQ(argvs(runner_.commands), (std::vector<Argv>{ Start }));
}

TEST_F(NbdMapperTest, WritesTheConfigBeforeStarting)
{
	VolumeSpec spec = volumeSpec();
	spec.cluster.keyring = "/etc/ceph/k";
	spec.map.nbdOptions = { "quiesce" };
	std::string seenAtStart;
	runner_.onRun = [&](const Command &) {
		seenAtStart = readFile(configPath())->value_or("");
		addNbd(root_, "nbd0", "4242", cookie_);
	};
	ASSERT_TRUE(mapper_.map(mapRequestOf(spec)));
	auto expected = formatNbdConfig(nbdConfigFor(mapRequestOf(spec), tools()));
	ASSERT_TRUE(expected);
	EXPECT_EQ(seenAtStart, *expected);
	EXPECT_EQ(modeOf(configPath()), 0600U);
	EXPECT_EQ(modeOf(root_.path() + "/run/rbd-volume/nbd"), 0700U);
}

TEST_F(NbdMapperTest, NeverMapsAnImageTwice)
{
	addNbd(root_, "nbd3", "77", "-");
	addRbdNbdProcess(root_, "77", "rbd/data");
	auto device = mapper_.map(mapRequestOf(volumeSpec()));
	ASSERT_TRUE(device) << device.error().message;
	EXPECT_EQ(*device, "/dev/nbd3");
	EXPECT_TRUE(runner_.commands.empty());
	EXPECT_FALSE(std::filesystem::exists(configPath()));
}

TEST_F(NbdMapperTest, AnOrphanedDeviceIsReattachedByStartingTheUnit)
{
	/* Our cookie, the dead server's pid, no process: the unit's helper will attach. */
	addNbd(root_, "nbd5", "999", cookie_);
	auto device = mapper_.map(mapRequestOf(volumeSpec()));
	ASSERT_TRUE(device) << device.error().message;
	EXPECT_EQ(*device, "/dev/nbd5");
	EXPECT_EQ(argvs(runner_.commands), (std::vector<Argv>{ Start }));
}

TEST_F(NbdMapperTest, TheUnitStillServingAnOlderImageIsInTheWay)
{
	VolumeSpec before = volumeSpec();
	before.image.name = "old";
	root_.write("run/rbd-volume/nbd/data.conf",
		    formatNbdConfig(nbdConfigFor(mapRequestOf(before), tools())).value());
	addNbd(root_, "nbd2", "4242", nbdCookie(mapRequestOf(before)));
	auto device = mapper_.map(mapRequestOf(volumeSpec()));
	ASSERT_FALSE(device);
	EXPECT_EQ(device.error().code, Errc::Conflict);
	EXPECT_EQ(device.error().message, "rbd-nbd@data.service still serves rbd/old on /dev/nbd2: "
					  "unmap it before mapping rbd/data");
	EXPECT_TRUE(runner_.commands.empty());
}

TEST_F(NbdMapperTest, AnOlderConfigWithoutItsDeviceIsReplaced)
{
	VolumeSpec before = volumeSpec();
	before.image.name = "old";
	root_.write("run/rbd-volume/nbd/data.conf",
		    formatNbdConfig(nbdConfigFor(mapRequestOf(before), tools())).value());
	startMapsThroughNetlink();
	auto device = mapper_.map(mapRequestOf(volumeSpec()));
	ASSERT_TRUE(device) << device.error().message;
	EXPECT_EQ(readFile(configPath())->value_or(""),
		  formatNbdConfig(nbdConfigFor(mapRequestOf(volumeSpec()), tools())).value());
}

TEST_F(NbdMapperTest, AFailedStartCarriesSystemctlsWords)
{
	runner_.answer(1, "",
		       "Job for rbd-nbd@data.service failed because the control process exited "
		       "with error code.\nSee \"systemctl status rbd-nbd@data.service\" and "
		       "\"journalctl -xeu rbd-nbd@data.service\" for details.\n");
	auto device = mapper_.map(mapRequestOf(volumeSpec()));
	ASSERT_FALSE(device);
	EXPECT_EQ(device.error().code, Errc::Io);
	EXPECT_EQ(device.error().message,
		  "systemctl start rbd-nbd@data.service failed: exit status 1: See \"systemctl "
		  "status rbd-nbd@data.service\" and \"journalctl -xeu rbd-nbd@data.service\" for "
		  "details.");
}

TEST_F(NbdMapperTest, AnIoctlMappingIsRefusedAndUndone)
{
	/* rbd-nbd fell back to the ioctl interface: connected, no backend attribute. */
	runner_.onRun = [&](const Command &command) {
		if (command.argv.at(1) != "start")
			return;
		addNbd(root_, "nbd0", "4242", "-");
		addRbdNbdProcess(root_, "4242", "rbd/data");
	};
	auto device = mapper_.map(mapRequestOf(volumeSpec()));
	ASSERT_FALSE(device);
	EXPECT_EQ(device.error().code, Errc::Unsupported);
	EXPECT_NE(device.error().message.find("ioctl"), std::string::npos);
	EXPECT_EQ(argvs(runner_.commands),
		  (std::vector<Argv>{ Start, unmapArgv("/dev/nbd0"), Stop }));
}

TEST_F(NbdMapperTest, ADeviceThatNeverShowsIsATimeout)
{
	auto device = mapper_.map(mapRequestOf(volumeSpec()));
	ASSERT_FALSE(device);
	EXPECT_EQ(device.error().code, Errc::Timeout);
	EXPECT_NE(device.error().message.find(cookie_), std::string::npos);
}

TEST_F(NbdMapperTest, InvalidNamesNeverReachSystemctl)
{
	auto device = mapper_.map(mapRequestOf(volumeSpec("a-b")));
	ASSERT_FALSE(device);
	EXPECT_EQ(device.error().code, Errc::InvalidArgument);
	EXPECT_TRUE(runner_.commands.empty());
}

TEST_F(NbdMapperTest, UnmapDisconnectsThenStopsTheUnit)
{
	addNbd(root_, "nbd0", "4242", cookie_);
	addRbdNbdProcess(root_, "4242", "rbd/data");
	auto change = mapper_.unmap(mapRequestOf(volumeSpec()), "/dev/nbd0");
	ASSERT_TRUE(change) << change.error().message;
	EXPECT_EQ(*change, Change::Changed);
	EXPECT_EQ(argvs(runner_.commands), (std::vector<Argv>{ unmapArgv("/dev/nbd0"), Stop }));
}

TEST_F(NbdMapperTest, UnmapsAReattachedDeviceByItsCookie)
{
	/* After a re-attach the pid attribute names the dead server: only the cookie tells. */
	addNbd(root_, "nbd2", "999", cookie_);
	auto change = mapper_.unmap(mapRequestOf(volumeSpec()), "/dev/nbd2");
	ASSERT_TRUE(change) << change.error().message;
	EXPECT_EQ(argvs(runner_.commands), (std::vector<Argv>{ unmapArgv("/dev/nbd2"), Stop }));
}

TEST_F(NbdMapperTest, UnmapsAnIoctlMappingOfItsImage)
{
	addNbd(root_, "nbd1", "4242", "-");
	addRbdNbdProcess(root_, "4242", "rbd/data");
	auto change = mapper_.unmap(mapRequestOf(volumeSpec()), "/dev/nbd1");
	ASSERT_TRUE(change) << change.error().message;
	EXPECT_EQ(argvs(runner_.commands), (std::vector<Argv>{ unmapArgv("/dev/nbd1"), Stop }));
}

TEST_F(NbdMapperTest, AGoneDeviceIsUnchangedAndItsUnitStopped)
{
	addNbd(root_, "nbd0", "", "-");
	auto change = mapper_.unmap(mapRequestOf(volumeSpec()), "/dev/nbd0");
	ASSERT_TRUE(change) << change.error().message;
	EXPECT_EQ(*change, Change::Unchanged);
	EXPECT_EQ(argvs(runner_.commands), (std::vector<Argv>{ Stop }));
}

TEST_F(NbdMapperTest, AGoneDeviceLeavesTheUnitServingAnother)
{
	addNbd(root_, "nbd4", "999", cookie_);
	auto change = mapper_.unmap(mapRequestOf(volumeSpec()), "/dev/nbd0");
	ASSERT_TRUE(change) << change.error().message;
	EXPECT_EQ(*change, Change::Unchanged);
	EXPECT_TRUE(runner_.commands.empty());
}

TEST_F(NbdMapperTest, RefusesToUnmapSomeoneElsesDevice)
{
	addNbd(root_, "nbd0", "4242", "rbd-volume.other.0000000000000000");
	addRbdNbdProcess(root_, "4242", "rbd/other");
	addNbd(root_, "nbd1", "55", "-");
	root_.write("proc/55/cmdline", std::string("nbd-client\0host\0/dev/nbd1\0", 26));
	for (const char *device : { "/dev/nbd0", "/dev/nbd1" }) {
		auto change = mapper_.unmap(mapRequestOf(volumeSpec()), device);
		ASSERT_FALSE(change) << device;
		EXPECT_EQ(change.error().code, Errc::Conflict);
	}
	EXPECT_TRUE(runner_.commands.empty());
}

TEST_F(NbdMapperTest, UnmapFailureStopsBeforeTheUnit)
{
	addNbd(root_, "nbd0", "4242", cookie_);
	runner_.answer(1, "", "rbd-nbd: failed to unmap: (16) Device or resource busy\n");
	auto change = mapper_.unmap(mapRequestOf(volumeSpec()), "/dev/nbd0");
	ASSERT_FALSE(change);
	EXPECT_EQ(change.error().code, Errc::Busy);
	EXPECT_EQ(change.error().message, "rbd-nbd unmap /dev/nbd0: exit status 1: rbd-nbd: "
					  "failed to unmap: (16) Device or resource busy");
	EXPECT_EQ(argvs(runner_.commands), (std::vector<Argv>{ unmapArgv("/dev/nbd0") }));
}

TEST_F(NbdMapperTest, OnlyNbdDevices)
{
	auto change = mapper_.unmap(mapRequestOf(volumeSpec()), "/dev/rbd0");
	ASSERT_FALSE(change);
	EXPECT_EQ(change.error().code, Errc::InvalidArgument);
}

TEST_F(NbdMapperTest, ListsNbdMappingsOnly)
{
	addKrbd(root_, "0", "rbd", "", "logs");
	addNbd(root_, "nbd0", "4242", cookie_);
	addRbdNbdProcess(root_, "4242", "rbd/data");
	auto mapped = mapper_.list();
	ASSERT_TRUE(mapped);
	ASSERT_EQ(mapped->size(), 1U);
	EXPECT_EQ(mapped->front().device, "/dev/nbd0");
	EXPECT_EQ(mapped->front().driver, Driver::Nbd);
}

/* A device whose rbd-nbd died: the kernel keeps it, with our cookie, for the next server. */
class ServerlessDeviceTest : public NbdMapperTest
{
protected:
	ServerlessDeviceTest()
	{
		root_.write(
			"run/rbd-volume/nbd/data.conf",
			formatNbdConfig(nbdConfigFor(mapRequestOf(volumeSpec()), tools())).value());
		addNbd(root_, "nbd0", "4242", cookie_); /* pid 4242 is gone */
	}

	MappedImage listedOnce()
	{
		auto mapped = mapper_.list();
		EXPECT_TRUE(mapped);
		EXPECT_EQ(mapped->size(), 1U);
		return mapped->empty() ? MappedImage{} : mapped->front();
	}
};

const Argv ShowState = { "/usr/bin/systemctl", "show", "-P", "ActiveState",
			 "rbd-nbd@data.service" };

TEST_F(ServerlessDeviceTest, IsTheVolumesMappingWhileSystemdRestartsItsServer)
{
	runner_.answer(0, "activating\n");
	const MappedImage image = listedOnce();
	EXPECT_EQ(image.device, "/dev/nbd0");
	EXPECT_EQ(image.pool, "rbd");
	EXPECT_EQ(image.image, "data");
	EXPECT_EQ(image.owner, "data");
	EXPECT_EQ(image.fault, "");
	EXPECT_EQ(argvs(runner_.commands), (std::vector<Argv>{ ShowState }));
}

const Argv ShowResult = { "/usr/bin/systemctl", "show", "-P", "Result", "rbd-nbd@data.service" };

/* kill -9 of rbd-nbd: systemd runs ExecStopPost=, then Restart= starts a new server. */
TEST_F(ServerlessDeviceTest, IsTheVolumesMappingWhileSystemdCleansUpAfterAFailedServer)
{
	runner_.answer(0, "deactivating\n");
	runner_.answer(0, "signal\n");
	const MappedImage image = listedOnce();
	EXPECT_EQ(image.device, "/dev/nbd0");
	EXPECT_EQ(image.fault, "");
	EXPECT_EQ(argvs(runner_.commands), (std::vector<Argv>{ ShowState, ShowResult }));
}

/* `systemctl stop rbd-nbd@data`: nothing comes back. */
TEST_F(ServerlessDeviceTest, IsFaultyWhileItsServerIsStoppedOnRequest)
{
	runner_.answer(0, "deactivating\n");
	runner_.answer(0, "success\n");
	EXPECT_EQ(listedOnce().fault.rfind(
			  "nothing serves /dev/nbd0: rbd-nbd@data.service is deactivating.", 0),
		  0U);
}

TEST_F(ServerlessDeviceTest, IsFaultyWhenADeactivatingUnitsResultCannotBeRead)
{
	runner_.answer(0, "deactivating\n");
	runner_.answer(1, "", "Failed to connect to bus: No such file or directory\n");
	EXPECT_EQ(listedOnce().fault.rfind(
			  "nothing serves /dev/nbd0: rbd-nbd@data.service is deactivating.", 0),
		  0U);
}

TEST_F(ServerlessDeviceTest, IsFaultyWhenNoServerIsComing)
{
	runner_.answer(0, "inactive\n");
	const MappedImage image = listedOnce();
	EXPECT_EQ(image.device, "/dev/nbd0");
	EXPECT_EQ(
		image.fault.rfind("nothing serves /dev/nbd0: rbd-nbd@data.service is inactive.", 0),
		0U)
		<< image.fault;
	EXPECT_NE(image.fault.find("`systemctl start rbd-nbd@data.service` attaches one"),
		  std::string::npos);
	EXPECT_NE(image.fault.find("`rbd-volumectl down data` gives them up"), std::string::npos);
}

TEST_F(ServerlessDeviceTest, IsFaultyWhenSystemdCannotBeAsked)
{
	runner_.answer(1, "", "Failed to connect to bus: No such file or directory\n");
	EXPECT_NE(listedOnce().fault.find("rbd-nbd@data.service cannot be asked (systemctl show"),
		  std::string::npos);
}

/* After an attach the kernel's pid attribute names the dead server: the new one is found anyway. */
TEST_F(ServerlessDeviceTest, AReattachedServerNeedsNoQuestion)
{
	using namespace std::string_literals;
	root_.write("proc/5151/cmdline", "/usr/bin/rbd-nbd\0-d\0attach\0--device\0/dev/nbd0\0"
					 "--cookie\0"s +
						 cookie_ + "\0rbd/data\0"s);
	const MappedImage image = listedOnce();
	EXPECT_EQ(image.device, "/dev/nbd0");
	EXPECT_EQ(image.fault, "");
	EXPECT_TRUE(runner_.commands.empty());
}

} /* namespace */
} /* namespace rbdvolume::testing */
