/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* krbd: the exact `rbd device map/unmap` command lines, and sysfs as the truth around them. */
#include "host/drivers/krbd/krbd_mapper.hpp"

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "fake_host.hpp"
#include "hook_runner.hpp"

namespace rbdvolume::testing {
namespace {

using Argv = std::vector<std::string>;

const Argv MapPrefix = { "/usr/bin/rbd", "device", "map", "--device-type", "krbd" };

Argv mapArgv(const VolumeSpec &spec)
{
	return krbdMapCommand(DriverTools{}, mapRequestOf(spec)).argv;
}

Argv withPrefix(const Argv &rest)
{
	Argv argv = MapPrefix;
	argv.insert(argv.end(), rest.begin(), rest.end());
	return argv;
}

TEST(KrbdCommands, MapWithTheSpecDefaults)
{
	const DriverTools tools;
	const Command command = krbdMapCommand(tools, mapRequestOf(volumeSpec()));
	EXPECT_EQ(command.argv, withPrefix({ "--id", "admin", "rbd/data" }));
	EXPECT_EQ(command.timeout, tools.mapTimeout);
}

/* On a full pool krbd fails writes with ENOSPC rather than hold them unanswered. */
TEST(KrbdCommands, ReadWriteMapsAbortOnFullWhereTheKernelKnowsIt)
{
	DriverTools tools;
	tools.krbdAbortOnFull = true;
	VolumeSpec spec = volumeSpec();
	EXPECT_EQ(krbdMapCommand(tools, mapRequestOf(spec)).argv,
		  withPrefix({ "--id", "admin", "-o", "abort_on_full", "rbd/data" }));
	/* Once, after the spec's own options; said by the spec already, not again. */
	spec.map.krbdOptions = { "queue_depth=128" };
	EXPECT_EQ(
		krbdMapCommand(tools, mapRequestOf(spec)).argv,
		withPrefix({ "--id", "admin", "-o", "queue_depth=128,abort_on_full", "rbd/data" }));
	spec.map.krbdOptions = { "abort_on_full", "noudev" };
	EXPECT_EQ(krbdMapCommand(tools, mapRequestOf(spec)).argv,
		  withPrefix({ "--id", "admin", "-o", "abort_on_full,noudev", "rbd/data" }));
	/* A read-only map writes nothing. */
	spec.map.krbdOptions.clear();
	spec.map.readOnly = true;
	EXPECT_EQ(krbdMapCommand(tools, mapRequestOf(spec)).argv,
		  withPrefix({ "--id", "admin", "--read-only", "rbd/data" }));
	/* A spec that wants writes held on a full pool, as rbd-nbd holds them. */
	spec.map.readOnly = false;
	spec.map.krbdAbortOnFull = false;
	EXPECT_EQ(krbdMapCommand(tools, mapRequestOf(spec)).argv,
		  withPrefix({ "--id", "admin", "rbd/data" }));
}

TEST(KrbdCommands, AbortOnFullFromLinux5)
{
	EXPECT_TRUE(krbdKnowsAbortOnFull("6.1.0-13-amd64"));
	EXPECT_TRUE(krbdKnowsAbortOnFull("5.0.0"));
	EXPECT_TRUE(krbdKnowsAbortOnFull("10.2"));
	EXPECT_FALSE(krbdKnowsAbortOnFull("4.19.0-27-amd64"));
	EXPECT_FALSE(krbdKnowsAbortOnFull(""));
	EXPECT_FALSE(krbdKnowsAbortOnFull("linux"));
}

TEST(KrbdCommands, KeyringOrKeyfileNeverTheKey)
{
	VolumeSpec spec = volumeSpec();
	spec.cluster.clientId = "vols";
	spec.cluster.keyring = "/etc/ceph/ceph.client.vols.keyring";
	EXPECT_EQ(mapArgv(spec), withPrefix({ "--id", "vols", "--keyring",
					      "/etc/ceph/ceph.client.vols.keyring", "rbd/data" }));
	spec.cluster.keyring.clear();
	spec.cluster.keyfile = "/etc/rbd-volume/vols.key";
	EXPECT_EQ(mapArgv(spec), withPrefix({ "--id", "vols", "--keyfile",
					      "/etc/rbd-volume/vols.key", "rbd/data" }));
}

TEST(KrbdCommands, MonitorsJoinedIntoOneOption)
{
	VolumeSpec spec = volumeSpec();
	spec.cluster.monitors = { "10.0.0.1", "v2:10.0.0.2:3300", "[fd00::3]:6789" };
	EXPECT_EQ(mapArgv(spec),
		  withPrefix({ "--id", "admin", "-m", "10.0.0.1,v2:10.0.0.2:3300,[fd00::3]:6789",
			       "rbd/data" }));
}

TEST(KrbdCommands, OnlyANonDefaultConfIsPassed)
{
	/* Ceph's own search finds its default conf, and tolerates its absence. */
	VolumeSpec spec = volumeSpec();
	spec.cluster.conf = "/etc/ceph/prod.conf";
	EXPECT_EQ(mapArgv(spec),
		  withPrefix({ "--id", "admin", "-c", "/etc/ceph/prod.conf", "rbd/data" }));
	spec.cluster.conf.clear();
	spec.cluster.clientId.clear();
	spec.cluster.monitors = { "10.0.0.1:6789" };
	EXPECT_EQ(mapArgv(spec), withPrefix({ "-m", "10.0.0.1:6789", "rbd/data" }));
}

TEST(KrbdCommands, ReadOnlyExclusiveAndOptions)
{
	VolumeSpec spec = volumeSpec();
	spec.map.readOnly = true;
	EXPECT_EQ(mapArgv(spec), withPrefix({ "--id", "admin", "--read-only", "rbd/data" }));
	spec.map.readOnly = false;
	spec.map.exclusive = true;
	EXPECT_EQ(mapArgv(spec), withPrefix({ "--id", "admin", "--exclusive", "rbd/data" }));
	spec.map.readOnly = true;
	spec.map.krbdOptions = { "queue_depth=128", "osd_request_timeout=300", "noudev" };
	EXPECT_EQ(mapArgv(spec),
		  withPrefix({ "--id", "admin", "--read-only", "--exclusive", "-o",
			       "queue_depth=128,osd_request_timeout=300,noudev", "rbd/data" }));
}

TEST(KrbdCommands, NamespaceAndSnapshotInTheImageSpec)
{
	VolumeSpec spec = volumeSpec();
	spec.image.radosNamespace = "tenant";
	EXPECT_EQ(mapArgv(spec).back(), "rbd/tenant/data");
	spec.image.snapshot = "monday";
	spec.map.readOnly = true;
	EXPECT_EQ(mapArgv(spec),
		  withPrefix({ "--id", "admin", "--read-only", "rbd/tenant/data@monday" }));
	spec.image.radosNamespace.clear();
	EXPECT_EQ(mapArgv(spec).back(), "rbd/data@monday");
}

TEST(KrbdCommands, ToolPathAndTimeoutFromTheConfig)
{
	DriverTools tools;
	tools.rbd = "/opt/ceph/bin/rbd";
	tools.mapTimeout = std::chrono::seconds(5);
	tools.unmapTimeout = std::chrono::seconds(7);
	const Command map = krbdMapCommand(tools, mapRequestOf(volumeSpec()));
	EXPECT_EQ(map.argv.front(), "/opt/ceph/bin/rbd");
	EXPECT_EQ(map.timeout, std::chrono::seconds(5));
	const Command unmap = krbdUnmapCommand(tools, mapRequestOf(volumeSpec()), "/dev/rbd0");
	EXPECT_EQ(unmap.argv.front(), "/opt/ceph/bin/rbd");
	EXPECT_EQ(unmap.timeout, std::chrono::seconds(7));
}

TEST(KrbdCommands, UnmapByDeviceWithoutForceOrCredentials)
{
	const DriverTools tools;
	VolumeSpec spec = volumeSpec();
	spec.cluster.keyring = "/etc/ceph/k";
	spec.map.krbdOptions = { "queue_depth=128" };
	EXPECT_EQ(
		krbdUnmapCommand(tools, mapRequestOf(spec), "/dev/rbd3").argv,
		(Argv{ "/usr/bin/rbd", "device", "unmap", "--device-type", "krbd", "/dev/rbd3" }));
	/* A host without udev maps with noudev, and must unmap with it too. */
	spec.map.krbdOptions = { "noudev", "queue_depth=128" };
	EXPECT_EQ(krbdUnmapCommand(tools, mapRequestOf(spec), "/dev/rbd3").argv,
		  (Argv{ "/usr/bin/rbd", "device", "unmap", "--device-type", "krbd", "-o", "noudev",
			 "/dev/rbd3" }));
}

DriverTools noWaits()
{
	DriverTools tools;
	tools.busyRetryInterval = std::chrono::milliseconds(0);
	return tools;
}

class KrbdMapperTest : public ::testing::Test
{
protected:
	TempDir root_;
	HookRunner runner_;
	KrbdMapper mapper_{ runner_, noWaits(), rootsIn(root_) };
};

TEST_F(KrbdMapperTest, NeverMapsAnImageTwice)
{
	addKrbd(root_, "2", "rbd", "", "data");
	auto device = mapper_.map(mapRequestOf(volumeSpec()));
	ASSERT_TRUE(device) << device.error().message;
	EXPECT_EQ(*device, "/dev/rbd2");
	EXPECT_TRUE(runner_.commands.empty());
}

TEST_F(KrbdMapperTest, OtherNamespacesAndSnapshotsAreOtherImages)
{
	addKrbd(root_, "0", "rbd", "tenant", "data");
	addKrbd(root_, "1", "rbd", "", "data", "monday");
	runner_.onRun = [&](const Command &) { addKrbd(root_, "4", "rbd", "", "data"); };
	runner_.answer(0, "/dev/rbd4\n");
	auto device = mapper_.map(mapRequestOf(volumeSpec()));
	ASSERT_TRUE(device) << device.error().message;
	EXPECT_EQ(*device, "/dev/rbd4");
	EXPECT_EQ(runner_.commands.size(), 1U);
}

TEST_F(KrbdMapperTest, TheNewDeviceIsFoundInSysfs)
{
	runner_.onRun = [&](const Command &) { addKrbd(root_, "5", "rbd", "", "data"); };
	runner_.answer(0, "/dev/rbd5\n");
	auto device = mapper_.map(mapRequestOf(volumeSpec()));
	ASSERT_TRUE(device) << device.error().message;
	EXPECT_EQ(*device, "/dev/rbd5");
	ASSERT_EQ(runner_.commands.size(), 1U);
	EXPECT_EQ(runner_.commands[0].argv, mapArgv(volumeSpec()));
}

TEST_F(KrbdMapperTest, SysfsDecidesWhenStdoutSaysNothing)
{
	runner_.onRun = [&](const Command &) { addKrbd(root_, "5", "rbd", "", "data"); };
	runner_.answer(0, "");
	auto device = mapper_.map(mapRequestOf(volumeSpec()));
	ASSERT_TRUE(device) << device.error().message;
	EXPECT_EQ(*device, "/dev/rbd5");
}

TEST_F(KrbdMapperTest, StdoutNamingAnotherDeviceIsNotTrusted)
{
	runner_.onRun = [&](const Command &) {
		addKrbd(root_, "5", "rbd", "", "data");
		addKrbd(root_, "6", "rbd", "", "other");
	};
	runner_.answer(0, "/dev/rbd6\n");
	auto device = mapper_.map(mapRequestOf(volumeSpec()));
	ASSERT_FALSE(device);
	EXPECT_EQ(device.error().code, Errc::Conflict);
	EXPECT_NE(device.error().message.find("/dev/rbd5"), std::string::npos);
}

TEST_F(KrbdMapperTest, SuccessWithoutADeviceIsAnError)
{
	runner_.answer(0, "/dev/rbd0\n");
	auto device = mapper_.map(mapRequestOf(volumeSpec()));
	ASSERT_FALSE(device);
	EXPECT_EQ(device.error().code, Errc::Io);
	EXPECT_NE(device.error().message.find("no device in"), std::string::npos);
}

TEST_F(KrbdMapperTest, MapFailureCarriesTheToolsLastLine)
{
	/* What rbd prints when the image is missing: hints on stdout, the error on stderr. */
	runner_.answer(2, "In some cases useful info is found in syslog - try \"dmesg | tail\".\n",
		       "rbd: sysfs write failed\nrbd: map failed: (2) No such file or directory\n");
	auto device = mapper_.map(mapRequestOf(volumeSpec()));
	ASSERT_FALSE(device);
	EXPECT_EQ(device.error().code, Errc::NotFound);
	EXPECT_EQ(device.error().sysErrno, 2);
	EXPECT_EQ(device.error().message, "rbd device map rbd/data: exit status 2: rbd: map "
					  "failed: (2) No such file or directory");
}

/* As rbd 16.2 says it on Linux 6.1 for an image with journaling: the advice on stdout. */
TEST_F(KrbdMapperTest, UnsupportedFeaturesAreNamed)
{
	runner_.answer(6,
		       "RBD image feature set mismatch. You can disable features unsupported by "
		       "the kernel with \"rbd feature disable data journaling\".\nIn some cases "
		       "useful info is found in syslog - try \"dmesg | tail\".\n",
		       "rbd: sysfs write failed\nrbd: map failed: (6) No such device or address\n");
	auto device = mapper_.map(mapRequestOf(volumeSpec()));
	ASSERT_FALSE(device);
	EXPECT_EQ(device.error().code, Errc::Unsupported);
	EXPECT_EQ(device.error().message,
		  "unsupported by krbd: this kernel's rbd cannot map rbd/data's journaling; map it "
		  "with driver = \"nbd\", or `rbd feature disable rbd/data journaling` (rbd device "
		  "map rbd/data: exit status 6: rbd: map failed: (6) No such device or address)");
}

TEST_F(KrbdMapperTest, AnUnexplainedRefusalIsUnsupportedToo)
{
	runner_.answer(6, "", "rbd: map failed: (6) No such device or address\n");
	auto device = mapper_.map(mapRequestOf(volumeSpec()));
	ASSERT_FALSE(device);
	EXPECT_EQ(device.error().code, Errc::Unsupported);
	EXPECT_EQ(
		device.error().message.rfind("unsupported by krbd: this kernel's rbd refused to "
					     "map rbd/data (an image feature it lacks? see dmesg)",
					     0),
		0U);
}

TEST_F(KrbdMapperTest, ATimedOutMapStaysATimeout)
{
	runner_.error = Error{ Errc::Timeout, "'rbd' did not finish", ETIMEDOUT };
	auto device = mapper_.map(mapRequestOf(volumeSpec()));
	ASSERT_FALSE(device);
	EXPECT_EQ(device.error().code, Errc::Timeout);
}

TEST_F(KrbdMapperTest, UnmapsItsImage)
{
	addKrbd(root_, "3", "rbd", "", "data");
	auto change = mapper_.unmap(mapRequestOf(volumeSpec()), "/dev/rbd3");
	ASSERT_TRUE(change) << change.error().message;
	EXPECT_EQ(*change, Change::Changed);
	ASSERT_EQ(runner_.commands.size(), 1U);
	EXPECT_EQ(runner_.commands[0].argv, (Argv{ "/usr/bin/rbd", "device", "unmap",
						   "--device-type", "krbd", "/dev/rbd3" }));
}

TEST_F(KrbdMapperTest, ADeviceNoLongerMappedIsUnchanged)
{
	auto change = mapper_.unmap(mapRequestOf(volumeSpec()), "/dev/rbd3");
	ASSERT_TRUE(change) << change.error().message;
	EXPECT_EQ(*change, Change::Unchanged);
	EXPECT_TRUE(runner_.commands.empty());
}

TEST_F(KrbdMapperTest, RefusesToUnmapAnotherImage)
{
	addKrbd(root_, "3", "rbd", "tenant", "data");
	auto change = mapper_.unmap(mapRequestOf(volumeSpec()), "/dev/rbd3");
	ASSERT_FALSE(change);
	EXPECT_EQ(change.error().code, Errc::Conflict);
	EXPECT_NE(change.error().message.find("rbd/tenant/data"), std::string::npos);
	EXPECT_TRUE(runner_.commands.empty());
}

constexpr const char *BusyText = "rbd: sysfs write failed\nrbd: unmap failed: (16) Device or "
				 "resource busy\n";

/* Nobody to name: an opener that came and went (udev's probe); tried three times, then Busy. */
TEST_F(KrbdMapperTest, ABusyDeviceWithNoHolderIsTriedAgain)
{
	addKrbd(root_, "3", "rbd", "", "data");
	runner_.answer(16, "", BusyText);
	runner_.answer(16, "", BusyText);
	runner_.answer(16, "", BusyText);
	auto change = mapper_.unmap(mapRequestOf(volumeSpec()), "/dev/rbd3");
	ASSERT_FALSE(change);
	EXPECT_EQ(runner_.commands.size(), 3U);
	EXPECT_EQ(change.error().code, Errc::Busy);
	EXPECT_EQ(change.error().message,
		  "rbd device unmap /dev/rbd3: exit status 16: rbd: unmap failed: (16) Device or "
		  "resource busy: no holder found; not forcing it (rbd device unmap -o force is "
		  "an operator's decision)");
}

TEST_F(KrbdMapperTest, ABusyDeviceThatLetGoIsUnmapped)
{
	addKrbd(root_, "3", "rbd", "", "data");
	runner_.answer(16, "", BusyText);
	runner_.answer(0, "", "");
	auto change = mapper_.unmap(mapRequestOf(volumeSpec()), "/dev/rbd3");
	ASSERT_TRUE(change) << change.error().message;
	EXPECT_EQ(*change, Change::Changed);
	EXPECT_EQ(runner_.commands.size(), 2U);
}

/* A holder is named at once, and nothing is forced. */
TEST_F(KrbdMapperTest, ABusyDeviceNamesItsHolder)
{
	addKrbd(root_, "3", "rbd", "", "data");
	root_.write("proc/4711/comm", "sleep\n");
	std::filesystem::create_directories(root_.path() + "/proc/4711/fd");
	std::filesystem::create_symlink("/dev/rbd3", root_.path() + "/proc/4711/fd/3");
	runner_.answer(16, "", BusyText);
	auto change = mapper_.unmap(mapRequestOf(volumeSpec()), "/dev/rbd3");
	ASSERT_FALSE(change);
	EXPECT_EQ(runner_.commands.size(), 1U);
	EXPECT_EQ(change.error().code, Errc::Busy);
	EXPECT_NE(change.error().message.find(": open by pid 4711 (sleep); not forcing it"),
		  std::string::npos)
		<< change.error().message;
	for (const Command &command : runner_.commands)
		EXPECT_EQ(std::find(command.argv.begin(), command.argv.end(), "force"),
			  command.argv.end());
}

TEST_F(KrbdMapperTest, ListsKrbdMappingsOnly)
{
	addKrbd(root_, "0", "rbd", "", "data");
	addNbd(root_, "nbd0", "77", "c");
	addRbdNbdProcess(root_, "77", "rbd/logs");
	auto mapped = mapper_.list();
	ASSERT_TRUE(mapped);
	ASSERT_EQ(mapped->size(), 1U);
	EXPECT_EQ(mapped->front().device, "/dev/rbd0");
	EXPECT_EQ(mapped->front().driver, Driver::Krbd);
}

/* The cluster as the krbd adapter asks it: the facts for its own map, or an error. */
class FactsOnly : public Images
{
public:
	Result<KernelMapFacts> facts =
		KernelMapFacts{ { "10.0.0.1:6789" }, { "10.0.0.1:3300" }, 1 };
	unsigned asked = 0;

	Result<KernelMapFacts> kernelMapFacts(const ImageRequest & /*request*/) override
	{
		++asked;
		return facts;
	}
	Result<ImageChange> ensureImage(const ImageRequest & /*request*/) override
	{
		return fail(Errc::Internal, "not asked");
	}
	Result<void> checkSoleWriter(const ImageRequest & /*request*/) override { return {}; }
	Result<bool> readsZeroes(const ImageRequest & /*request*/) override { return false; }
	Result<std::optional<std::string>> metadata(const ImageRequest & /*request*/,
						    const std::string & /*key*/) override
	{
		return std::optional<std::string>();
	}
	Result<void> setMetadata(const ImageRequest & /*request*/, const std::string & /*key*/,
				 const std::string & /*value*/) override
	{
		return {};
	}
	std::string poolFull(const ImageRequest & /*request*/) override { return {}; }
};

/*
 * Where rbd-volumed maps by itself and where it leaves the map to rbd: a
 * tree with the kernel's add file (a plain file here, which nothing in
 * these tests reaches) and a spec that names its keyring.
 */
class KrbdOwnMapTest : public ::testing::Test
{
protected:
	KrbdOwnMapTest()
	{
		root_.write("sys/bus/rbd/add_single_major", "");
		root_.write("sys/bus/rbd/supported_features", "0x1bd\n");
		root_.write("ceph.keyring",
			    "[client.admin]\n\tkey = AQBzZXN0AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==\n");
		spec_.cluster.keyring = root_.path() + "/ceph.keyring";
		runner_.onRun = [&](const Command &) { addKrbd(root_, "0", "rbd", "", "data"); };
		runner_.answer(0, "/dev/rbd0\n");
	}

	std::string addFileText()
	{
		std::ifstream file(root_.path() + "/sys/bus/rbd/add_single_major");
		return { std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>() };
	}

	TempDir root_;
	HookRunner runner_;
	FactsOnly cluster_;
	KrbdMapper mapper_{ runner_, noWaits(), rootsIn(root_), &cluster_ };
	VolumeSpec spec_ = volumeSpec();
};

TEST_F(KrbdOwnMapTest, AKeyOnlyCephConfKnowsIsLeftToRbd)
{
	spec_.cluster.keyring.clear();
	auto device = mapper_.map(mapRequestOf(spec_));
	ASSERT_TRUE(device) << device.error().message;
	EXPECT_EQ(*device, "/dev/rbd0");
	ASSERT_EQ(runner_.commands.size(), 1U);
	EXPECT_EQ(runner_.commands[0].argv, mapArgv(spec_));
	EXPECT_EQ(cluster_.asked, 0U);
}

TEST_F(KrbdOwnMapTest, CapsWithoutTheMonitorMapAreLeftToRbd)
{
	cluster_.facts = fail(Errc::PermissionDenied, "mon dump: Permission denied", EACCES);
	auto device = mapper_.map(mapRequestOf(spec_));
	ASSERT_TRUE(device) << device.error().message;
	EXPECT_EQ(runner_.commands.size(), 1U);
	EXPECT_EQ(cluster_.asked, 1U);
	EXPECT_EQ(addFileText(), "");
}

TEST_F(KrbdOwnMapTest, AMissingImageFailsWithoutRbd)
{
	cluster_.facts = fail(Errc::NotFound, "image 'rbd/data' does not exist", ENOENT);
	auto device = mapper_.map(mapRequestOf(spec_));
	ASSERT_FALSE(device);
	EXPECT_EQ(device.error().code, Errc::NotFound);
	EXPECT_TRUE(runner_.commands.empty());
	EXPECT_EQ(addFileText(), "");
}

/* Refused as `rbd device map` would be, before anything is written. */
TEST_F(KrbdOwnMapTest, FeaturesTheKernelLacksAreRefusedFirst)
{
	root_.write("sys/bus/rbd/supported_features", "0x1\n");
	cluster_.facts = KernelMapFacts{ { "10.0.0.1:6789" }, {}, 0x1 | 0x4 | 0x40 };
	auto device = mapper_.map(mapRequestOf(spec_));
	ASSERT_FALSE(device);
	EXPECT_EQ(device.error().code, Errc::Unsupported);
	EXPECT_EQ(device.error().message,
		  "unsupported by krbd: this kernel's rbd cannot map rbd/data's exclusive-lock "
		  "journaling; map it with driver = \"nbd\", or `rbd feature disable rbd/data "
		  "exclusive-lock journaling`");
	EXPECT_TRUE(runner_.commands.empty());
	EXPECT_EQ(addFileText(), "");
}

TEST_F(KrbdOwnMapTest, NoMonitorOfTheProtocolIsRefusedBeforeAnyWrite)
{
	cluster_.facts = KernelMapFacts{ {}, { "10.0.0.1:3300" }, 1 };
	auto device = mapper_.map(mapRequestOf(spec_));
	ASSERT_FALSE(device);
	EXPECT_EQ(device.error().code, Errc::InvalidArgument);
	EXPECT_TRUE(runner_.commands.empty());
	EXPECT_EQ(addFileText(), "");
}

} /* namespace */
} /* namespace rbdvolume::testing */
