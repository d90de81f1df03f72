/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* krbd's own map: the add line the kernel is given, and the cephx key it is keyed by. */
#include "host/drivers/krbd/krbd_add.hpp"

#include <gtest/gtest.h>

#include "fake_host.hpp"
#include "host/drivers/krbd/kernel_key.hpp"

namespace rbdvolume::testing {
namespace {

using Options = std::vector<std::string>;

const KernelMapFacts Facts{ { "10.0.0.1:6789", "10.0.0.2:6789" },
			    { "10.0.0.1:3300", "10.0.0.2:3300" },
			    0x3d };

TEST(KrbdKernelOptions, TheToolsOwnOptionsStayBehind)
{
	VolumeSpec spec = volumeSpec();
	spec.map.krbdOptions = { "noudev", "queue_depth=64", "udev", "rw" };
	EXPECT_EQ(krbdKernelOptions(DriverTools{}, mapRequestOf(spec)),
		  Options{ "queue_depth=64" });
}

TEST(KrbdKernelOptions, ReadOnlyExclusiveAndAbortOnFull)
{
	DriverTools tools;
	tools.krbdAbortOnFull = true;
	VolumeSpec spec = volumeSpec();
	spec.map.exclusive = true;
	EXPECT_EQ(krbdKernelOptions(tools, mapRequestOf(spec)),
		  (Options{ "exclusive", "abort_on_full" }));
	spec.map.readOnly = true;
	spec.map.exclusive = false;
	EXPECT_EQ(krbdKernelOptions(tools, mapRequestOf(spec)), Options{ "ro" });
	spec.map.readOnly = false;
	spec.map.krbdAbortOnFull = false;
	EXPECT_EQ(krbdKernelOptions(tools, mapRequestOf(spec)), Options{});
	spec.map.krbdAbortOnFull = true;
	spec.map.krbdOptions = { "abort_on_full", "exclusive" };
	spec.map.exclusive = true;
	EXPECT_EQ(krbdKernelOptions(tools, mapRequestOf(spec)),
		  (Options{ "abort_on_full", "exclusive" }));
}

TEST(KrbdAddLine, Msgr1MonitorsByDefault)
{
	VolumeSpec spec = volumeSpec();
	spec.cluster.clientId = "test";
	auto line = krbdAddLine(mapRequestOf(spec), Facts, { "queue_depth=64" }, "rbd-volume.7.1");
	ASSERT_TRUE(line) << line.error().message;
	EXPECT_EQ(*line, "10.0.0.1:6789,10.0.0.2:6789 name=test,key=rbd-volume.7.1,queue_depth=64 "
			 "rbd data -");
}

TEST(KrbdAddLine, Msgr2MonitorsForAnyOtherMsMode)
{
	VolumeSpec spec = volumeSpec();
	auto crc = krbdAddLine(mapRequestOf(spec), Facts, { "ms_mode=crc" }, "k");
	ASSERT_TRUE(crc);
	EXPECT_EQ(*crc, "10.0.0.1:3300,10.0.0.2:3300 name=admin,key=k,ms_mode=crc rbd data -");
	auto legacy = krbdAddLine(mapRequestOf(spec), Facts, { "ms_mode=legacy" }, "k");
	ASSERT_TRUE(legacy);
	EXPECT_TRUE(legacy->starts_with("10.0.0.1:6789,10.0.0.2:6789 "));
}

TEST(KrbdAddLine, NamespaceAndSnapshot)
{
	VolumeSpec spec = volumeSpec();
	spec.image.radosNamespace = "tenant";
	spec.image.snapshot = "monday";
	auto line = krbdAddLine(mapRequestOf(spec), Facts, { "ro" }, "k");
	ASSERT_TRUE(line);
	EXPECT_EQ(*line, "10.0.0.1:6789,10.0.0.2:6789 name=admin,key=k,ro,_pool_ns=tenant rbd data "
			 "monday");
}

TEST(KrbdAddLine, NoMonitorOfTheProtocolIsRefused)
{
	const KernelMapFacts msgr2Only{ {}, { "10.0.0.1:3300" }, 1 };
	auto line = krbdAddLine(mapRequestOf(volumeSpec()), msgr2Only, {}, "k");
	ASSERT_FALSE(line);
	EXPECT_EQ(line.error().code, Errc::InvalidArgument);
	EXPECT_NE(line.error().message.find("ms_mode=crc"), std::string::npos)
		<< line.error().message;
}

TEST(KrbdMissingFeatures, WritingNeedsAllReadingOnlyTheDataLayout)
{
	const uint64_t kernel61 = 0x1bd; /* layering, exclusive-lock, object-map, ... operations */
	const uint64_t journaled = 0x1 | 0x4 | 0x40;
	EXPECT_EQ(missingFeatures(journaled, kernel61, false), "journaling");
	EXPECT_EQ(missingFeatures(journaled, kernel61, true), "");
	EXPECT_EQ(missingFeatures(0x1 | 0x80 | 0x800, 0x1, true), "data-pool dirty-cache");
	EXPECT_EQ(missingFeatures(0x3d, 0x3d, false), "");
	EXPECT_EQ(missingFeatures(0x40, 0, false), "journaling");
	EXPECT_EQ(missingFeatures(uint64_t{ 1 } << 20, 0, false), "") << "not a feature librbd has";
}

TEST(CephxKey, FromTheClientsSectionOfAKeyring)
{
	TempDir dir;
	dir.write("ceph.keyring",
		  "[client.admin]\n\tkey = AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==\n"
		  "[client.test]\n\tkey=AQBzZXN0AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==\n"
		  "\tcaps mon = \"profile rbd\"\n");
	ClusterSpec cluster;
	cluster.clientId = "test";
	cluster.keyring = dir.path() + "/ceph.keyring";
	auto key = cephxKeyOf(cluster);
	ASSERT_TRUE(key) << key.error().message;
	EXPECT_EQ(key->view(), "AQBzZXN0AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==");
	cluster.clientId = "other";
	auto none = cephxKeyOf(cluster);
	ASSERT_FALSE(none);
	EXPECT_EQ(none.error().code, Errc::NotFound);
	EXPECT_NE(none.error().message.find("client.other"), std::string::npos);
}

TEST(CephxKey, AKeyfileIsTheKey)
{
	TempDir dir;
	dir.write("test.key", "AQBzZXN0AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==\n");
	ClusterSpec cluster;
	cluster.keyfile = dir.path() + "/test.key";
	auto key = cephxKeyOf(cluster);
	ASSERT_TRUE(key) << key.error().message;
	EXPECT_EQ(key->view(), "AQBzZXN0AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==");
}

/* Where ceph.conf names the key, the rbd tool reads it: NotFound sends the map there. */
TEST(CephxKey, NoFileNamedOrNoFileThereIsNotFound)
{
	auto unnamed = cephxKeyOf(ClusterSpec{});
	ASSERT_FALSE(unnamed);
	EXPECT_EQ(unnamed.error().code, Errc::NotFound);
	ClusterSpec missing;
	missing.keyring = "/nonexistent/ceph.keyring";
	auto absent = cephxKeyOf(missing);
	ASSERT_FALSE(absent);
	EXPECT_EQ(absent.error().code, Errc::NotFound);
}

} /* namespace */
} /* namespace rbdvolume::testing */
