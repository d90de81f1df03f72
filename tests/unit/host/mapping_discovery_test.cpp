/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Discovering krbd and rbd-nbd mappings from fake sysfs and /proc trees. */
#include "host/mapping_discovery.hpp"

#include <gtest/gtest.h>

#include "temp_dir.hpp"

namespace rbdvolume::testing {
namespace {

MappedImage image(std::string pool, std::string ns, std::string name, std::string snap,
		  std::string device, Driver driver, bool readOnly, std::string owner = {})
{
	return MappedImage{ std::move(pool),   std::move(ns),
			    std::move(name),   std::move(snap),
			    std::move(device), driver,
			    readOnly,	       {},
			    std::move(owner),  {} };
}

TEST(MappingDiscovery, KrbdDevicesFromSysfs)
{
	const TempDir root;
	/* Kernel attributes end with a newline; current_snap "-" is the image head. */
	root.write("sys/bus/rbd/devices/0/pool", "rbd\n");
	root.write("sys/bus/rbd/devices/0/pool_ns", "\n");
	root.write("sys/bus/rbd/devices/0/name", "data\n");
	root.write("sys/bus/rbd/devices/0/current_snap", "-\n");
	root.write("sys/block/rbd0/ro", "0\n");
	root.write("sys/bus/rbd/devices/3/pool", "ssd\n");
	root.write("sys/bus/rbd/devices/3/pool_ns", "tenant\n");
	root.write("sys/bus/rbd/devices/3/name", "db\n");
	root.write("sys/bus/rbd/devices/3/current_snap", "monday\n");
	root.write("sys/block/rbd3/ro", "1\n");
	const SystemRoots roots{ root.path() + "/sys", root.path() + "/proc" };
	EXPECT_EQ(
		listKrbdMappings(roots),
		(std::vector<MappedImage>{
			image("rbd", "", "data", "", "/dev/rbd0", Driver::Krbd, false),
			image("ssd", "tenant", "db", "monday", "/dev/rbd3", Driver::Krbd, true) }));
}

TEST(MappingDiscovery, NoRbdModuleMeansNoMappings)
{
	const TempDir root;
	const SystemRoots roots{ root.path() + "/sys", root.path() + "/proc" };
	EXPECT_TRUE(listKrbdMappings(roots).empty());
	EXPECT_TRUE(listNbdMappings(roots).empty());
}

TEST(MappingDiscovery, NbdDevicesFromTheirProcessCommandLine)
{
	const TempDir root;
	using namespace std::string_literals;
	root.write("sys/block/nbd0/pid", "4242\n");
	root.write("sys/block/nbd0/ro", "0\n");
	root.write("proc/4242/cmdline",
		   "/usr/bin/rbd-nbd\0--id\0vol\0--cookie\0c1\0map\0--try-netlink\0"
		   "--reattach-timeout\0300\0rbd/ns1/data\0"s);
	/* After a crash the unit re-attaches: the image follows `attach`. */
	root.write("sys/block/nbd2/pid", "77\n");
	root.write("sys/block/nbd2/ro", "1\n");
	root.write("proc/77/cmdline",
		   "rbd-nbd\0attach\0--device\0/dev/nbd2\0--cookie\0c2\0rbd/logs@snap\0"s);
	/* Connected, but not rbd-nbd: someone else's nbd device. */
	root.write("sys/block/nbd5/pid", "99\n");
	root.write("proc/99/cmdline", "nbd-client\0host\0/dev/nbd5\0"s);
	/* Not connected. */
	root.write("sys/block/nbd7/ro", "0\n");
	const SystemRoots roots{ root.path() + "/sys", root.path() + "/proc" };
	EXPECT_EQ(listNbdMappings(roots),
		  (std::vector<MappedImage>{
			  image("rbd", "ns1", "data", "", "/dev/nbd0", Driver::Nbd, false),
			  image("rbd", "", "logs", "snap", "/dev/nbd2", Driver::Nbd, true) }));
}

TEST(MappingDiscovery, ReattachedNbdIsFoundThroughProc)
{
	const TempDir root;
	using namespace std::string_literals;
	/* The kernel still names the first server, which died; the unit re-attached. */
	root.write("sys/block/nbd1/pid", "500\n");
	root.write("sys/block/nbd1/ro", "0\n");
	root.write("proc/612/cmdline",
		   "/usr/bin/rbd-nbd\0-d\0attach\0--device\0/dev/nbd1\0--cookie\0c1\0rbd/data\0"s);
	root.write("proc/613/cmdline", "sleep\0"
				       "1\0"s);
	const SystemRoots roots{ root.path() + "/sys", root.path() + "/proc" };
	EXPECT_EQ(listNbdMappings(roots),
		  (std::vector<MappedImage>{
			  image("rbd", "", "data", "", "/dev/nbd1", Driver::Nbd, false) }));
}

/* A stopped server (SIGSTOP) holds the device's I/O: its mapping says so, and how to resume. */
TEST(MappingDiscovery, AStoppedNbdServerIsAFault)
{
	const TempDir root;
	using namespace std::string_literals;
	root.write("sys/block/nbd0/pid", "4242\n");
	root.write("sys/block/nbd0/ro", "0\n");
	root.write("proc/4242/cmdline", "rbd-nbd\0map\0rbd/data\0"s);
	root.write("proc/4242/stat", "4242 (rbd-nbd) T 1 4242 4242 0 -1 4194560\n");
	root.write("sys/block/nbd1/pid", "612\n");
	root.write("sys/block/nbd1/ro", "0\n");
	root.write("proc/612/cmdline", "rbd-nbd\0map\0rbd/logs\0"s);
	root.write("proc/612/stat", "612 (rbd-nbd) S 1 612 612 0 -1 4194560\n");
	const SystemRoots roots{ root.path() + "/sys", root.path() + "/proc" };
	const std::vector<MappedImage> mapped = listNbdMappings(roots);
	ASSERT_EQ(mapped.size(), 2U);
	EXPECT_EQ(mapped[0].fault, "rbd-nbd (pid 4242) serving /dev/nbd0 is stopped: the device's "
				   "I/O waits until it runs again (kill -CONT 4242)");
	EXPECT_EQ(mapped[1].fault, "");
	EXPECT_EQ(processState(roots, "4242"), 'T');
	EXPECT_EQ(processState(roots, "1"), '\0');
}

TEST(MappingDiscovery, ImageSpecs)
{
	MappedImage parsed;
	EXPECT_TRUE(parseImageSpec("rbd/img", parsed));
	EXPECT_EQ(parsed.pool, "rbd");
	EXPECT_EQ(parsed.image, "img");
	for (const char *bad : { "", "img", "/img", "rbd/", "a/b/c/d" }) {
		MappedImage ignored;
		EXPECT_FALSE(parseImageSpec(bad, ignored)) << bad;
	}
	EXPECT_EQ(nbdImageArgument({ "rbd-nbd", "--device", "map", "map", "p/i" }), "p/i");
	EXPECT_EQ(nbdImageArgument({ "rbd-nbd", "list-mapped" }), "");
}

} /* namespace */
} /* namespace rbdvolume::testing */
