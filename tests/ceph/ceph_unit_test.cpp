/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The Ceph adapter's pure parts: feature names, error words. No cluster. */
#include <cerrno>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <rbd/features.h>

#include <gtest/gtest.h>

#include "host/ceph/ceph_errors.hpp"
#include "host/ceph/image_features.hpp"
#include "host/ceph/monitor_hosts.hpp"
#include "host/ceph/monitor_map.hpp"
#include "host/ceph/pool_fullness.hpp"
#include "host/ceph/pool_watch.hpp"

namespace rbdvolume {

namespace {

const CallContext Context{ "client.test", "[v2:10.0.0.1:3300]", std::chrono::seconds(30) };

TEST(ImageFeatures, NamesAndBitsRoundTrip)
{
	auto bits = featureBits(
		{ "layering", "exclusive-lock", "object-map", "fast-diff", "deep-flatten" });
	ASSERT_TRUE(bits);
	EXPECT_EQ(*bits, uint64_t{ RBD_FEATURES_DEFAULT });
	EXPECT_EQ(featureNames(*bits), "layering, exclusive-lock, object-map, fast-diff, "
				       "deep-flatten");
	EXPECT_EQ(featureNames(0), "none");
	auto none = featureBits({});
	ASSERT_TRUE(none);
	EXPECT_EQ(*none, 0U);
}

/* `ceph mon dump`'s plain text, as a Reef monitor prints it; the first monitor speaks both. */
TEST(MonitorMap, AddressesByProtocolWithoutNonces)
{
	const MonitorAddresses monitors = monitorAddresses(
		"epoch 3\nfsid 6f3f4c1e-0000-4000-8000-000000000000\n"
		"last_changed 2026-11-30T20:00:00.000000+0000\nmin_mon_release 16 (pacific)\n"
		"election_strategy: 1\n"
		"0: [v2:10.0.0.1:3300/0,v1:10.0.0.1:6789/0] mon.a\n"
		"1: v1:10.0.0.2:6789/0 mon.b\n"
		"2: [v2:[fd00::3]:3300/0,v1:[fd00::3]:6789/0] mon.c\n");
	EXPECT_EQ(monitors.msgr1,
		  (std::vector<std::string>{ "10.0.0.1:6789", "10.0.0.2:6789", "[fd00::3]:6789" }));
	EXPECT_EQ(monitors.msgr2, (std::vector<std::string>{ "10.0.0.1:3300", "[fd00::3]:3300" }));
	EXPECT_TRUE(monitorAddresses("").msgr1.empty());
	EXPECT_TRUE(monitorAddresses("epoch 1\n0: nothing here\n").msgr1.empty());
}

TEST(ImageFeatures, UnknownNamesAreRefused)
{
	auto bits = featureBits({ "layering", "data-pool" });
	ASSERT_FALSE(bits);
	EXPECT_EQ(bits.error().code, Errc::InvalidArgument);
	EXPECT_EQ(bits.error().message, "unknown RBD image feature 'data-pool'");
}

TEST(ImageFeatures, LibrbdsOwnBitsAndStripingAreNotCompared)
{
	const uint64_t image = RBD_FEATURE_LAYERING | RBD_FEATURE_OPERATIONS |
			       RBD_FEATURE_DATA_POOL | RBD_FEATURE_DIRTY_CACHE |
			       RBD_FEATURE_STRIPINGV2;
	EXPECT_EQ(comparableFeatures(image), uint64_t{ RBD_FEATURE_LAYERING });
	EXPECT_EQ(featureNames(image), "layering, striping");
}

TEST(MonitorHosts, NamesAreFoundInEveryFormLibradosTakes)
{
	using Names = std::vector<std::string>;
	EXPECT_EQ(monitorHostNames("mon1"), Names{ "mon1" });
	EXPECT_EQ(monitorHostNames("mon1.example.com:6789,mon2:6789; mon3\tmon2"),
		  (Names{ "mon1.example.com", "mon2", "mon3" }));
	EXPECT_EQ(monitorHostNames("[v2:mon1:3300,v1:mon1:6789] v2:mon2:3300/0"),
		  (Names{ "mon1", "mon2" }));
	EXPECT_EQ(monitorHostNames("mon1,10.0.0.2:6789"), Names{ "mon1" });
}

TEST(MonitorHosts, AddressesAreNotNames)
{
	EXPECT_TRUE(monitorHostNames("10.0.0.1").empty());
	EXPECT_TRUE(monitorHostNames("10.0.0.1:6789, 10.0.0.2").empty());
	EXPECT_TRUE(monitorHostNames("[v2:10.0.0.1:3300,v1:10.0.0.1:6789]").empty());
	EXPECT_TRUE(monitorHostNames("[v2:10.0.0.1:3300/0,v1:10.0.0.1:6789/0]").empty());
	EXPECT_TRUE(monitorHostNames("[::1]:6789,::1,fd00::2").empty());
	EXPECT_TRUE(monitorHostNames("[v2:[::1]:3300,v1:[::1]:6789]").empty());
	EXPECT_TRUE(monitorHostNames("").empty());
}

/* No lookup here (a name that does not resolve: the ceph suite's CephConnection). */
TEST(MonitorHosts, AddressesAndNamesThatResolveAreNotReported)
{
	EXPECT_EQ(unresolvedMonitor("127.0.0.1:6789,[::1]:6789"), std::nullopt);
	EXPECT_EQ(unresolvedMonitor("localhost:6789"), std::nullopt); /* /etc/hosts */
}

TEST(CephErrors, TimeoutsNameTheMonitorsAndTheBound)
{
	const Error error = callError(-ETIMEDOUT, "opening image rbd/a", Context);
	EXPECT_EQ(error.code, Errc::Timeout);
	EXPECT_EQ(error.sysErrno, ETIMEDOUT);
	EXPECT_EQ(error.message,
		  "opening image rbd/a: no answer from the cluster at [v2:10.0.0.1:3300] within "
		  "30 s");
	EXPECT_TRUE(isConnectionFault(error));
}

TEST(CephErrors, DenialsNameTheClientAndItsCaps)
{
	for (const int err : { EACCES, EPERM }) {
		const Error error = callError(-err, "creating image rbd/a", Context);
		EXPECT_EQ(error.code, Errc::PermissionDenied);
		EXPECT_EQ(error.message.rfind(
				  "creating image rbd/a: client.test is not allowed to (", 0),
			  0U)
			<< error.message;
		EXPECT_NE(error.message.find("): check its caps (profile rbd)"), std::string::npos);
		EXPECT_TRUE(isConnectionFault(error));
	}
}

TEST(CephErrors, OtherErrnosKeepTheirText)
{
	const Error missing = callError(-ENOENT, "opening image rbd/a", Context);
	EXPECT_EQ(missing.code, Errc::NotFound);
	EXPECT_EQ(missing.message, "opening image rbd/a: No such file or directory");
	EXPECT_FALSE(isConnectionFault(missing));
	EXPECT_EQ(callError(-EEXIST, "x", Context).code, Errc::Conflict);
	EXPECT_EQ(callError(-EBUSY, "x", Context).code, Errc::Busy);
	const Error io = callError(-EIO, "x", Context);
	EXPECT_EQ(io.code, Errc::Io);
	EXPECT_EQ(io.message, "x: Input/output error");
	const Error blocklisted = callError(-ESHUTDOWN, "x", Context);
	EXPECT_EQ(blocklisted.code, Errc::Blocklisted);
	EXPECT_TRUE(isConnectionFault(blocklisted));
	EXPECT_NE(blocklisted.message.find("blocklisted"), std::string::npos);
}

/* As Ceph 16's monitors answer `osd pool ls detail`. */
constexpr std::string_view PoolList =
	"pool 1 'device_health_metrics' replicated size 1 min_size 1 crush_rule 0 object_hash "
	"rjenkins pg_num 1 pgp_num 1 autoscale_mode on last_change 9 flags hashpspool "
	"stripe_width 0 pg_num_min 1 application mgr_devicehealth\n"
	"pool 2 'rbd' replicated size 1 min_size 1 crush_rule 0 object_hash rjenkins pg_num 8 "
	"pgp_num 8 autoscale_mode on last_change 30 lfor 0/0/28 flags "
	"hashpspool,full,full_quota,selfmanaged_snaps max_bytes 67108864 stripe_width 0 "
	"application rbd\n"
	"\tremoved_snaps_queue [2~1]\n"
	"\n"
	"pool 3 'my pool' erasure profile default size 3 min_size 2 crush_rule 1 object_hash "
	"rjenkins pg_num 8 pgp_num 8 last_change 31 flags hashpspool,full,ec_overwrites "
	"stripe_width 8192 application rbd\n"
	"pool 4 'quota-not-reached' replicated size 1 min_size 1 crush_rule 0 object_hash "
	"rjenkins pg_num 8 pgp_num 8 last_change 32 flags hashpspool,nearfull max_bytes "
	"1048576 stripe_width 0\n";

TEST(PoolFullness, FullPoolsAndWhy)
{
	const std::map<std::string, std::string> full = fullPools(PoolList);
	ASSERT_EQ(full.size(), 2U);
	EXPECT_EQ(full.at("rbd"), "the pool 'rbd' is full: its quota of 64 MiB is reached");
	EXPECT_EQ(full.at("my pool"), "the pool 'my pool' is full: an OSD it is stored on is full "
				      "(`ceph health detail`)");
}

TEST(PoolFullness, NothingFullInTextOfAnotherForm)
{
	EXPECT_TRUE(fullPools("").empty());
	EXPECT_TRUE(fullPools("rbd\nfull\n").empty());
	EXPECT_TRUE(fullPools("pool 2 'rbd' flags full\n").empty()); /* no type: not a pool line */
	EXPECT_TRUE(fullPools("pool 2 'full' replicated flags hashpspool,fullish\n").empty());
}

ClusterSpec clusterOf(std::string clientId)
{
	ClusterSpec cluster;
	cluster.clientId = std::move(clientId);
	return cluster;
}

TEST(PoolWatch, AnsweredFromTheLastRefreshOnePerCluster)
{
	PoolWatch watch;
	EXPECT_FALSE(watch.watching());
	EXPECT_EQ(watch.look(clusterOf("a"), "rbd"), ""); /* nothing heard yet */
	EXPECT_EQ(watch.look(clusterOf("a"), "quota-not-reached"), "");
	EXPECT_EQ(watch.look(clusterOf("b"), "rbd"), "");
	EXPECT_TRUE(watch.watching());

	std::vector<std::string> asked;
	std::string answerA(PoolList);
	auto ask = [&](const ClusterSpec &cluster) -> Result<std::string> {
		asked.push_back(cluster.clientId);
		if (cluster.clientId == "a")
			return answerA;
		return fail(Errc::Timeout, "no answer");
	};
	EXPECT_TRUE(watch.refresh(ask));
	EXPECT_EQ(asked, (std::vector<std::string>{ "a", "b" }));
	EXPECT_EQ(watch.look(clusterOf("a"), "rbd"),
		  "the pool 'rbd' is full: its quota of 64 MiB is reached");
	EXPECT_EQ(watch.look(clusterOf("a"), "quota-not-reached"), "");
	EXPECT_EQ(watch.look(clusterOf("b"), "rbd"), ""); /* its cluster did not answer */

	/* The same answer: no change. Room again: a change, and the pool is fine. */
	EXPECT_FALSE(watch.refresh(ask));
	answerA = "pool 2 'rbd' replicated size 1 flags hashpspool max_bytes 1073741824\n";
	EXPECT_TRUE(watch.refresh(ask));
	EXPECT_EQ(watch.look(clusterOf("a"), "rbd"), "");
}

TEST(PoolWatch, AnUnansweredRefreshKeepsWhatWasHeard)
{
	PoolWatch watch;
	(void)watch.look(clusterOf("a"), "rbd");
	bool answer = true;
	auto ask = [&](const ClusterSpec &) -> Result<std::string> {
		if (answer)
			return std::string(PoolList);
		return fail(Errc::Timeout, "no answer");
	};
	EXPECT_TRUE(watch.refresh(ask));
	answer = false;
	EXPECT_FALSE(watch.refresh(ask));
	EXPECT_NE(watch.look(clusterOf("a"), "rbd"), "");
}

TEST(PoolWatch, APoolNotLookedAtIsForgotten)
{
	PoolWatch watch(std::chrono::seconds(0));
	(void)watch.look(clusterOf("a"), "rbd");
	int asked = 0;
	std::this_thread::sleep_for(std::chrono::milliseconds(2));
	EXPECT_FALSE(watch.refresh([&](const ClusterSpec &) -> Result<std::string> {
		asked++;
		return std::string(PoolList);
	}));
	EXPECT_EQ(asked, 0);
	EXPECT_FALSE(watch.watching());
}

} /* namespace */

} /* namespace rbdvolume */
