/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The per-volume rbd-nbd config: what the mapper writes, exactly, and reading it back. */
#include "host/drivers/nbd/nbd_config.hpp"

#include <gtest/gtest.h>

#include "fake_host.hpp"

namespace rbdvolume::testing {
namespace {

TEST(NbdConfig, CookieIsStableAndBoundToTheImage)
{
	VolumeSpec spec = volumeSpec();
	const std::string cookie = nbdCookie(mapRequestOf(spec));
	EXPECT_EQ(cookie, nbdCookie(mapRequestOf(volumeSpec())));
	EXPECT_EQ(cookie.rfind("rbd-volume.data.", 0), 0U) << cookie;
	EXPECT_EQ(cookie.size(), std::string("rbd-volume.data.").size() + 16);
	spec.image.radosNamespace = "tenant";
	EXPECT_NE(nbdCookie(mapRequestOf(spec)), cookie);
	spec = volumeSpec();
	spec.image.snapshot = "monday";
	EXPECT_NE(nbdCookie(mapRequestOf(spec)), cookie);
	EXPECT_NE(nbdCookie(mapRequestOf(volumeSpec("other"))), cookie);
	/* Settings that do not change which image it is keep the cookie. */
	spec = volumeSpec();
	spec.map.readOnly = true;
	spec.cluster.keyring = "/k";
	EXPECT_EQ(nbdCookie(mapRequestOf(spec)), cookie);
}

TEST(NbdConfig, CookieValueIsPinned)
{
	/* FNV-1a 64 of "rbd/data"; a change strands devices mapped by older versions. */
	EXPECT_EQ(nbdCookie(mapRequestOf(volumeSpec())), "rbd-volume.data.bba593f3562bf56c");
}

TEST(NbdConfig, Path)
{
	EXPECT_EQ(nbdConfigPath("/run/rbd-volume/nbd", "data"), "/run/rbd-volume/nbd/data.conf");
}

TEST(NbdConfig, FromTheSpec)
{
	VolumeSpec spec = volumeSpec();
	spec.image.radosNamespace = "tenant";
	spec.cluster.clientId = "vols";
	spec.cluster.keyfile = "/etc/rbd-volume/vols.key";
	spec.cluster.monitors = { "10.0.0.1", "10.0.0.2:6789" };
	spec.map.readOnly = true;
	spec.map.exclusive = true;
	spec.map.nbdOptions = { "reattach-timeout=120", "quiesce", "max_part=15", "io-timeout=30" };
	DriverTools tools;
	tools.rbdNbd = "/opt/bin/rbd-nbd";
	const NbdVolumeConfig config = nbdConfigFor(mapRequestOf(spec), tools);
	EXPECT_EQ(config.rbdNbd, "/opt/bin/rbd-nbd");
	EXPECT_EQ(config.image, "rbd/tenant/data");
	EXPECT_EQ(config.cookie, nbdCookie(mapRequestOf(spec)));
	EXPECT_EQ(config.cluster, spec.cluster);
	EXPECT_TRUE(config.readOnly);
	EXPECT_TRUE(config.exclusive);
	EXPECT_EQ(config.reattachTimeout, 120U);
	EXPECT_EQ(config.ioTimeout, 30U);
	EXPECT_EQ(config.options, (std::vector<std::string>{ "quiesce", "max_part=15" }));
}

TEST(NbdConfig, TimeoutsDefaultToNeverAbortAndFiveMinutes)
{
	const NbdVolumeConfig config = nbdConfigFor(mapRequestOf(volumeSpec()), DriverTools{});
	EXPECT_EQ(config.reattachTimeout, 300U);
	EXPECT_EQ(config.ioTimeout, 0U);
	EXPECT_TRUE(config.options.empty());
}

TEST(NbdConfig, FileText)
{
	VolumeSpec spec = volumeSpec();
	spec.cluster.keyring = "/etc/ceph/ceph.client.admin.keyring";
	spec.cluster.monitors = { "10.0.0.1", "10.0.0.2" };
	spec.map.exclusive = true;
	spec.map.nbdOptions = { "quiesce", "quiesce-hook=/usr/libexec/hook" };
	auto text = formatNbdConfig(nbdConfigFor(mapRequestOf(spec), DriverTools{}));
	ASSERT_TRUE(text) << text.error().message;
	EXPECT_EQ(*text, "# rbd-volume: what rbd-nbd@.service maps; rewritten on every map\n"
			 "rbd-nbd=/usr/bin/rbd-nbd\n"
			 "image=rbd/data\n"
			 "cookie=" +
				 nbdCookie(mapRequestOf(spec)) +
				 "\n"
				 "id=admin\n"
				 "keyring=/etc/ceph/ceph.client.admin.keyring\n"
				 "keyfile=\n"
				 "conf=/etc/ceph/ceph.conf\n"
				 "monitor=10.0.0.1\n"
				 "monitor=10.0.0.2\n"
				 "read-only=no\n"
				 "exclusive=yes\n"
				 "reattach-timeout=300\n"
				 "io-timeout=0\n"
				 "option=quiesce\n"
				 "option=quiesce-hook=/usr/libexec/hook\n");
}

TEST(NbdConfig, ReadsBackWhatItWrites)
{
	VolumeSpec spec = volumeSpec();
	spec.image.snapshot = "monday";
	spec.cluster.conf.clear();
	spec.cluster.keyfile = "/k";
	spec.cluster.monitors = { "v2:[fd00::1]:3300" };
	spec.map.readOnly = true;
	spec.map.nbdOptions = { "encryption-format=luks2", "io-timeout=5" };
	const NbdVolumeConfig config = nbdConfigFor(mapRequestOf(spec), DriverTools{});
	auto text = formatNbdConfig(config);
	ASSERT_TRUE(text);
	auto parsed = parseNbdConfig(*text, "data.conf");
	ASSERT_TRUE(parsed) << parsed.error().message;
	EXPECT_EQ(*parsed, config);
}

TEST(NbdConfig, RefusesNewlinesInValues)
{
	NbdVolumeConfig config = nbdConfigFor(mapRequestOf(volumeSpec()), DriverTools{});
	config.options = { "quiesce-hook=/x\nrbd-nbd=/bin/evil" };
	auto text = formatNbdConfig(config);
	ASSERT_FALSE(text);
	EXPECT_EQ(text.error().code, Errc::InvalidArgument);
}

TEST(NbdConfig, StrictWhenReading)
{
	const std::string good = "rbd-nbd=/usr/bin/rbd-nbd\nimage=rbd/data\ncookie=c\n";
	EXPECT_TRUE(parseNbdConfig(good, "f"));
	for (const std::string &bad : {
		     good + "colour=blue\n",
		     good + "read-only=maybe\n",
		     good + "reattach-timeout=-1\n",
		     good + "io-timeout=\n",
		     good + "exclusive\n",
		     std::string("rbd-nbd=/usr/bin/rbd-nbd\nimage=rbd/data\n"),
		     std::string("image=rbd/data\ncookie=c\n"),
		     std::string(""),
	     }) {
		auto parsed = parseNbdConfig(bad, "/run/rbd-volume/nbd/data.conf");
		ASSERT_FALSE(parsed) << bad;
		EXPECT_EQ(parsed.error().code, Errc::InvalidArgument);
		EXPECT_EQ(parsed.error().message.rfind("/run/rbd-volume/nbd/data.conf", 0), 0U);
	}
}

} /* namespace */
} /* namespace rbdvolume::testing */
