/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Observer: reading ownership, stacks and devices out of the host's tables. */
#include "engine/observer.hpp"

#include <gtest/gtest.h>

#include "engine_rig.hpp"
#include "spec_builder.hpp"

namespace rbdvolume::testing {

namespace {

const std::string Staging = "/run/rbd-volume/staging/vol";

VolumeSpec volSpec()
{
	return SpecBuilder("vol").target("/srv/a").build();
}

MountEntry entry(const std::string &target, const std::string &source, std::string owner = {},
		 std::string fsType = "ext4")
{
	return MountEntry{ target, source, "/", std::move(fsType), false, std::move(owner) };
}

MappedImage mapping(const std::string &device, std::string image = "vol")
{
	return MappedImage{
		"rbd", "", std::move(image), "", device, Driver::Krbd, false, {}, {}, {}
	};
}

TEST(Observer, MountDeviceOfANodeBindIsTheNode)
{
	EXPECT_EQ(mountDevice(MountEntry{ "/srv/a", "udev", "/rbd0", "devtmpfs", false, "" }),
		  "/dev/rbd0");
	EXPECT_EQ(mountDevice(MountEntry{ "/srv/a", "devtmpfs", "/nbd3", "devtmpfs", false, "" }),
		  "/dev/nbd3");
	EXPECT_EQ(mountDevice(entry("/srv/a", "/dev/rbd1")), "/dev/rbd1");
	EXPECT_EQ(mountDevice(entry("/srv/a", "tmpfs", "", "tmpfs")), "");
}

TEST(Observer, TopmostMountWins)
{
	const VolumeSpec spec = volSpec();
	Ownership owned;
	owned.mappedDevice = "/dev/rbd0";
	owned.staged = true;
	HostSnapshot snapshot{ { entry(Staging, "/dev/rbd0", "vol"), entry(Staging, "/dev/sdb") },
			       { mapping("/dev/rbd0") } };
	ObservedVolume seen = observeFrom(snapshot, spec, owned);
	ASSERT_TRUE(seen.staging);
	EXPECT_EQ(seen.staging->device, "/dev/sdb");
	EXPECT_FALSE(seen.staging->ours);
	/* Ours is still there, under it, and still recorded. */
	ASSERT_EQ(seen.covered.size(), 1U);
	EXPECT_EQ(seen.covered.front().path, Staging);
	EXPECT_TRUE(seen.owned.staged);

	snapshot = HostSnapshot{ { entry(Staging, "/dev/sdb"), entry(Staging, "/dev/rbd0", "vol") },
				 { mapping("/dev/rbd0") } };
	seen = observeFrom(snapshot, spec, owned);
	ASSERT_TRUE(seen.staging);
	EXPECT_EQ(seen.staging->device, "/dev/rbd0");
	EXPECT_TRUE(seen.staging->ours);
	EXPECT_TRUE(seen.covered.empty());
}

TEST(Observer, RecordedPathWithAForeignDeviceIsNotOurs)
{
	const VolumeSpec spec = volSpec();
	Ownership owned;
	owned.mappedDevice = "/dev/rbd0";
	owned.staged = true;
	owned.publishedTargets = { "/srv/a" };
	const HostSnapshot snapshot{ { entry(Staging, "/dev/sdb"), entry("/srv/a", "/dev/rbd0") },
				     { mapping("/dev/rbd0") } };
	const ObservedVolume seen = observeFrom(snapshot, spec, owned);
	ASSERT_TRUE(seen.staging);
	EXPECT_FALSE(seen.staging->ours);
	/* Unmarked, but recorded and on our device: ours. */
	ASSERT_NE(seen.target("/srv/a"), nullptr);
	EXPECT_TRUE(seen.target("/srv/a")->ours);
	EXPECT_FALSE(seen.owned.staged);
	EXPECT_TRUE(seen.recordStale);
}

TEST(Observer, MarkerMakesAMountOursWithoutARecord)
{
	const HostSnapshot snapshot{ { entry(Staging, "/dev/rbd0", "vol"),
				       entry("/srv/a", "/dev/rbd0", "other") },
				     { mapping("/dev/rbd0") } };
	const ObservedVolume seen = observeFrom(snapshot, volSpec(), Ownership{});
	ASSERT_TRUE(seen.staging);
	EXPECT_TRUE(seen.staging->ours);
	EXPECT_TRUE(seen.owned.staged);
	/* Another volume's marker is not ours, whatever the device. */
	EXPECT_FALSE(seen.target("/srv/a")->ours);
	EXPECT_FALSE(seen.mappingIsOurs());
}

TEST(Observer, PendingMapIsAdoptedWhenTheImageShowsMapped)
{
	Ownership owned;
	owned.mapPending = true;
	const HostSnapshot snapshot{ {}, { mapping("/dev/rbd9", "other"), mapping("/dev/rbd4") } };
	const ObservedVolume seen = observeFrom(snapshot, volSpec(), owned);
	EXPECT_TRUE(seen.mappingIsOurs());
	EXPECT_EQ(seen.owned.mappedDevice, "/dev/rbd4");
	EXPECT_FALSE(seen.owned.mapPending);
	EXPECT_TRUE(seen.recordStale);
}

TEST(Observer, PendingMapThatDidNotHappenIsForgotten)
{
	Ownership owned;
	owned.mapPending = true;
	const ObservedVolume seen = observeFrom(HostSnapshot{}, volSpec(), owned);
	EXPECT_FALSE(seen.mapping);
	EXPECT_FALSE(seen.owned.mapPending);
	EXPECT_TRUE(seen.owned.empty());
	EXPECT_TRUE(seen.recordStale);
}

TEST(Observer, VanishedDeviceIsForgottenButItsMountsStayOurs)
{
	Ownership owned;
	owned.mappedDevice = "/dev/rbd0";
	owned.formatted = true;
	owned.staged = true;
	owned.publishedTargets = { "/srv/a", "/srv/gone" };
	/* Unmarked mounts: only the record says they are ours. */
	const HostSnapshot snapshot{ { entry(Staging, "/dev/rbd0"), entry("/srv/a", "/dev/rbd0") },
				     {} };
	const ObservedVolume seen = observeFrom(snapshot, volSpec(), owned);
	EXPECT_FALSE(seen.mapping);
	EXPECT_EQ(seen.owned.mappedDevice, "");
	ASSERT_TRUE(seen.staging);
	EXPECT_TRUE(seen.staging->ours);
	ASSERT_NE(seen.target("/srv/a"), nullptr);
	EXPECT_TRUE(seen.target("/srv/a")->ours);
	EXPECT_TRUE(seen.owned.staged);
	EXPECT_EQ(seen.owned.publishedTargets, std::vector<std::string>{ "/srv/a" });
	EXPECT_TRUE(seen.owned.formatted);
	EXPECT_TRUE(seen.recordStale);
}

TEST(Observer, RecordedMappingWinsWhenTheImageIsMappedTwice)
{
	Ownership owned;
	owned.mappedDevice = "/dev/rbd5";
	const HostSnapshot snapshot{ {}, { mapping("/dev/rbd2"), mapping("/dev/rbd5") } };
	const ObservedVolume seen = observeFrom(snapshot, volSpec(), owned);
	ASSERT_TRUE(seen.mapping);
	EXPECT_EQ(seen.mapping->device, "/dev/rbd5");
	EXPECT_TRUE(seen.mappingIsOurs());
	EXPECT_FALSE(seen.recordStale);
}

TEST(Observer, RecordedTargetsOutsideTheSpecAreObserved)
{
	Ownership owned;
	owned.mappedDevice = "/dev/rbd0";
	owned.publishedTargets = { "/srv/old" };
	const HostSnapshot snapshot{ { entry("/srv/old", "/dev/rbd0", "vol") },
				     { mapping("/dev/rbd0") } };
	const ObservedVolume seen = observeFrom(snapshot, volSpec(), owned);
	ASSERT_NE(seen.target("/srv/old"), nullptr);
	EXPECT_TRUE(seen.target("/srv/old")->ours);
	EXPECT_EQ(seen.target("/srv/a"), nullptr);
	EXPECT_FALSE(seen.recordStale);
}

TEST(Observer, ProbesOnlyFilesystemVolumes)
{
	Rig fs(SpecBuilder("vol").create(GiB).build());
	ASSERT_NE(fs.converge(), 0U);
	auto seen = fs.dryRun();
	ASSERT_TRUE(seen);
	EXPECT_EQ(seen->observed.probe, (ProbeResult{ ProbeKind::Signature, "ext4" }));

	Rig block(SpecBuilder("vol").block().create(GiB).build());
	block.world.addImage(block.spec.image, "xfs");
	ASSERT_NE(block.converge(), 0U);
	seen = block.dryRun();
	ASSERT_TRUE(seen);
	EXPECT_EQ(seen->observed.probe.kind, ProbeKind::Unprobed);
	EXPECT_TRUE(seen->plan.conflicts.empty());
}

TEST(Observer, ReadingTheTablesFailsCleanly)
{
	FakeWorld world;
	Host host = world.host();
	world.failNext(FakeOp::ReadTable, Errc::Io);
	auto snapshot = takeSnapshot(host);
	ASSERT_FALSE(snapshot);
	EXPECT_EQ(snapshot.error().code, Errc::Io);
	world.failNext(FakeOp::List, Errc::PermissionDenied);
	snapshot = takeSnapshot(host);
	ASSERT_FALSE(snapshot);
	EXPECT_EQ(snapshot.error().code, Errc::PermissionDenied);
	EXPECT_TRUE(takeSnapshot(host));
}

} /* namespace */

} /* namespace rbdvolume::testing */
