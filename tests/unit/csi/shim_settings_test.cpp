/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rbd-volume-csi's command line. */
#include "csi/shim_settings.hpp"

#include <gtest/gtest.h>

namespace rbdvolume::testing {

namespace {

using Args = std::vector<std::string>;

TEST(ShimSettings, Defaults)
{
	auto settings = csi::parseShimSettings({});
	ASSERT_TRUE(settings) << settings.error().message;
	EXPECT_EQ(settings->driverName, "rbd.volume.csi");
	EXPECT_EQ(settings->endpoint, "/var/lib/kubelet/plugins/rbd.volume.csi/csi.sock");
	EXPECT_EQ(settings->registrationDir, "/var/lib/kubelet/plugins_registry");
	EXPECT_FALSE(settings->nodeId.empty()) << "the host name";
	EXPECT_FALSE(settings->forcedDriver);
	EXPECT_EQ(settings->maxWait, std::chrono::seconds(100));
}

TEST(ShimSettings, EveryFlagBothSpellings)
{
	auto settings = csi::parseShimSettings(
		{ "--endpoint=unix:///run/csi/csi.sock", "--driver-name", "rbd.example.org",
		  "--node-id=n1", "--cluster-map", "/etc/ceph-csi-config/config.json",
		  "--registration-dir=", "--driver", "fuse", "--topology", "zone=a",
		  "--topology=rack=r1", "--max-volumes=10", "--max-wait", "30", "--log-level=debug",
		  "--runtime-dir", "/tmp/x" });
	ASSERT_TRUE(settings) << settings.error().message;
	EXPECT_EQ(settings->endpoint, "/run/csi/csi.sock");
	EXPECT_EQ(settings->driverName, "rbd.example.org");
	EXPECT_EQ(settings->nodeId, "n1");
	EXPECT_EQ(settings->clusterMap, "/etc/ceph-csi-config/config.json");
	EXPECT_EQ(settings->registrationDir, "");
	EXPECT_EQ(settings->forcedDriver, Driver::Fuse);
	EXPECT_EQ(settings->topology,
		  (std::map<std::string, std::string>{ { "rack", "r1" }, { "zone", "a" } }));
	EXPECT_EQ(settings->maxVolumes, 10);
	EXPECT_EQ(settings->maxWait, std::chrono::seconds(30));
	EXPECT_EQ(settings->logLevel, log::Level::Debug);
	EXPECT_EQ(settings->runtimeDir, "/tmp/x");
}

TEST(ShimSettings, BadInputSaysWhatWasExpected)
{
	const std::vector<std::pair<Args, std::string>> cases = {
		{ { "--bogus" }, "unknown option '--bogus'" },
		{ { "--node-id" }, "--node-id: a value is missing" },
		{ { "--driver", "rbd" }, "--driver: expected krbd, nbd or fuse, found 'rbd'" },
		{ { "--max-volumes", "-1" }, "--max-volumes: expected a whole number from 0" },
		{ { "--max-wait", "0" }, "--max-wait: expected a whole number from 1" },
		{ { "--endpoint", "csi.sock" }, "--endpoint: expected an absolute path" },
		{ { "--topology", "zone" }, "--topology: expected KEY=VALUE" },
		{ { "--driver-name", "-bad" }, "--driver-name: a driver name begins and ends" },
		{ { "--driver-name", "rbd csi" }, "--driver-name: a driver name has only" },
		{ { "--driver-name", std::string(64, 'a') },
		  "--driver-name: a driver name has 1 to 63" },
		{ { "--log-level", "trace" }, "--log-level: expected info or debug" },
	};
	for (const auto &[args, message] : cases) {
		auto settings = csi::parseShimSettings(args);
		ASSERT_FALSE(settings) << args[0];
		EXPECT_TRUE(settings.error().message.starts_with(message))
			<< settings.error().message;
	}
}

} /* namespace */

} /* namespace rbdvolume::testing */
