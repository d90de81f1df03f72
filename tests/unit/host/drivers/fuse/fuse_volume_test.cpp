/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The fuse driver's per-volume config and rbd-fuse's exact command line. */
#include "host/drivers/fuse/fuse_volume.hpp"

#include <gtest/gtest.h>

#include "host/unit_control.hpp"

namespace rbdvolume::testing {
namespace {

using Argv = std::vector<std::string>;

VolumeSpec volume()
{
	VolumeSpec spec;
	spec.name = "data";
	spec.image.pool = "rbd";
	spec.image.radosNamespace = "tenant";
	spec.image.name = "img";
	spec.cluster.conf = "/etc/ceph/ceph.conf";
	spec.cluster.clientId = "vol";
	spec.cluster.keyring = "/etc/ceph/ceph.client.vol.keyring";
	spec.cluster.monitors = { "192.0.2.1:6789", "[2001:db8::1]:3300" };
	return spec;
}

TEST(FuseVolume, ConfigRoundTrip)
{
	const FuseVolume described = FuseVolume::of(mapRequestOf(volume()));
	EXPECT_EQ(described.monitors, "192.0.2.1:6789,[2001:db8::1]:3300");
	auto parsed = parseFuseVolume(formatFuseVolume(described).value(), "data.conf");
	ASSERT_TRUE(parsed) << parsed.error().message;
	EXPECT_EQ(*parsed, described);

	auto bad = parseFuseVolume("pool=rbd\nimage=x\nsecret=1\n", "/run/x.conf");
	ASSERT_FALSE(bad);
	EXPECT_EQ(bad.error().message, "/run/x.conf:3: unknown key 'secret'");
	EXPECT_FALSE(parseFuseVolume("pool=rbd\n", "/run/x.conf"));
}

TEST(FuseVolume, RbdFuseRunsInTheForegroundOnOneImage)
{
	const FuseVolume described = FuseVolume::of(mapRequestOf(volume()));
	EXPECT_EQ(
		rbdFuseArgv("/usr/bin/rbd-fuse", described, "/run/rbd-volume/fuse/data"),
		(Argv{ "/usr/bin/rbd-fuse", "/run/rbd-volume/fuse/data", "-f", "-c",
		       "/etc/ceph/ceph.conf", "-p", "rbd", "--namespace", "tenant", "-r", "img" }));
	/* The identity goes through CEPH_ARGS: rbd-fuse has no --id, and argv is visible to all. */
	EXPECT_EQ(rbdFuseEnv(described),
		  (Argv{ "CEPH_ARGS=--id=vol --keyring=/etc/ceph/ceph.client.vol.keyring "
			 "--mon-host=192.0.2.1:6789,[2001:db8::1]:3300" }));

	FuseVolume plain = described;
	plain.radosNamespace.clear();
	plain.keyring.clear();
	plain.keyfile = "/etc/ceph/vol.secret";
	plain.monitors.clear();
	EXPECT_EQ(rbdFuseArgv("rbd-fuse", plain, "/m"),
		  (Argv{ "rbd-fuse", "/m", "-f", "-c", "/etc/ceph/ceph.conf", "-p", "rbd", "-r",
			 "img" }));
	EXPECT_EQ(rbdFuseEnv(plain), (Argv{ "CEPH_ARGS=--id=vol --keyfile=/etc/ceph/vol.secret" }));
}

TEST(FuseVolume, PathsAndUnitNames)
{
	const FusePaths paths{ "/run/rbd-volume/fuse" };
	EXPECT_EQ(paths.config("data"), "/run/rbd-volume/fuse/data.conf");
	EXPECT_EQ(paths.imageFile("data", "img"), "/run/rbd-volume/fuse/data/img");
	EXPECT_EQ(unitName("rbd-fuse", "data"), "rbd-fuse@data.service");
}

} /* namespace */
} /* namespace rbdvolume::testing */
