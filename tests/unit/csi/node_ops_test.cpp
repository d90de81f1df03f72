/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The Node operations without gRPC: plain requests, a deadline as a value,
 * the codes they answer with, and what a stats reply holds. The RPCs over
 * the socket are node_rpc_test's.
 */
#include "csi/node_ops.hpp"

#include <chrono>
#include <filesystem>
#include <future>
#include <thread>

#include <gtest/gtest.h>

#include "csi/volume_names.hpp"
#include "rpc_rig.hpp"
#include "temp_dir.hpp"

namespace rbdvolume::testing {

namespace {

using csi::Code;
using std::chrono::seconds;

constexpr const char *VolumeId = "0001-0009-rook-ceph-0000000000000002-ops";

struct OpsRig {
	OpsRig()
	{
		dir.write("clusters.toml", "[[cluster]]\nid = \"ceph-a\"\nmonitors = "
					   "[\"192.0.2.1:6789\"]\n");
		auto settings = csi::parseShimSettings(
			{ "--cluster-map", dir.path() + "/clusters.toml", "--runtime-dir",
			  dir.path() + "/run", "--node-id", "node-1", "--registration-dir", "" });
		EXPECT_TRUE(settings.has_value());
		ops = std::make_unique<csi::NodeOps>(*settings, control);
	}

	csi::StageArgs stageArgs() const
	{
		csi::StageArgs args;
		args.volumeId = VolumeId;
		args.stagingTargetPath = staging();
		args.capability.present = true;
		args.capability.access = csi::CapabilityField::Access::Mount;
		args.capability.fsType = "ext4";
		args.capability.accessMode = 1; /* SINGLE_NODE_WRITER */
		args.secrets = { { "userID", "kube" }, { "userKey", "AQBkey==" } };
		args.volumeContext = { { "clusterID", "ceph-a" },
				       { "pool", "rbd" },
				       { "imageName", "img" } };
		return args;
	}

	std::string staging() const { return dir.path() + "/staging/globalmount"; }

	static csi::Deadline in(seconds s) { return std::chrono::steady_clock::now() + s; }

	TempDir dir;
	FakeVolumeControl control;
	std::unique_ptr<csi::NodeOps> ops;
};

TEST(NodeOps, DaemonErrorsBecomeCsiCodes)
{
	const std::vector<std::pair<Errc, Code>> cases = {
		{ Errc::NotFound, Code::NotFound },
		{ Errc::InvalidArgument, Code::InvalidArgument },
		{ Errc::Conflict, Code::FailedPrecondition },
		{ Errc::Timeout, Code::DeadlineExceeded },
		{ Errc::Busy, Code::Aborted },
		{ Errc::PermissionDenied, Code::PermissionDenied },
		{ Errc::Unreachable, Code::Unavailable },
		{ Errc::ShuttingDown, Code::Unavailable },
		{ Errc::Disconnected, Code::Unavailable },
		{ Errc::Io, Code::Internal },
		{ Errc::Blocklisted, Code::Internal },
		{ Errc::Unsupported, Code::Internal },
	};
	for (const auto &[errc, code] : cases) {
		const csi::OpStatus status = csi::statusFor(Error{ errc, "why", 0 });
		EXPECT_EQ(status.code, code) << errcName(errc);
		EXPECT_EQ(status.message.rfind("why", 0), 0U) << errcName(errc);
	}
	EXPECT_EQ(csi::statusFor(Error{ Errc::Timeout, "no reply", 0 }).message,
		  "no reply; rbd-volumed carries on, a retry waits for it");
	/* The codes are gRPC's numbers: the journal prints them. */
	EXPECT_EQ(static_cast<int>(Code::FailedPrecondition), 9);
	EXPECT_EQ(static_cast<int>(Code::Unavailable), 14);
}

TEST(NodeOps, CapabilityFieldsAreCheckedAsPlainValues)
{
	csi::CapabilityField field;
	EXPECT_EQ(csi::capabilityOf("volume_capability", field).error().message,
		  "volume_capability is required");
	field.present = true;
	EXPECT_EQ(csi::capabilityOf("volume_capability", field).error().message,
		  "volume_capability has neither block nor mount access type");
	field.access = csi::CapabilityField::Access::Block;
	EXPECT_EQ(csi::capabilityOf("volume_capability", field).error().message,
		  "volume_capability.access_mode is required");
	field.accessMode = 3; /* MULTI_NODE_READER_ONLY */
	auto capability = csi::capabilityOf("volume_capability", field);
	ASSERT_TRUE(capability.has_value());
	EXPECT_TRUE(capability->block);
	EXPECT_EQ(capability->mode, csi::AccessMode::MultiNodeReaderOnly);
}

TEST(NodeOps, StageThenStatsWithoutATransport)
{
	OpsRig rig;
	const csi::OpStatus staged = rig.ops->stage(rig.stageArgs(), OpsRig::in(seconds(30)));
	ASSERT_TRUE(staged.ok()) << staged.message;
	std::filesystem::create_directories(rig.staging());

	csi::StatsReply reply;
	const csi::OpStatus unknownToDaemon = rig.ops->stats({ VolumeId, rig.staging() }, reply);
	ASSERT_TRUE(unknownToDaemon.ok()) << unknownToDaemon.message;
	ASSERT_TRUE(reply.usage.has_value());
	EXPECT_FALSE(reply.usage->block);
	EXPECT_GT(reply.usage->totalBytes, 0U);
	EXPECT_TRUE(reply.abnormal);
	EXPECT_EQ(reply.condition, "rbd-volumed does not know the volume");

	csi::VolumeState up;
	up.phase = bus::Phase::Up;
	rig.control.setState(csi::volumeNameFor(VolumeId), up);
	ASSERT_TRUE(rig.ops->stats({ VolumeId, rig.staging() }, reply).ok());
	EXPECT_FALSE(reply.abnormal);
	EXPECT_EQ(reply.condition, "the volume is healthy");

	const csi::OpStatus elsewhere = rig.ops->stats({ VolumeId, "/elsewhere" }, reply);
	EXPECT_EQ(elsewhere.code, Code::NotFound);
	EXPECT_EQ(elsewhere.message, std::string("volume ") + VolumeId + " is not at /elsewhere");
}

TEST(NodeOps, AnEncryptedStageBringsTheStageSecretsPassphraseOverTheBusOnly)
{
	OpsRig rig;
	rig.dir.write("kms.json", R"({"secrets-metadata": {"encryptionKMSType": "metadata"}})");
	auto settings = csi::parseShimSettings({ "--cluster-map", rig.dir.path() + "/clusters.toml",
						 "--runtime-dir", rig.dir.path() + "/run",
						 "--node-id", "node-1", "--registration-dir", "",
						 "--kms-config", rig.dir.path() + "/kms.json" });
	ASSERT_TRUE(settings.has_value());
	csi::NodeOps ops(*settings, rig.control);
	csi::StageArgs args = rig.stageArgs();
	args.volumeContext["encrypted"] = "true";
	args.volumeContext["encryptionKMSID"] = "secrets-metadata";
	const std::string name = csi::volumeNameFor(VolumeId);

	const csi::OpStatus missing = ops.stage(args, OpsRig::in(seconds(30)));
	EXPECT_EQ(missing.code, Code::InvalidArgument);
	EXPECT_NE(missing.message.find("no encryptionPassphrase"), std::string::npos);
	EXPECT_TRUE(rig.control.calls().empty());

	/* A passphrase the daemon refuses: PERMISSION_DENIED, and the volume taken down again. */
	args.secrets["encryptionPassphrase"] = "wrong passphrase";
	rig.control.failNext("up-with-passphrase",
			     Error{ Errc::PermissionDenied, "does not unwrap the data key", 0 });
	const csi::OpStatus refused = ops.stage(args, OpsRig::in(seconds(30)));
	EXPECT_EQ(refused.code, Code::PermissionDenied);
	EXPECT_NE(refused.message.find("does not unwrap"), std::string::npos);
	EXPECT_EQ(rig.control.calls(),
		  (std::vector<std::string>{ "up-with-passphrase " + name, "down " + name }));
	EXPECT_FALSE(std::filesystem::exists(rig.dir.path() + "/run/volumes/" + name + ".toml"));

	args.secrets["encryptionPassphrase"] = "the passphrase";
	const csi::OpStatus staged = ops.stage(args, OpsRig::in(seconds(30)));
	ASSERT_TRUE(staged.ok()) << staged.message;
	/* Staged again without encryption: refused, the runtime spec left as it is. */
	csi::StageArgs plain = args;
	plain.volumeContext.erase("encrypted");
	const csi::OpStatus unencrypted = ops.stage(plain, OpsRig::in(seconds(30)));
	EXPECT_EQ(unencrypted.code, Code::AlreadyExists);
	EXPECT_NE(unencrypted.message.find("already staged with other encryption settings"),
		  std::string::npos)
		<< unencrypted.message;
	EXPECT_EQ(rig.control.passphraseOf(name), "the passphrase");
	/* The runtime spec says where the key comes from, never the key. */
	const std::string spec = readText(rig.dir.path() + "/run/volumes/" + name + ".toml");
	EXPECT_NE(spec.find("given-at-up = true"), std::string::npos) << spec;
	EXPECT_NE(spec.find("passphrase = \"image-metadata\""), std::string::npos) << spec;
	EXPECT_EQ(spec.find("the passphrase\""), std::string::npos) << spec;
	for (const auto &entry :
	     std::filesystem::recursive_directory_iterator(rig.dir.path() + "/run")) {
		if (entry.is_regular_file()) {
			EXPECT_EQ(readText(entry.path().string()).find("the passphrase"),
				  std::string::npos)
				<< entry.path();
		}
	}
}

TEST(NodeOps, TheDeadlineIsAPlainValue)
{
	OpsRig rig;
	ASSERT_TRUE(rig.ops->stage(rig.stageArgs(), OpsRig::in(seconds(30))).ok());
	/* A call whose deadline is nearer than the margin never waits for a busy volume. */
	rig.control.setDelay(std::chrono::milliseconds(1500));
	auto first = std::async(std::launch::async, [&] {
		return rig.ops->stage(rig.stageArgs(), OpsRig::in(seconds(30)));
	});
	std::this_thread::sleep_for(std::chrono::milliseconds(300));
	const csi::OpStatus second =
		rig.ops->unstage({ VolumeId, rig.staging() }, OpsRig::in(seconds(5)));
	EXPECT_EQ(second.code, Code::Aborted) << second.message;
	EXPECT_TRUE(first.get().ok());
}

TEST(NodeOps, ExpandOfAVolumeWithoutADeviceAsksOnePass)
{
	OpsRig rig;
	ASSERT_TRUE(rig.ops->stage(rig.stageArgs(), OpsRig::in(seconds(30))).ok());
	csi::ExpandReply reply;
	const csi::OpStatus status = rig.ops->expand({ VolumeId, rig.staging(), 1 << 30 },
						     OpsRig::in(seconds(30)), reply);
	EXPECT_EQ(status.code, Code::FailedPrecondition) << status.message;
	const std::string name = csi::volumeNameFor(VolumeId);
	EXPECT_EQ(rig.control.calls(),
		  (std::vector<std::string>{ "up " + name, "reconcile " + name }));
}

} /* namespace */

} /* namespace rbdvolume::testing */
