/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* MapperSet joins the drivers' lists, maps with the chosen driver, unmaps with the owner. */
#include "host/drivers/mapper_set.hpp"

#include <optional>

#include <gtest/gtest.h>

#include "temp_dir.hpp"

namespace rbdvolume::testing {
namespace {

/* A driver that keeps its mappings in a list and logs what it was asked. */
class ListMapper : public Mapper
{
public:
	ListMapper(Driver driver, std::string prefix) : driver_(driver), prefix_(std::move(prefix))
	{
	}

	Result<std::vector<MappedImage>> list() override { return mapped; }
	Result<std::vector<std::string>> orphans() override { return orphaned; }
	Result<Change> stopOrphan(const MapRequest & /*spec*/) override
	{
		return Change::Unchanged;
	}
	Result<Change> followImageSize(const MapRequest & /*spec*/) override
	{
		return Change::Unchanged;
	}
	Result<std::string> map(const MapRequest &spec) override
	{
		if (refusal) {
			log.push_back("refused " + spec.image.display());
			return tl::make_unexpected(*refusal);
		}
		MappedImage image{ spec.image.pool,
				   "",
				   spec.image.name,
				   "",
				   prefix_ + std::to_string(mapped.size()),
				   driver_,
				   false,
				   {},
				   {},
				   {} };
		mapped.push_back(image);
		log.push_back("map " + image.device);
		return image.device;
	}
	Result<Change> unmap(const MapRequest & /*spec*/, const std::string &device) override
	{
		log.push_back("unmap " + device);
		std::erase_if(mapped, [&](const MappedImage &m) { return m.device == device; });
		return Change::Changed;
	}

	std::vector<MappedImage> mapped;
	std::vector<std::string> orphaned;
	std::vector<std::string> log;
	std::optional<Error> refusal; /* every map fails with it */

private:
	Driver driver_;
	std::string prefix_;
};

VolumeSpec volume(Driver driver)
{
	VolumeSpec spec;
	spec.name = "vol";
	spec.image.pool = "rbd";
	spec.image.name = "img";
	spec.map.driver = driver;
	return spec;
}

TEST(MapperSet, MapsWithTheChosenDriverAndUnmapsWithTheOwner)
{
	const TempDir root; /* no /sys/bus/rbd, no nbd module: auto means fuse */
	ListMapper krbd(Driver::Krbd, "/dev/rbd");
	ListMapper nbd(Driver::Nbd, "/dev/nbd");
	ListMapper fuse(Driver::Fuse, "/dev/loop");
	MapperSet set(krbd, nbd, fuse, SystemRoots{ root.path() + "/sys", root.path() + "/proc" });

	EXPECT_EQ(*set.map(mapRequestOf(volume(Driver::Auto))), "/dev/loop0");
	EXPECT_EQ(*set.map(mapRequestOf(volume(Driver::Nbd))), "/dev/nbd0");
	EXPECT_EQ(*set.map(mapRequestOf(volume(Driver::Krbd))), "/dev/rbd0");
	EXPECT_EQ(set.list()->size(), 3U);

	EXPECT_EQ(*set.unmap(mapRequestOf(volume(Driver::Auto)), "/dev/nbd0"), Change::Changed);
	EXPECT_EQ(nbd.log, (std::vector<std::string>{ "map /dev/nbd0", "unmap /dev/nbd0" }));
	EXPECT_TRUE(fuse.log.size() == 1 && krbd.log.size() == 1) << "only the owner unmaps";
	EXPECT_EQ(*set.unmap(mapRequestOf(volume(Driver::Auto)), "/dev/nbd0"), Change::Unchanged);
}

/* A pass's one look joins every driver's mappings and orphans. */
TEST(MapperSet, ViewJoinsEveryDriversMappingsAndOrphans)
{
	const TempDir root;
	ListMapper krbd(Driver::Krbd, "/dev/rbd");
	ListMapper nbd(Driver::Nbd, "/dev/nbd");
	ListMapper fuse(Driver::Fuse, "/dev/loop");
	MapperSet set(krbd, nbd, fuse, SystemRoots{ root.path() + "/sys", root.path() + "/proc" });
	ASSERT_TRUE(set.map(mapRequestOf(volume(Driver::Krbd))));
	ASSERT_TRUE(set.map(mapRequestOf(volume(Driver::Fuse))));
	nbd.orphaned = { "cut" };
	fuse.orphaned = { "half" };

	auto seen = set.view();
	ASSERT_TRUE(seen) << seen.error().message;
	ASSERT_EQ(seen->mappings.size(), 2U);
	EXPECT_EQ(seen->mappings[0].device, "/dev/rbd0");
	EXPECT_EQ(seen->mappings[1].device, "/dev/loop0");
	EXPECT_EQ(seen->orphans, (std::vector<std::string>{ "cut", "half" }));
}

/* With a watch, the view says which devices' requests get no answer, and forgets the unmapped. */
TEST(MapperSet, ViewNamesStalledDevices)
{
	const TempDir root;
	const SystemRoots roots{ root.path() + "/sys", root.path() + "/proc" };
	/* reads and writes completed, 2 requests in flight */
	root.write("sys/block/rbd0/stat", "1 0 8 1 5 0 40 3 2 4 4 0 0 0 0 0 0\n");
	root.write("sys/block/loop0/stat", "1 0 8 1 5 0 40 3 0 4 4 0 0 0 0 0 0\n");
	IoStallWatch stalls(roots, std::chrono::milliseconds(0));
	ListMapper krbd(Driver::Krbd, "/dev/rbd");
	ListMapper nbd(Driver::Nbd, "/dev/nbd");
	ListMapper fuse(Driver::Fuse, "/dev/loop");
	MapperSet set(krbd, nbd, fuse, roots, &stalls);
	ASSERT_TRUE(set.map(mapRequestOf(volume(Driver::Krbd))));
	ASSERT_TRUE(set.map(mapRequestOf(volume(Driver::Fuse))));

	auto seen = set.view();
	ASSERT_TRUE(seen) << seen.error().message;
	ASSERT_EQ(seen->mappings.size(), 2U);
	EXPECT_NE(seen->mappings[0].stall.find("no answer from the cluster since"),
		  std::string::npos)
		<< seen->mappings[0].stall;
	EXPECT_EQ(seen->mappings[1].stall, "") << "nothing waits on the loop device";

	krbd.mapped.clear();
	ASSERT_TRUE(set.view());
	root.write("sys/block/rbd0/stat", "1 0 8 1 6 0 48 3 0 4 4 0 0 0 0 0 0\n");
	EXPECT_FALSE(stalls.changed())
		<< "rbd0, unmapped, is no longer watched: its answer is no news";
}

/* A feature the kernel's rbd lacks: auto goes on to nbd; a spec that says krbd gets the error. */
TEST(MapperSet, AutoFallsBackWhenKrbdCannotMapTheImage)
{
	const TempDir root;
	root.write("sys/bus/rbd/supported_features", "0x1bf\n");
	root.write("sys/module/nbd/refcnt", "0\n");
	ListMapper krbd(Driver::Krbd, "/dev/rbd");
	ListMapper nbd(Driver::Nbd, "/dev/nbd");
	ListMapper fuse(Driver::Fuse, "/dev/loop");
	MapperSet set(krbd, nbd, fuse, SystemRoots{ root.path() + "/sys", root.path() + "/proc" });
	krbd.refusal = Error{ Errc::Unsupported, "unsupported by krbd: ... journaling", ENXIO };

	EXPECT_EQ(*set.map(mapRequestOf(volume(Driver::Auto))), "/dev/nbd0");
	auto explicitKrbd = set.map(mapRequestOf(volume(Driver::Krbd)));
	ASSERT_FALSE(explicitKrbd);
	EXPECT_EQ(explicitKrbd.error().code, Errc::Unsupported);
	EXPECT_EQ(nbd.log, (std::vector<std::string>{ "map /dev/nbd0" }));

	/* Any other failure is krbd's to report, not a reason to move the volume. */
	krbd.refusal = Error{ Errc::PermissionDenied,
			      "rbd: map failed: (1) Operation not permitted", EPERM };
	EXPECT_EQ(set.map(mapRequestOf(volume(Driver::Auto))).error().code, Errc::PermissionDenied);
	EXPECT_EQ(nbd.log.size(), 1U);
	EXPECT_TRUE(fuse.log.empty());
}

} /* namespace */
} /* namespace rbdvolume::testing */
