/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The helper's arguments, and the exact rbd-nbd command line it chooses: map or attach. */
#include "host/drivers/nbd/nbd_helper.hpp"

#include <algorithm>

#include <gtest/gtest.h>

#include "common/fs_util.hpp"
#include "fake_host.hpp"

namespace rbdvolume::testing {
namespace {

using Argv = std::vector<std::string>;

TEST(NbdHelperArgs, Parsed)
{
	auto plain = parseHelperArgs({ "data" });
	ASSERT_TRUE(plain);
	EXPECT_EQ(*plain, (HelperArgs{ "data", "/run/rbd-volume/nbd", "/sys", HelperMode::Exec }));
	auto all = parseHelperArgs(
		{ "--wait", "--config-dir", "/tmp/c", "--sysfs", "/tmp/s", "db.1" });
	ASSERT_TRUE(all);
	EXPECT_EQ(*all, (HelperArgs{ "db.1", "/tmp/c", "/tmp/s", HelperMode::Wait }));
	auto after = parseHelperArgs({ "--after-exit", "data" });
	ASSERT_TRUE(after);
	EXPECT_EQ(after->mode, HelperMode::AfterExit);
	for (const Argv &bad : { Argv{}, Argv{ "--wait" }, Argv{ "a", "b" }, Argv{ "--bogus", "a" },
				 Argv{ "a", "--sysfs" }, Argv{ "my-vol" }, Argv{ "../etc" },
				 Argv{ "--wait", "--after-exit", "a" },
				 Argv{ "--after-exit", "--after-exit", "a" } }) {
		auto parsed = parseHelperArgs(bad);
		ASSERT_FALSE(parsed) << ::testing::PrintToString(bad);
		EXPECT_EQ(parsed.error().code, Errc::InvalidArgument);
	}
}

NbdVolumeConfig fullConfig()
{
	VolumeSpec spec = volumeSpec();
	spec.image.radosNamespace = "tenant";
	spec.cluster.clientId = "vols";
	spec.cluster.conf = "/etc/ceph/prod.conf";
	spec.cluster.keyring = "/etc/ceph/ceph.client.vols.keyring";
	spec.cluster.monitors = { "10.0.0.1", "10.0.0.2" };
	spec.map.readOnly = true;
	spec.map.exclusive = true;
	spec.map.nbdOptions = { "reattach-timeout=120", "quiesce", "quiesce-hook=/usr/libexec/hook",
				"max_part=15" };
	return nbdConfigFor(mapRequestOf(spec), DriverTools{});
}

TEST(NbdHelperArgv, MapWithTheDefaults)
{
	const NbdVolumeConfig config = nbdConfigFor(mapRequestOf(volumeSpec()), DriverTools{});
	EXPECT_EQ(rbdNbdArgv(config, ""),
		  (Argv{ "/usr/bin/rbd-nbd", "-d", "--id", "admin", "map", "--try-netlink",
			 "--cookie", config.cookie, "--reattach-timeout", "300", "--io-timeout",
			 "0", "rbd/data" }));
}

TEST(NbdHelperArgv, MapWithEverything)
{
	const NbdVolumeConfig config = fullConfig();
	const Argv expected = { "/usr/bin/rbd-nbd",
				"-d",
				"--id",
				"vols",
				"--keyring",
				"/etc/ceph/ceph.client.vols.keyring",
				"-c",
				"/etc/ceph/prod.conf",
				"-m",
				"10.0.0.1,10.0.0.2",
				"map",
				"--try-netlink",
				"--cookie",
				config.cookie,
				"--reattach-timeout",
				"120",
				"--io-timeout",
				"0",
				"--read-only",
				"--exclusive",
				"--quiesce",
				"--quiesce-hook",
				"/usr/libexec/hook",
				"--max_part",
				"15",
				"rbd/tenant/data" };
	EXPECT_EQ(rbdNbdArgv(config, ""), expected);
}

TEST(NbdHelperArgv, AttachRepeatsTheMapsSettings)
{
	const NbdVolumeConfig config = fullConfig();
	const Argv expected = { "/usr/bin/rbd-nbd",
				"-d",
				"--id",
				"vols",
				"--keyring",
				"/etc/ceph/ceph.client.vols.keyring",
				"-c",
				"/etc/ceph/prod.conf",
				"-m",
				"10.0.0.1,10.0.0.2",
				"attach",
				"--device",
				"/dev/nbd3",
				"--cookie",
				config.cookie,
				"--reattach-timeout",
				"120",
				"--io-timeout",
				"0",
				"--read-only",
				"--exclusive",
				"--quiesce",
				"--quiesce-hook",
				"/usr/libexec/hook",
				"--max_part",
				"15",
				"rbd/tenant/data" };
	EXPECT_EQ(rbdNbdArgv(config, "/dev/nbd3"), expected);
}

TEST(NbdHelperArgv, DiscoveryReadsTheImageBackFromIt)
{
	/* mapping_discovery parses rbd-nbd's command line: it must find the image in ours. */
	for (const std::string &device : { std::string(), std::string("/dev/nbd3") })
		EXPECT_EQ(nbdImageArgument(rbdNbdArgv(fullConfig(), device)), "rbd/tenant/data");
}

TEST(NbdHelperDecision, MapsWhenNoDeviceCarriesTheCookie)
{
	const TempDir root;
	const NbdVolumeConfig config = nbdConfigFor(mapRequestOf(volumeSpec()), DriverTools{});
	addNbd(root, "nbd0", "10", "rbd-volume.other.0000000000000000");
	addNbd(root, "nbd1", "", "");
	addNbd(root, "nbd2", "12", "-");
	EXPECT_EQ(helperExecArgv(config, rootsIn(root)), rbdNbdArgv(config, ""));
}

TEST(NbdHelperDecision, AttachesToTheDeviceThatOutlivedItsServer)
{
	const TempDir root;
	const NbdVolumeConfig config = nbdConfigFor(mapRequestOf(volumeSpec()), DriverTools{});
	addNbd(root, "nbd0", "10", "rbd-volume.other.0000000000000000");
	/* The kernel's pid attribute still names the dead server. */
	addNbd(root, "nbd7", "4242", config.cookie);
	const Argv argv = helperExecArgv(config, rootsIn(root));
	EXPECT_EQ(argv, rbdNbdArgv(config, "/dev/nbd7"));
	EXPECT_EQ(std::count(argv.begin(), argv.end(), "attach"), 1);
}

/* With io-timeout 0 the block layer's timer only resends held requests: 5 s, not 30. */
TEST(NbdHelperTimer, ShortensTheRequestTimerWithoutAnIoTimeout)
{
	const TempDir root;
	root.write("sys/block/nbd2/queue/io_timeout", ""); /* sysfs: one write is the value */
	NbdVolumeConfig config = nbdConfigFor(mapRequestOf(volumeSpec()), DriverTools{});
	ASSERT_EQ(config.ioTimeout, 0U);
	ASSERT_TRUE(shortenRequestTimer(config, rootsIn(root), "/dev/nbd2"));
	EXPECT_EQ(readFile(root.path() + "/sys/block/nbd2/queue/io_timeout")->value_or(""), "5000");

	/* The spec's own io-timeout is the timer: left as rbd-nbd set it. */
	root.write("sys/block/nbd2/queue/io_timeout", "30000\n");
	config.ioTimeout = 30;
	ASSERT_TRUE(shortenRequestTimer(config, rootsIn(root), "/dev/nbd2"));
	EXPECT_EQ(readFile(root.path() + "/sys/block/nbd2/queue/io_timeout")->value_or(""),
		  "30000\n");

	config.ioTimeout = 0;
	auto missing = shortenRequestTimer(config, rootsIn(root), "/dev/nbd9");
	ASSERT_FALSE(missing);
	EXPECT_NE(missing.error().message.find("nbd9/queue/io_timeout"), std::string::npos);
}

/* After rbd-nbd exits, only a device still carrying the cookie, and only with io-timeout 0. */
TEST(NbdHelperAfterExit, TimesOutOnlyTheDeviceItLeftWithoutAnIoTimeout)
{
	const TempDir root;
	NbdVolumeConfig config = nbdConfigFor(mapRequestOf(volumeSpec()), DriverTools{});
	addNbd(root, "nbd0", "10", "rbd-volume.other.0000000000000000");
	EXPECT_EQ(deviceToTimeOut(config, rootsIn(root)), std::nullopt);
	addNbd(root, "nbd5", "4242", config.cookie);
	EXPECT_EQ(deviceToTimeOut(config, rootsIn(root)), "/dev/nbd5");
	config.ioTimeout = 30;
	EXPECT_EQ(deviceToTimeOut(config, rootsIn(root)), std::nullopt);
}

} /* namespace */
} /* namespace rbdvolume::testing */
