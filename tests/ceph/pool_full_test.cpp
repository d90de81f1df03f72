/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * LibrbdCluster's pool watch against the monitors' own flags. The suite's
 * cluster has no ceph-mgr, and a quota is enforced from the mgr's figures:
 * its one OSD is made full instead (set-full-ratio below what it holds),
 * which flags every pool on it full, as a reached quota flags its pool.
 */
#include <thread>

#include <gtest/gtest.h>

#include "ceph_fixture.hpp"
#include "host/ceph/librbd_cluster.hpp"

namespace rbdvolume::testing {

namespace {

/* Refreshes until the pool's verdict is `wanted` ("" for not full) or 60 s pass. */
std::string awaitVerdict(LibrbdCluster &ceph, const ImageRequest &request, bool full)
{
	const Clock::time_point start = Clock::now();
	std::string verdict = ceph.poolFull(request);
	while (verdict.empty() == full && secondsSince(start) < 60) {
		std::this_thread::sleep_for(std::chrono::milliseconds(500));
		(void)ceph.refreshPools();
		verdict = ceph.poolFull(request);
	}
	return verdict;
}

class FullOsd
{
public:
	/* Below the few KiB an empty memstore holds, each ratio above the last as the mon wants. */
	FullOsd() { setRatios("0.0000001", "0.0000002", "0.0000003"); }
	/* Ceph's defaults again. */
	~FullOsd() { setRatios("0.85", "0.90", "0.95"); }
	FullOsd(const FullOsd &) = delete;
	FullOsd &operator=(const FullOsd &) = delete;
	FullOsd(FullOsd &&) = delete;
	FullOsd &operator=(FullOsd &&) = delete;

private:
	static void setRatios(const char *nearfull, const char *backfillfull, const char *full)
	{
		(void)cephAdmin({ "osd", "set-nearfull-ratio", nearfull });
		(void)cephAdmin({ "osd", "set-backfillfull-ratio", backfillfull });
		(void)cephAdmin({ "osd", "set-full-ratio", full });
	}
};

TEST(PoolFull, AFullPoolIsHeardAndSoIsItsRoom)
{
	LibrbdCluster ceph;
	const ImageRequest request = imageRequestOf(specFor(uniqueImageName("full")));
	EXPECT_FALSE(ceph.watchingPools());
	EXPECT_EQ(ceph.poolFull(request), ""); /* nothing heard yet: the pool is watched from now */
	EXPECT_TRUE(ceph.watchingPools());
	EXPECT_FALSE(ceph.refreshPools());
	EXPECT_EQ(ceph.poolFull(request), "");
	{
		const FullOsd full;
		EXPECT_EQ(
			awaitVerdict(ceph, request, true),
			"the pool '" + request.image.pool +
				"' is full: an OSD it is stored on is full (`ceph health detail`)");
	}
	EXPECT_EQ(awaitVerdict(ceph, request, false), "");
	/* A read-only volume writes nothing: its pool is never a reason. */
	ImageRequest readOnly = request;
	readOnly.readOnly = true;
	EXPECT_EQ(ceph.poolFull(readOnly), "");
}

} /* namespace */

} /* namespace rbdvolume::testing */
