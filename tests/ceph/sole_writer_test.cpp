/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* LibrbdCluster::checkSoleWriter and imageInfo against a second client holding the image. */
#include <thread>

#include <gtest/gtest.h>

#include "ceph_fixture.hpp"
#include "host/ceph/librbd_cluster.hpp"
#include "image_holder.hpp"

namespace rbdvolume::testing {

namespace {

class SoleWriter : public ::testing::Test
{
protected:
	void SetUp() override
	{
		spec_ = specFor(uniqueImageName("writer"),
				createSpec(16 * MiB, { "layering", "exclusive-lock" }));
		auto created = ceph_.ensureImage(imageRequestOf(spec_));
		ASSERT_TRUE(created) << created.error().message;
	}

	LibrbdCluster ceph_;
	VolumeSpec spec_;
};

TEST_F(SoleWriter, AnImageNobodyUsesIsFine)
{
	auto sole = ceph_.checkSoleWriter(imageRequestOf(spec_));
	EXPECT_TRUE(sole) << sole.error().message;
	/* Neither that check nor imageInfo made us a watcher. */
	auto info = ceph_.imageInfo(imageRequestOf(spec_));
	ASSERT_TRUE(info) << info.error().message;
	EXPECT_TRUE(info->watchers.empty());
	EXPECT_TRUE(info->lockOwners.empty());
}

TEST_F(SoleWriter, AnImageOpenElsewhereIsBusyNamingTheClient)
{
	ImageHolder holder;
	ASSERT_EQ(holder.hold(spec_.image.name), "");

	auto info = ceph_.imageInfo(imageRequestOf(spec_));
	ASSERT_TRUE(info) << info.error().message;
	ASSERT_EQ(info->watchers.size(), 1U);
	ASSERT_EQ(info->lockOwners.size(), 1U);
	const std::string &watcher = info->watchers.front();
	const std::string address = watcher.substr(0, watcher.find(' '));
	const std::string client = watcher.substr(watcher.find(' ') + 1);
	EXPECT_EQ(address.rfind("127.0.0.1:0/", 0), 0U) << watcher;
	EXPECT_EQ(client.rfind("client.", 0), 0U) << watcher;
	EXPECT_EQ(info->lockOwners.front(), address);

	auto sole = ceph_.checkSoleWriter(imageRequestOf(spec_));
	ASSERT_FALSE(sole);
	EXPECT_EQ(sole.error().code, Errc::Busy);
	EXPECT_EQ(sole.error().message,
		  "image rbd/" + spec_.image.name + " is in use by " + address + " (" + client +
			  ", exclusive-lock owner); refusing a read-write map. Set "
			  "map.multi-writer (block mode) to share it");

	VolumeSpec readOnly = spec_;
	readOnly.map.readOnly = true;
	auto shared = ceph_.checkSoleWriter(imageRequestOf(readOnly));
	EXPECT_TRUE(shared) << shared.error().message;
	VolumeSpec multiWriter = spec_;
	multiWriter.map.multiWriter = true;
	auto multi = ceph_.checkSoleWriter(imageRequestOf(multiWriter));
	EXPECT_TRUE(multi) << multi.error().message;

	holder.release();
	auto free = ceph_.checkSoleWriter(imageRequestOf(spec_));
	EXPECT_TRUE(free) << free.error().message;
}

/* A mapped image grows too: librbd hands the resize to the client owning the lock. */
TEST_F(SoleWriter, AnImageInUseIsGrownThroughItsLockOwner)
{
	ImageHolder holder;
	ASSERT_EQ(holder.hold(spec_.image.name), "");
	VolumeSpec larger = spec_;
	larger.image.create->sizeBytes = 48 * MiB;

	auto grown = ceph_.ensureImage(imageRequestOf(larger));
	ASSERT_TRUE(grown) << grown.error().message;
	EXPECT_EQ(grown->change, Change::Changed);
	auto info = ceph_.imageInfo(imageRequestOf(spec_));
	ASSERT_TRUE(info) << info.error().message;
	EXPECT_EQ(info->sizeBytes, 48 * MiB);
	EXPECT_EQ(info->watchers.size(), 1U);
}

/* A killed client's watch lingers until osd_client_watch_timeout (5 s here); its lock stays. */
TEST_F(SoleWriter, AKilledClientCountsUntilItsWatchTimesOut)
{
	ImageHolder holder;
	ASSERT_EQ(holder.hold(spec_.image.name), "");
	holder.kill();
	const auto killed = Clock::now();

	auto busy = ceph_.checkSoleWriter(imageRequestOf(spec_));
	ASSERT_FALSE(busy);
	EXPECT_EQ(busy.error().code, Errc::Busy);

	Result<void> sole = busy;
	while (!sole && sole.error().code == Errc::Busy && secondsSince(killed) < 30) {
		std::this_thread::sleep_for(std::chrono::milliseconds(500));
		sole = ceph_.checkSoleWriter(imageRequestOf(spec_));
	}
	EXPECT_TRUE(sole) << sole.error().message;
	EXPECT_LT(secondsSince(killed), 15.0);
	/* Its stale lock is still recorded; librbd breaks it on the next acquire. */
	auto info = ceph_.imageInfo(imageRequestOf(spec_));
	ASSERT_TRUE(info) << info.error().message;
	EXPECT_TRUE(info->watchers.empty());
	EXPECT_EQ(info->lockOwners.size(), 1U);
}

} /* namespace */

} /* namespace rbdvolume::testing */
