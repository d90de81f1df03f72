/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Stage, publish, drift, restart and teardown with the real engine on loop devices. */
#include <algorithm>
#include <fcntl.h>
#include <unistd.h>

#include "common/fs_util.hpp"
#include "common/unique_fd.hpp"
#include "engine_fixture.hpp"
#include "host/drivers/fuse/loop_device.hpp"
#include "shell.hpp"

namespace rbdvolume::testing {
namespace {

/* Published volume: staging from the mapped device, both targets bound to it. */
void expectPublished(const VolumeSpec &spec, bool readOnly)
{
	const auto staging = mountAt(spec.staging.path);
	ASSERT_TRUE(staging) << "staging not mounted";
	const std::string device = mountDevice(*staging);
	EXPECT_EQ(device.rfind("/dev/loop", 0), 0U) << device;
	EXPECT_EQ(staging->readOnly, readOnly);
	EXPECT_EQ(staging->owner, spec.name);
	for (const PublishTarget &target : spec.publish) {
		const auto mount = mountAt(target.path);
		ASSERT_TRUE(mount) << target.path << " not mounted";
		EXPECT_EQ(mountDevice(*mount), device) << target.path;
		EXPECT_EQ(mount->readOnly, readOnly || target.readOnly) << target.path;
		EXPECT_EQ(mount->owner, spec.name) << target.path;
	}
}

void expectGone(EngineOnLoop &fixture, const VolumeSpec &spec, LoopImages &images)
{
	(void)fixture;
	EXPECT_FALSE(mountAt(spec.staging.path)) << "staging still mounted";
	for (const PublishTarget &target : spec.publish)
		EXPECT_FALSE(mountAt(target.path)) << target.path << " still mounted";
	auto mapped = images.list();
	ASSERT_TRUE(mapped);
	EXPECT_TRUE(mapped->empty()) << "still mapped";
}

class Lifecycle : public EngineOnLoop
{
protected:
	void upAndDown(const VolumeSpec &volume, bool readOnly)
	{
		ASSERT_GE(converge(volume, Intent::Up), 1);
		expectPublished(volume, readOnly);
		EXPECT_TRUE(plan(volume, Intent::Up).plan.empty()) << "a second pass plans nothing";

		ASSERT_GE(converge(volume, Intent::Down), 1);
		expectGone(*this, volume, real_->images);
		EXPECT_TRUE(plan(volume, Intent::Down).plan.empty());
		auto record = real_->records.load(volume.name);
		ASSERT_TRUE(record);
		EXPECT_TRUE(record->mappedDevice.empty());
		EXPECT_FALSE(record->staged);
		EXPECT_TRUE(record->publishedTargets.empty());
	}
};

TEST_F(Lifecycle, Ext4UpWritesAndDown)
{
	const VolumeSpec volume = simpleSpec("ext4vol");
	ASSERT_GE(converge(volume, Intent::Up), 1);
	shellOk("echo hello > " + dir_ + "/a/file && sync");
	EXPECT_EQ(shellOk("cat " + dir_ + "/b/file"), "hello\n") << "both targets show one fs";
	ASSERT_GE(converge(volume, Intent::Down), 1);
	expectGone(*this, volume, real_->images);

	/* Up again: the same filesystem, not a new one. */
	ASSERT_GE(converge(volume, Intent::Up), 1);
	EXPECT_EQ(shellOk("cat " + dir_ + "/a/file"), "hello\n");
	ASSERT_GE(converge(volume, Intent::Down), 1);
}

TEST_F(Lifecycle, Ext4)
{
	upAndDown(simpleSpec("ext4vol"), false);
}

TEST_F(Lifecycle, Xfs)
{
	upAndDown(simpleSpec("xfsvol", "[filesystem]\ntype = \"xfs\"\n"), false);
}

TEST_F(Lifecycle, BlockMode)
{
	const VolumeSpec volume = spec("blockvol", R"(mode = "block"
[image]
pool = "rbd"
name = "blockvol"
[image.create]
size = "64M"
[staging]
path = "@DIR@/staging/blockvol"
[[publish]]
path = "@DIR@/dev-a"
[[publish]]
path = "@DIR@/dev-b"
)");
	ASSERT_GE(converge(volume, Intent::Up), 1);
	expectPublished(volume, false);
	/* The target is the device itself: write through one, read through the other. */
	shellOk("printf block-data | dd of=" + dir_ + "/dev-a conv=notrunc status=none");
	EXPECT_EQ(shellOk("head -c 10 " + dir_ + "/dev-b"), "block-data");
	EXPECT_TRUE(plan(volume, Intent::Up).plan.empty());
	ASSERT_GE(converge(volume, Intent::Down), 1);
	expectGone(*this, volume, real_->images);
}

TEST_F(Lifecycle, ReadOnlySnapshotIsReadOnlyEverywhere)
{
	/* A formatted image and its "snapshot": a copy mapped read-only. */
	const VolumeSpec source = simpleSpec("data");
	ASSERT_GE(converge(source, Intent::Up), 1);
	shellOk("echo snap > " + dir_ + "/a/file && sync");
	ASSERT_GE(converge(source, Intent::Down), 1);
	shellOk("cp --sparse=always " + dir_ + "/images/rbd#data.img '" + dir_ +
		"/images/rbd#data@monday.img'");

	const VolumeSpec snap = spec("snap", R"([image]
pool = "rbd"
name = "data"
snapshot = "monday"
[staging]
path = "@DIR@/staging/snap"
[[publish]]
path = "@DIR@/ra"
[[publish]]
path = "@DIR@/rb"
)");
	ASSERT_GE(converge(snap, Intent::Up), 1);
	expectPublished(snap, true);
	EXPECT_EQ(shellOk("cat " + dir_ + "/rb/file"), "snap\n");
	const int fd = open((dir_ + "/ra/new").c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	EXPECT_EQ(fd, -1) << "a read-only volume accepted a write";
	if (fd >= 0)
		close(fd);
	ASSERT_GE(converge(snap, Intent::Down), 1);
}

TEST_F(Lifecycle, ReadOnlyTargetOfAWritableVolume)
{
	const VolumeSpec volume = spec("mixed", R"([image]
pool = "rbd"
name = "mixed"
[image.create]
size = "256M"
[staging]
path = "@DIR@/staging/mixed"
[[publish]]
path = "@DIR@/rw"
[[publish]]
path = "@DIR@/ro"
read-only = true
)");
	ASSERT_GE(converge(volume, Intent::Up), 1);
	EXPECT_FALSE(mountAt(dir_ + "/rw")->readOnly);
	EXPECT_TRUE(mountAt(dir_ + "/ro")->readOnly);
	ASSERT_GE(converge(volume, Intent::Down), 1);
}

TEST_F(Lifecycle, RestartAdoptsWithoutChangingAnything)
{
	const VolumeSpec volume = simpleSpec("adopt");
	ASSERT_GE(converge(volume, Intent::Up), 1);
	const std::string before =
		shellOk("findmnt -rn -o TARGET,SOURCE,OPTIONS | grep '" + dir_ + "'");

	restart();
	const PassOutcome outcome = pass(volume, Intent::Up);
	EXPECT_TRUE(outcome.plan.empty()) << formatPlan(outcome.plan, volume);
	EXPECT_TRUE(outcome.report.outcomes.empty());
	EXPECT_EQ(shellOk("findmnt -rn -o TARGET,SOURCE,OPTIONS | grep '" + dir_ + "'"), before);
	ASSERT_GE(converge(volume, Intent::Down), 1);
}

TEST_F(Lifecycle, RestartWithoutRecordsStillRecognisesOurMountsByMarker)
{
	const VolumeSpec volume = simpleSpec("marker");
	ASSERT_GE(converge(volume, Intent::Up), 1);
	/* The record of the mounts is lost, the mapping's with it: markers still name the mounts. */
	Ownership record = *real_->records.load(volume.name);
	record.staged = false;
	record.publishedTargets.clear();
	ASSERT_TRUE(real_->records.save(volume.name, record));
	restart();
	EXPECT_TRUE(plan(volume, Intent::Up).plan.empty());
	ASSERT_GE(converge(volume, Intent::Down), 1);
	expectGone(*this, volume, real_->images);
}

TEST_F(Lifecycle, DriftIsRestoredByTheNextPass)
{
	const VolumeSpec volume = simpleSpec("drift");
	ASSERT_GE(converge(volume, Intent::Up), 1);
	shellOk("echo kept > " + dir_ + "/a/file && sync");

	shellOk("umount " + dir_ + "/b");
	EXPECT_EQ(converge(volume, Intent::Up), 1);
	expectPublished(volume, false);

	/* Staging lost under live binds: remounted; the binds never moved. */
	shellOk("umount " + volume.staging.path);
	EXPECT_EQ(converge(volume, Intent::Up), 1);
	expectPublished(volume, false);
	EXPECT_EQ(shellOk("cat " + volume.staging.path + "/file"), "kept\n");
	ASSERT_GE(converge(volume, Intent::Down), 1);
}

TEST_F(Lifecycle, PublishTargetAddedAndRemoved)
{
	VolumeSpec volume = simpleSpec("targets");
	ASSERT_GE(converge(volume, Intent::Up), 1);
	volume.publish.push_back(PublishTarget{ dir_ + "/c", false, {} });
	EXPECT_EQ(converge(volume, Intent::Up), 1);
	expectPublished(volume, false);

	const PublishTarget dropped = volume.publish.front();
	volume.publish.erase(volume.publish.begin());
	EXPECT_EQ(converge(volume, Intent::Up), 1);
	EXPECT_FALSE(mountAt(dropped.path)) << "a removed target stays mounted";
	expectPublished(volume, false);
	ASSERT_GE(converge(volume, Intent::Down), 1);
	expectGone(*this, volume, real_->images);
}

TEST_F(Lifecycle, ForeignMountsAreReportedAndNeverUnmounted)
{
	const VolumeSpec volume = simpleSpec("foreign");
	ASSERT_TRUE(makeDirectories(dir_ + "/b"));
	shellOk("mount -t tmpfs someone-else " + dir_ + "/b");
	/* A target it can never take: refused before the first step, nothing made. */
	ASSERT_EQ(converge(volume, Intent::Up), 0);
	const PassOutcome outcome = plan(volume, Intent::Up);
	ASSERT_EQ(outcome.plan.conflicts.size(), 1U) << formatPlan(outcome.plan, volume);
	EXPECT_EQ(outcome.plan.conflicts.front().kind, ConflictKind::ForeignMount);
	EXPECT_EQ(outcome.plan.conflicts.front().subject, dir_ + "/b");
	EXPECT_FALSE(mountAt(volume.staging.path)) << "staged a volume that cannot be published";
	EXPECT_FALSE(mountAt(dir_ + "/a")) << "published beside a foreign target";
	EXPECT_EQ(mountAt(dir_ + "/b")->fsType, "tmpfs");
	/* Up beside it first, then the foreign mount: ours stay, the foreign one is reported. */
	shellOk("umount " + dir_ + "/b");
	ASSERT_GE(converge(volume, Intent::Up), 1);
	shellOk("umount " + dir_ + "/b && mount -t tmpfs someone-else " + dir_ + "/b");
	const PassOutcome later = pass(volume, Intent::Up);
	EXPECT_TRUE(later.report.outcomes.empty()) << formatPlan(later.plan, volume);
	ASSERT_EQ(later.plan.conflicts.size(), 1U) << formatPlan(later.plan, volume);
	EXPECT_EQ(mountAt(dir_ + "/a")->owner, "foreign");
	EXPECT_EQ(mountAt(dir_ + "/b")->fsType, "tmpfs");

	ASSERT_GE(converge(volume, Intent::Down), 1);
	EXPECT_EQ(mountAt(dir_ + "/b")->fsType, "tmpfs") << "down unmounted a foreign mount";

	/* On the staging path: nothing is built on it, nothing unmounts it. */
	ASSERT_TRUE(makeDirectories(volume.staging.path));
	shellOk("mount -t tmpfs someone-else " + volume.staging.path);
	const PassOutcome blocked = pass(volume, Intent::Up);
	const auto &conflicts = blocked.plan.conflicts;
	EXPECT_TRUE(std::any_of(conflicts.begin(), conflicts.end(), [&](const Conflict &c) {
		return c.kind == ConflictKind::ForeignMount && c.subject == volume.staging.path;
	})) << formatPlan(blocked.plan, volume);
	EXPECT_TRUE(blocked.report.outcomes.empty()) << "something was done on a foreign staging";
	EXPECT_EQ(mountAt(volume.staging.path)->fsType, "tmpfs");
	EXPECT_FALSE(mountAt(dir_ + "/a"));
	shellOk("umount " + volume.staging.path + " " + dir_ + "/b");
}

TEST_F(Lifecycle, BusyUnmountFailsClearlyAndSucceedsLater)
{
	const VolumeSpec volume = simpleSpec("busy");
	ASSERT_GE(converge(volume, Intent::Up), 1);
	{
		const UniqueFd held(
			open((dir_ + "/a/held").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600));
		ASSERT_TRUE(held.valid());
		const PassOutcome failed = pass(volume, Intent::Down);
		const Error *error = failed.report.firstError();
		ASSERT_NE(error, nullptr);
		EXPECT_EQ(error->code, Errc::Busy);
		EXPECT_NE(error->message.find("'" + dir_ + "/a' is busy: in use by pid " +
					      std::to_string(getpid())),
			  std::string::npos)
			<< error->message;
		EXPECT_TRUE(mountAt(dir_ + "/a")) << "a busy target was unmounted";
		EXPECT_TRUE(mountAt(volume.staging.path)) << "staging went while a target was busy";
	}
	ASSERT_GE(converge(volume, Intent::Down), 1);
	expectGone(*this, volume, real_->images);
}

TEST_F(Lifecycle, HungToolIsKilledAndTheNextPassConverges)
{
	const std::string hang = dir_ + "/hang.sh";
	shellOk("printf '#!/bin/sh\\nsleep 60\\n' > " + hang + " && chmod +x " + hang);
	ToolConfig hung;
	hung.mkfsExt4 = hang;
	hung.mkfsTimeout = std::chrono::milliseconds(300);
	restart(hung);

	const VolumeSpec volume = simpleSpec("hung");
	const auto start = std::chrono::steady_clock::now();
	PassOutcome outcome = pass(volume, Intent::Up);
	EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
	ASSERT_FALSE(outcome.report.ok());
	EXPECT_TRUE(outcome.report.uncertain());
	EXPECT_EQ(outcome.report.firstError()->code, Errc::Timeout);
	EXPECT_FALSE(mountAt(volume.staging.path));

	restart();
	ASSERT_GE(converge(volume, Intent::Up), 1);
	expectPublished(volume, false);
	ASSERT_GE(converge(volume, Intent::Down), 1);
}

} /* namespace */
} /* namespace rbdvolume::testing */
