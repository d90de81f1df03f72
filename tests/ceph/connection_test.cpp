/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* LibrbdCluster's connections: identities, keys, monitors, bounded waits, the cache. */
#include <atomic>
#include <thread>
#include <vector>

#include <sys/socket.h>

#include <gtest/gtest.h>

#include "ceph_fixture.hpp"
#include "cluster_harness.hpp"
#include "common/unique_fd.hpp"
#include "host/ceph/librbd_cluster.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

namespace rbdvolume::testing {

namespace {

using std::chrono::seconds;

/* A port on 127.0.0.1 where nothing listens (bound once, then released). */
int closedPort()
{
	const UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
	sockaddr_in address{};
	address.sin_family = AF_INET;
	address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t size = sizeof(address);
	auto *generic = reinterpret_cast<sockaddr *>(&address);
	if (!fd.valid() || bind(fd.get(), generic, size) != 0 ||
	    getsockname(fd.get(), generic, &size) != 0)
		return -1;
	return ntohs(address.sin_port);
}

VolumeSpec existingImage(LibrbdCluster &ceph)
{
	VolumeSpec spec = specFor(uniqueImageName("conn"), createSpec(8 * MiB));
	auto created = ceph.ensureImage(imageRequestOf(spec));
	EXPECT_TRUE(created) << created.error().message;
	return spec;
}

TEST(CephConnection, AWrongKeyIsPermissionDeniedAtOnce)
{
	LibrbdCluster ceph(CephTimeouts{ seconds(10), seconds(30) });
	const std::string key = randomKey();
	ASSERT_FALSE(key.empty());
	VolumeSpec spec = specFor(uniqueImageName("wrong-key"), createSpec(8 * MiB));
	spec.cluster.keyring.clear();
	spec.cluster.keyfile = writeFile("wrong.key", key + "\n");

	const auto start = Clock::now();
	auto result = ceph.ensureImage(imageRequestOf(spec));
	ASSERT_FALSE(result);
	EXPECT_LT(secondsSince(start), 5.0);
	EXPECT_EQ(result.error().code, Errc::PermissionDenied);
	EXPECT_EQ(result.error().message.rfind("authentication as client.test failed at ", 0), 0U)
		<< result.error().message;
	EXPECT_NE(result.error().message.find(": check the key in keyfile " + spec.cluster.keyfile),
		  std::string::npos)
		<< result.error().message;
	EXPECT_EQ(result.error().message.find(key), std::string::npos);
	EXPECT_EQ(ceph.connectionCount(), 0U);
}

TEST(CephConnection, AKeyfileWithTheRightKeyConnects)
{
	LibrbdCluster ceph;
	VolumeSpec spec = specFor(uniqueImageName("keyfile"), createSpec(8 * MiB));
	spec.cluster.keyring.clear();
	spec.cluster.keyfile = cluster().env().testKeyfile;

	auto result = ceph.ensureImage(imageRequestOf(spec));
	ASSERT_TRUE(result) << result.error().message;
	EXPECT_EQ(result->change, Change::Changed);
}

TEST(CephConnection, MonitorsInTheSpecNeedNoConfFile)
{
	LibrbdCluster ceph;
	VolumeSpec spec = existingImage(ceph);
	spec.cluster.conf = cluster().dir() + "/no-such.conf";
	spec.cluster.monitors = { "v2:" + cluster().env().monHost };

	auto info = ceph.imageInfo(imageRequestOf(spec));
	ASSERT_TRUE(info) << info.error().message;
	EXPECT_EQ(info->sizeBytes, 8 * MiB);

	spec.cluster.monitors.clear();
	auto noMonitors = ceph.imageInfo(imageRequestOf(spec));
	ASSERT_FALSE(noMonitors);
	EXPECT_EQ(noMonitors.error().code, Errc::NotFound);
	EXPECT_EQ(noMonitors.error().message,
		  "ceph config " + spec.cluster.conf +
			  " does not exist and the spec names no monitors");
}

TEST(CephConnection, UnreachableMonitorsTimeOutWithinTheBoundAndAreRetried)
{
	LibrbdCluster ceph(CephTimeouts{ seconds(3), seconds(5) });
	VolumeSpec spec = specFor(uniqueImageName("unreachable"), createSpec(8 * MiB));
	const int port = closedPort();
	ASSERT_GT(port, 0);
	spec.cluster.monitors = { "127.0.0.1:" + std::to_string(port) };

	const auto start = Clock::now();
	auto result = ceph.ensureImage(imageRequestOf(spec));
	const double took = secondsSince(start);
	ASSERT_FALSE(result);
	EXPECT_EQ(result.error().code, Errc::Timeout) << result.error().message;
	EXPECT_EQ(result.error().message,
		  "cannot reach the cluster at 127.0.0.1:" + std::to_string(port) +
			  " within 3 s (connecting as client.test)");
	EXPECT_GE(took, 2.5);
	EXPECT_LT(took, 3 + 5.0);
	EXPECT_EQ(ceph.connectionCount(), 0U);

	/* The failure was not cached: the right monitors connect the same object. */
	spec.cluster.monitors = { "v2:" + cluster().env().monHost };
	auto reachable = ceph.ensureImage(imageRequestOf(spec));
	ASSERT_TRUE(reachable) << reachable.error().message;
	EXPECT_EQ(reachable->change, Change::Changed);
}

/*
 * A monitor named by a host name that does not resolve (a boot before DNS):
 * librados refuses the list with EINVAL, as it would a bad key; the error
 * names the host and is a cluster not reachable yet (rbd-volumectl: 75).
 */
TEST(CephConnection, AMonitorNameThatDoesNotResolveIsAClusterNotReachableYet)
{
	LibrbdCluster ceph(CephTimeouts{ seconds(3), seconds(5) });
	VolumeSpec spec = specFor(uniqueImageName("noname"), createSpec(8 * MiB));
	spec.cluster.monitors = { "v2:" + cluster().env().monHost, "mon.rbdv-test.invalid:6789" };
	auto result = ceph.ensureImage(imageRequestOf(spec));
	ASSERT_FALSE(result);
	EXPECT_EQ(result.error().code, Errc::Timeout) << result.error().message;
	/* then getaddrinfo's reason: "Name or service not known" with a resolver to ask */
	const std::string &message = result.error().message;
	EXPECT_EQ(message.rfind("cannot reach the cluster at ", 0), 0U) << message;
	EXPECT_NE(message.find(": the monitor host name mon.rbdv-test.invalid does not resolve: "),
		  std::string::npos)
		<< message;
	EXPECT_TRUE(message.ends_with(" (connecting as client.test)")) << message;
	EXPECT_EQ(ceph.connectionCount(), 0U);
}

/*
 * The cluster unreachable (a boot before the network): volumes that wait on
 * one connect share its failure, one timeout in all, not one each in turn.
 */
TEST(CephConnection, CallsWaitingOnAConnectThatFailsShareItsFailure)
{
	LibrbdCluster ceph(CephTimeouts{ seconds(3), seconds(5) });
	const int port = closedPort();
	ASSERT_GT(port, 0);
	constexpr int Workers = 4;
	std::vector<double> took(Workers);
	std::vector<Errc> codes(Workers, Errc::Internal);
	std::vector<std::thread> workers;
	workers.reserve(Workers);
	for (int i = 0; i < Workers; ++i) {
		workers.emplace_back([&, i] {
			VolumeSpec spec = specFor(uniqueImageName("shared"), createSpec(8 * MiB));
			spec.cluster.monitors = { "127.0.0.1:" + std::to_string(port) };
			const auto start = Clock::now();
			auto result = ceph.ensureImage(imageRequestOf(spec));
			took[static_cast<size_t>(i)] = secondsSince(start);
			if (!result)
				codes[static_cast<size_t>(i)] = result.error().code;
		});
	}
	for (std::thread &worker : workers)
		worker.join();
	for (int i = 0; i < Workers; ++i) {
		EXPECT_EQ(codes[static_cast<size_t>(i)], Errc::Timeout) << i;
		/* One connect timeout (3 s) and some slack; in turn, the last would wait 12 s. */
		EXPECT_LT(took[static_cast<size_t>(i)], 3 + 3.0) << i;
	}

	/* Not kept past them: the next call tries again, and waits its own timeout. */
	VolumeSpec later = specFor(uniqueImageName("later"), createSpec(8 * MiB));
	later.cluster.monitors = { "127.0.0.1:" + std::to_string(port) };
	const auto start = Clock::now();
	EXPECT_FALSE(ceph.ensureImage(imageRequestOf(later)));
	EXPECT_GE(secondsSince(start), 2.5);
}

TEST(CephConnection, OneConnectionPerIdentityIsReused)
{
	LibrbdCluster ceph;
	const VolumeSpec spec = existingImage(ceph);
	ASSERT_TRUE(ceph.imageInfo(imageRequestOf(spec)));
	ASSERT_TRUE(ceph.checkSoleWriter(imageRequestOf(spec)));
	EXPECT_EQ(ceph.connectionCount(), 1U);

	VolumeSpec other = spec;
	other.cluster.keyring.clear();
	other.cluster.keyfile = cluster().env().testKeyfile;
	ASSERT_TRUE(ceph.imageInfo(imageRequestOf(other)));
	EXPECT_EQ(ceph.connectionCount(), 2U);
}

TEST(CephConnection, WorkerThreadsShareOneConnection)
{
	LibrbdCluster ceph;
	const VolumeSpec spec = existingImage(ceph);
	std::atomic<int> good = 0;
	constexpr int Workers = 8;
	std::vector<std::thread> workers;
	workers.reserve(Workers);
	for (int i = 0; i < Workers; ++i) {
		workers.emplace_back([&] {
			VolumeSpec mine = specFor(uniqueImageName("thread"), createSpec(8 * MiB));
			if (ceph.ensureImage(imageRequestOf(mine)) &&
			    ceph.imageInfo(imageRequestOf(spec)) &&
			    ceph.checkSoleWriter(imageRequestOf(mine)))
				++good;
		});
	}
	for (std::thread &worker : workers)
		worker.join();
	EXPECT_EQ(good.load(), Workers);
	EXPECT_EQ(ceph.connectionCount(), 1U);
}

} /* namespace */

} /* namespace rbdvolume::testing */
