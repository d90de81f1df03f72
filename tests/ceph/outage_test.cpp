/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A cluster that goes away and comes back: bounded errors, then recovery, same object. */
#include <gtest/gtest.h>

#include "ceph_fixture.hpp"
#include "cluster_harness.hpp"
#include "host/ceph/librbd_cluster.hpp"

namespace rbdvolume::testing {

namespace {

using std::chrono::seconds;

/* Starts the cluster again however the test ends, so later tests have one. */
class Outage : public ::testing::Test
{
protected:
	void TearDown() override
	{
		if (stopped_) {
			EXPECT_EQ(cluster().start(), "");
		}
	}

	void stopCluster()
	{
		ASSERT_EQ(cluster().stop(), "");
		stopped_ = true;
	}

	void startCluster()
	{
		ASSERT_EQ(cluster().start(), "");
		stopped_ = false;
	}

	bool stopped_ = false;
};

TEST_F(Outage, CallsTimeOutWhileTheClusterIsDownAndSucceedOnceItIsBack)
{
	LibrbdCluster ceph(CephTimeouts{ seconds(3), seconds(5) });
	const VolumeSpec spec = specFor(uniqueImageName("outage"), createSpec(8 * MiB));
	auto created = ceph.ensureImage(imageRequestOf(spec));
	ASSERT_TRUE(created) << created.error().message;
	ASSERT_EQ(ceph.connectionCount(), 1U);

	stopCluster();
	/* The cached connection's calls are bounded by the operation timeout... */
	auto start = Clock::now();
	auto cached = ceph.imageInfo(imageRequestOf(spec));
	ASSERT_FALSE(cached);
	EXPECT_EQ(cached.error().code, Errc::Timeout) << cached.error().message;
	EXPECT_LT(secondsSince(start), 5 + 5.0);
	EXPECT_NE(cached.error().message.find("no answer from the cluster at "), std::string::npos)
		<< cached.error().message;
	/* ...and the suspect connection is dropped, so the next call connects anew. */
	EXPECT_EQ(ceph.connectionCount(), 0U);
	start = Clock::now();
	auto fresh = ceph.ensureImage(imageRequestOf(spec));
	ASSERT_FALSE(fresh);
	EXPECT_EQ(fresh.error().code, Errc::Timeout) << fresh.error().message;
	EXPECT_LT(secondsSince(start), 3 + 5.0);

	startCluster();
	auto back = ceph.ensureImage(imageRequestOf(spec));
	ASSERT_TRUE(back) << back.error().message;
	EXPECT_EQ(back->change, Change::Unchanged);
}

} /* namespace */

} /* namespace rbdvolume::testing */
