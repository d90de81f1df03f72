/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The whole engine against the real test cluster through the fuse driver:
 * rbd-fuse (run as its unit would, by the same helper), a loop device, real
 * mkfs and mounts in the suite's private mount namespace.
 */
#include <algorithm>
#include <fstream>
#include <thread>

#include <sys/statvfs.h>

#include <gtest/gtest.h>

#include "ceph_fixture.hpp"
#include "cluster_harness.hpp"
#include "direct_units.hpp"
#include "engine/reconcile.hpp"
#include "host/blkid_block_probe.hpp"
#include "host/ceph/librbd_cluster.hpp"
#include "host/crypt_devices.hpp"
#include "host/drivers/fuse/fuse_mapper.hpp"
#include "host/drivers/fuse/loop_device.hpp"
#include "host/fs_tools.hpp"
#include "host/libmount_mounter.hpp"
#include "host/ownership_files.hpp"
#include "host/proc_mount_table.hpp"
#include "image_holder.hpp"
#include "integration_env.hpp"
#include "shell.hpp"

namespace rbdvolume::testing {
namespace {

class FuseVolume : public ::testing::Test
{
protected:
	void SetUp() override
	{
		dir_ = freshDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
		const char *helper = std::getenv("RBDV_FUSE_HELPER");
		ASSERT_NE(helper, nullptr) << "meson sets RBDV_FUSE_HELPER";
		units_.define(FuseMapper::UnitTemplate,
			      { helper, "--runtime-dir", dir_ + "/fuse" });
		fuse_ = std::make_unique<FuseMapper>(
			units_, FuseDriverConfig{ dir_ + "/fuse", std::chrono::seconds(30) });
		records_ = std::make_unique<OwnershipFiles>(dir_ + "/owned");
		formatter_ = std::make_unique<ToolFilesystems>(runner_, ToolConfig{});
		host_ = std::make_unique<Host>(Host{ table_, mounter_, probe_, *fuse_, cluster_,
						     *formatter_, *records_, crypt_ });
	}

	void TearDown() override
	{
		shellOk("for m in $(findmnt -rn -o TARGET | grep '^" + dir_ +
			"/' | sort -r); do umount -l \"$m\"; done; true");
		if (auto loops = listLoops()) {
			for (const LoopInfo &loop : *loops) {
				if (loop.backingFile.rfind(dir_ + "/", 0) == 0)
					(void)detachLoop(loop.device);
			}
		}
	}

	/* An xfs or ext4 volume on a new image of the test pool, as client.test, fuse driver. */
	/* xfs wants 300 MB at least. */
	VolumeSpec volume(const std::string &fs, bool readOnly = false,
			  const std::string &image = {})
	{
		VolumeSpec spec = specFor(image.empty() ? uniqueImageName("fuse") : image,
					  createSpec((fs == "xfs" ? 512 : 256) * MiB));
		spec.name = "vol";
		spec.mode = VolumeMode::Filesystem;
		spec.filesystem = FilesystemSpec{};
		spec.filesystem->type = fs == "xfs" ? FsType::Xfs : FsType::Ext4;
		spec.map.driver = Driver::Fuse;
		spec.map.readOnly = readOnly;
		spec.staging.path = dir_ + "/staging";
		spec.publish = { PublishTarget{ dir_ + "/a", readOnly, {} },
				 PublishTarget{ dir_ + "/b", readOnly, {} } };
		return spec;
	}

	PassOutcome pass(const VolumeSpec &spec, Intent intent)
	{
		auto snapshot = takeSnapshot(*host_);
		EXPECT_TRUE(snapshot) << snapshot.error().message;
		auto outcome = reconcilePass(*host_, *snapshot, DesiredVolume{ spec, intent });
		EXPECT_TRUE(outcome) << outcome.error().message;
		return outcome ? std::move(*outcome) : PassOutcome{};
	}

	int converge(const VolumeSpec &spec, Intent intent)
	{
		for (int passes = 0; passes < 3; passes++) {
			const PassOutcome outcome = pass(spec, intent);
			if (outcome.plan.empty())
				return passes;
			if (const Error *error = outcome.report.firstError()) {
				ADD_FAILURE() << error->message << "\n"
					      << formatPlan(outcome.plan, spec);
				return -1;
			}
		}
		ADD_FAILURE() << "no convergence within 3 passes";
		return -1;
	}

	/* Nothing of the volume is left: no mount, no loop device, no rbd-fuse. */
	void expectNothingLeft(const VolumeSpec &spec)
	{
		EXPECT_EQ(shellOk("findmnt -rn -o TARGET | grep '^" + dir_ + "' || true"), "");
		auto loops = listLoops();
		ASSERT_TRUE(loops);
		for (const LoopInfo &loop : *loops)
			EXPECT_NE(loop.backingFile.rfind(dir_, 0), 0U) << loop.device << " left";
		EXPECT_EQ(units_.pid(FuseMapper::UnitTemplate, spec.name), 0) << "rbd-fuse left";
	}

	std::string dir_;
	DirectUnits units_;
	std::unique_ptr<FuseMapper> fuse_;
	LibrbdCluster cluster_{ CephTimeouts{} };
	ProcMountTable table_;
	LibmountMounter mounter_;
	BlkidBlockProbe probe_;
	PosixCommandRunner runner_;
	std::unique_ptr<ToolFilesystems> formatter_;
	std::unique_ptr<OwnershipFiles> records_;
	GivenPassphrases given_;
	HostCryptDevices crypt_{ cluster_, given_ };
	std::unique_ptr<Host> host_;
};

TEST_F(FuseVolume, DataSurvivesARestageAndIsReallyInTheImage)
{
	const VolumeSpec spec = volume("ext4");
	ASSERT_GE(converge(spec, Intent::Up), 1);
	shellOk("head -c 4M /dev/urandom > " + dir_ + "/a/known && sync");
	const std::string written = checksum(dir_ + "/a/known");
	EXPECT_EQ(checksum(dir_ + "/b/known"), written);

	ASSERT_GE(converge(spec, Intent::Down), 1);
	expectNothingLeft(spec);
	ASSERT_GE(converge(spec, Intent::Up), 1);
	EXPECT_EQ(checksum(dir_ + "/a/known"), written) << "the restaged volume lost the file";
	ASSERT_GE(converge(spec, Intent::Down), 1);
	expectNothingLeft(spec);

	/* Read it back out of Ceph, not through us. */
	const std::string exported = dir_ + "/exported.img";
	rbdAdmin({ "export", spec.image.display(), exported });
	shellOk("mkdir -p " + dir_ + "/check && mount -o ro,loop " + exported + " " + dir_ +
		"/check");
	EXPECT_EQ(checksum(dir_ + "/check/known"), written);
	shellOk("umount " + dir_ + "/check");
}

TEST_F(FuseVolume, AnotherWriterRefusesAReadWriteStageButNotAReadOnlyOne)
{
	const VolumeSpec writable = volume("ext4");
	ASSERT_GE(converge(writable, Intent::Up), 1); /* create and format it once */
	ASSERT_GE(converge(writable, Intent::Down), 1);

	ImageHolder holder;
	ASSERT_EQ(holder.hold(writable.image.name), "");
	const PassOutcome refused = pass(writable, Intent::Up);
	const Error *error = refused.report.firstError();
	ASSERT_NE(error, nullptr) << formatPlan(refused.plan, writable);
	EXPECT_EQ(error->code, Errc::Busy);
	EXPECT_NE(error->message.find("client."), std::string::npos) << error->message;
	expectNothingLeft(writable);

	const VolumeSpec readOnly = volume("ext4", true, writable.image.name);
	ASSERT_GE(converge(readOnly, Intent::Up), 1);
	EXPECT_TRUE(visibleMount(dir_ + "/a")->has_value());
	ASSERT_GE(converge(readOnly, Intent::Down), 1);
	holder.release();
}

TEST_F(FuseVolume, XfsGrowsOnlineAfterRbdResize)
{
	const VolumeSpec spec = volume("xfs");
	ASSERT_GE(converge(spec, Intent::Up), 1);
	struct statvfs before {
	};
	ASSERT_EQ(statvfs((dir_ + "/a").c_str(), &before), 0);

	rbdAdmin({ "resize", "--size", "1G", spec.image.display() });
	/* rbd-fuse shows the new size once FUSE's attribute cache lapses: a pass or two later. */
	struct statvfs after {
	};
	bool grew = false;
	for (int attempt = 0; attempt < 20 && !grew; attempt++) {
		const PassOutcome outcome = pass(spec, Intent::Up);
		ASSERT_TRUE(outcome.report.ok()) << outcome.report.firstError()->message;
		grew = std::any_of(outcome.report.outcomes.begin(), outcome.report.outcomes.end(),
				   [](const StepOutcome &o) {
					   return std::holds_alternative<GrowStep>(o.step) &&
						  o.change == Change::Changed;
				   });
		if (!grew)
			std::this_thread::sleep_for(std::chrono::milliseconds(250));
	}
	EXPECT_TRUE(grew) << "no pass grew the filesystem";
	ASSERT_EQ(statvfs((dir_ + "/a").c_str(), &after), 0);
	const uint64_t beforeBytes = uint64_t{ before.f_blocks } * before.f_frsize;
	const uint64_t afterBytes = uint64_t{ after.f_blocks } * after.f_frsize;
	EXPECT_GT(afterBytes, beforeBytes + 400 * MiB) << "df does not show the growth";
	ASSERT_GE(converge(spec, Intent::Down), 1);
	expectNothingLeft(spec);
}

TEST_F(FuseVolume, AnUnreachableClusterFailsTheStageInTimeAndLeavesNothing)
{
	LibrbdCluster impatient{ CephTimeouts{ std::chrono::seconds(3), std::chrono::seconds(5) } };
	Host host{ table_, mounter_, probe_, *fuse_, impatient, *formatter_, *records_, crypt_ };
	const VolumeSpec spec = volume("ext4");

	ASSERT_EQ(cluster().stop(), "");
	const auto start = Clock::now();
	auto snapshot = takeSnapshot(host);
	ASSERT_TRUE(snapshot);
	auto failed = reconcilePass(host, *snapshot, DesiredVolume{ spec, Intent::Up });
	const double took = secondsSince(start);
	ASSERT_EQ(cluster().start(), "") << "the test cluster did not come back";
	ASSERT_TRUE(failed);
	const Error *error = failed->report.firstError();
	ASSERT_NE(error, nullptr);
	EXPECT_EQ(error->code, Errc::Timeout) << error->message;
	EXPECT_NE(error->message.find("cannot reach the cluster"), std::string::npos)
		<< error->message;
	EXPECT_LT(took, 3 + 5 + 5) << "the stage outlived its timeouts";
	expectNothingLeft(spec);

	/* Back: the same volume comes up. */
	host_ = std::make_unique<Host>(host);
	ASSERT_GE(converge(spec, Intent::Up), 1);
	ASSERT_GE(converge(spec, Intent::Down), 1);
	expectNothingLeft(spec);
}

} /* namespace */
} /* namespace rbdvolume::testing */
