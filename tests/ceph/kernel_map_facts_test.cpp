/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * LibrbdCluster::kernelMapFacts against the real cluster: the monitors the
 * krbd adapter writes into /sys/bus/rbd/add_single_major are those the
 * monitors list themselves, and the features are the image's own.
 */
#include <gtest/gtest.h>

#include "ceph_fixture.hpp"
#include "host/ceph/librbd_cluster.hpp"

namespace rbdvolume::testing {

namespace {

TEST(KernelMapFacts, TheMonitorsOwnAddressesAndTheImagesFeatures)
{
	LibrbdCluster ceph;
	const VolumeSpec spec = specFor(uniqueImageName("kfacts"),
					createSpec(16 * MiB, { "layering", "exclusive-lock" }));
	auto created = ceph.ensureImage(imageRequestOf(spec));
	ASSERT_TRUE(created) << created.error().message;
	auto facts = ceph.kernelMapFacts(imageRequestOf(spec));
	ASSERT_TRUE(facts) << facts.error().message;
	EXPECT_EQ(facts->features, 0x5U) << "layering and exclusive-lock";
	const std::string dump = cephAdmin({ "mon", "dump", "--format", "json" });
	ASSERT_FALSE(facts->msgr1Monitors.empty()) << dump;
	ASSERT_FALSE(facts->msgr2Monitors.empty()) << dump;
	for (const std::string &address : facts->msgr1Monitors)
		EXPECT_NE(dump.find(R"({"type":"v1","addr":")" + address + "\""), std::string::npos)
			<< address << " is not a v1 address in " << dump;
	for (const std::string &address : facts->msgr2Monitors)
		EXPECT_NE(dump.find(R"({"type":"v2","addr":")" + address + "\""), std::string::npos)
			<< address << " is not a v2 address in " << dump;
}

TEST(KernelMapFacts, AMissingImageIsNotFound)
{
	LibrbdCluster ceph;
	const VolumeSpec spec = specFor(uniqueImageName("kfacts-missing"));
	auto facts = ceph.kernelMapFacts(imageRequestOf(spec));
	ASSERT_FALSE(facts);
	EXPECT_EQ(facts.error().code, Errc::NotFound) << facts.error().message;
}

} /* namespace */

} /* namespace rbdvolume::testing */
