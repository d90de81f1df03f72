/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Every Node and Identity RPC over the real unix socket: required fields,
 * unknown volumes, idempotent repeats, concurrent calls on one volume, the
 * files a stage leaves (and never a key outside the key file), rollback.
 */
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <thread>

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "config/spec_parser.hpp"
#include "csi/volume_names.hpp"
#include "rpc_rig.hpp"

namespace rbdvolume::testing {

namespace {

namespace v1 = ::csi::v1;
using Code = grpc::StatusCode;

constexpr const char *VolumeId =
	"0001-0009-rook-ceph-0000000000000002-b0285c97-a0ce-11eb-8c66-0242ac110005";

std::string describe(const grpc::Status &status)
{
	return "code " + std::to_string(static_cast<int>(status.error_code())) + ": " +
	       status.error_message();
}

VolumeSpec specOf(const RpcRig &rig, const std::string &volumeId)
{
	const SpecOutcome outcome =
		parseVolumeSpec(readText(rig.specPath(volumeId)), rig.specPath(volumeId));
	EXPECT_TRUE(outcome.ok()) << (outcome.ok() ? "" : outcome.diagnostics[0].format());
	return outcome.spec;
}

bool exists(const std::string &path)
{
	return std::filesystem::exists(path);
}

/* Each request lacks one required field, or has a bad one. */
/* The daemon's view of a published volume on /dev/loop7. */
csi::VolumeState publishedState(bus::Phase phase, std::vector<bus::Condition> conditions)
{
	csi::VolumeState state;
	state.phase = phase;
	state.stage = bus::Stage::Published;
	state.device = "/dev/loop7";
	state.conditions = std::move(conditions);
	return state;
}

TEST(NodeRpc, StageChecksEveryRequiredField)
{
	RpcRig rig;
	const std::vector<std::pair<std::string, std::function<void(v1::NodeStageVolumeRequest &)>>>
		cases = {
			{ "volume_id", [](auto &r) { r.clear_volume_id(); } },
			{ "staging_target_path", [](auto &r) { r.clear_staging_target_path(); } },
			{ "relative staging path",
			  [](auto &r) { r.set_staging_target_path("a/b"); } },
			{ "'..' in the staging path",
			  [](auto &r) { r.set_staging_target_path("/var/lib/../../etc"); } },
			{ "volume_capability", [](auto &r) { r.clear_volume_capability(); } },
			{ "access type",
			  [](auto &r) { r.mutable_volume_capability()->clear_access_type(); } },
			{ "access mode",
			  [](auto &r) { r.mutable_volume_capability()->clear_access_mode(); } },
			{ "secrets", [](auto &r) { r.clear_secrets(); } },
			{ "userKey", [](auto &r) { r.mutable_secrets()->erase("userKey"); } },
			{ "clusterID",
			  [](auto &r) { r.mutable_volume_context()->erase("clusterID"); } },
			{ "pool", [](auto &r) { r.mutable_volume_context()->erase("pool"); } },
			{ "imageName",
			  [](auto &r) { r.mutable_volume_context()->erase("imageName"); } },
			{ "fs type",
			  [](auto &r) {
				  r.mutable_volume_capability()->mutable_mount()->set_fs_type(
					  "zfs");
			  } },
		};
	for (const auto &[what, breakIt] : cases) {
		v1::NodeStageVolumeRequest request = rig.stageRequest(VolumeId);
		breakIt(request);
		const grpc::Status status = rig.stage(request);
		EXPECT_EQ(status.error_code(), Code::INVALID_ARGUMENT)
			<< what << ": " << describe(status);
		EXPECT_EQ(status.error_message().find(RpcRig::Key), std::string::npos) << what;
	}
	EXPECT_TRUE(rig.control.calls().empty()) << "no bad request reaches the daemon";
	EXPECT_FALSE(exists(rig.specPath(VolumeId)));
	EXPECT_FALSE(exists(rig.keyPath(VolumeId)));
}

TEST(NodeRpc, UnknownClusterIsNotFound)
{
	RpcRig rig;
	v1::NodeStageVolumeRequest request = rig.stageRequest(VolumeId);
	(*request.mutable_volume_context())["clusterID"] = "elsewhere";
	const grpc::Status status = rig.stage(request);
	EXPECT_EQ(status.error_code(), Code::NOT_FOUND) << describe(status);
	EXPECT_NE(status.error_message().find("ceph-a"), std::string::npos) << describe(status);
}

TEST(NodeRpc, OtherCallsCheckTheirRequiredFields)
{
	RpcRig rig;
	const std::string target = rig.targetPath(VolumeId, "pod-a");
	EXPECT_EQ(rig.unstage("", rig.stagingPath(VolumeId)).error_code(), Code::INVALID_ARGUMENT);
	EXPECT_EQ(rig.unstage(VolumeId, "").error_code(), Code::INVALID_ARGUMENT);
	EXPECT_EQ(rig.unpublish("", target).error_code(), Code::INVALID_ARGUMENT);
	EXPECT_EQ(rig.unpublish(VolumeId, "").error_code(), Code::INVALID_ARGUMENT);
	EXPECT_EQ(rig.unpublish(VolumeId, "relative/path").error_code(), Code::INVALID_ARGUMENT);

	v1::NodePublishVolumeRequest publish = rig.publishRequest(VolumeId, target);
	publish.clear_volume_id();
	EXPECT_EQ(rig.publish(publish).error_code(), Code::INVALID_ARGUMENT);
	publish = rig.publishRequest(VolumeId, target);
	publish.clear_target_path();
	EXPECT_EQ(rig.publish(publish).error_code(), Code::INVALID_ARGUMENT);
	publish = rig.publishRequest(VolumeId, target);
	publish.clear_volume_capability();
	EXPECT_EQ(rig.publish(publish).error_code(), Code::INVALID_ARGUMENT);
	publish = rig.publishRequest(VolumeId, target);
	publish.clear_staging_target_path();
	EXPECT_EQ(rig.publish(publish).error_code(), Code::FAILED_PRECONDITION)
		<< "CSI: staging target path not set";
	/* Both missing: the required field wins, as conformance tools check. */
	publish.clear_volume_capability();
	EXPECT_EQ(rig.publish(publish).error_code(), Code::INVALID_ARGUMENT);

	v1::NodeGetVolumeStatsRequest stats;
	v1::NodeGetVolumeStatsResponse statsResponse;
	stats.set_volume_path(target);
	EXPECT_EQ(rig.node()
			  .NodeGetVolumeStats(RpcRig::context().get(), stats, &statsResponse)
			  .error_code(),
		  Code::INVALID_ARGUMENT);
	stats.set_volume_id(VolumeId);
	stats.clear_volume_path();
	EXPECT_EQ(rig.node()
			  .NodeGetVolumeStats(RpcRig::context().get(), stats, &statsResponse)
			  .error_code(),
		  Code::INVALID_ARGUMENT);

	v1::NodeExpandVolumeRequest expand;
	v1::NodeExpandVolumeResponse expandResponse;
	expand.set_volume_path(target);
	EXPECT_EQ(rig.node()
			  .NodeExpandVolume(RpcRig::context().get(), expand, &expandResponse)
			  .error_code(),
		  Code::INVALID_ARGUMENT);
	expand.set_volume_id(VolumeId);
	expand.clear_volume_path();
	EXPECT_EQ(rig.node()
			  .NodeExpandVolume(RpcRig::context().get(), expand, &expandResponse)
			  .error_code(),
		  Code::INVALID_ARGUMENT);
	EXPECT_TRUE(rig.control.calls().empty());
}

TEST(NodeRpc, UnknownVolumes)
{
	RpcRig rig;
	const std::string target = rig.targetPath(VolumeId, "pod-a");
	const grpc::Status publish = rig.publish(rig.publishRequest(VolumeId, target));
	EXPECT_EQ(publish.error_code(), Code::NOT_FOUND) << describe(publish);

	v1::NodeGetVolumeStatsRequest stats;
	stats.set_volume_id(VolumeId);
	stats.set_volume_path(target);
	v1::NodeGetVolumeStatsResponse statsResponse;
	EXPECT_EQ(rig.node()
			  .NodeGetVolumeStats(RpcRig::context().get(), stats, &statsResponse)
			  .error_code(),
		  Code::NOT_FOUND);
	v1::NodeExpandVolumeRequest expand;
	expand.set_volume_id(VolumeId);
	expand.set_volume_path(target);
	v1::NodeExpandVolumeResponse expandResponse;
	EXPECT_EQ(rig.node()
			  .NodeExpandVolume(RpcRig::context().get(), expand, &expandResponse)
			  .error_code(),
		  Code::NOT_FOUND);
	/* Unknown is NOT_FOUND before the form of the path is looked at. */
	stats.set_volume_path("relative/path");
	EXPECT_EQ(rig.node()
			  .NodeGetVolumeStats(RpcRig::context().get(), stats, &statsResponse)
			  .error_code(),
		  Code::NOT_FOUND);
	expand.set_volume_path("relative/path");
	EXPECT_EQ(rig.node()
			  .NodeExpandVolume(RpcRig::context().get(), expand, &expandResponse)
			  .error_code(),
		  Code::NOT_FOUND);

	/* CSI: unstaging what is not staged, and unpublishing what is not there, are done. */
	const grpc::Status unstage = rig.unstage(VolumeId, rig.stagingPath(VolumeId));
	EXPECT_TRUE(unstage.ok()) << describe(unstage);
	const grpc::Status unpublish = rig.unpublish(VolumeId, target);
	EXPECT_TRUE(unpublish.ok()) << describe(unpublish);
	EXPECT_TRUE(rig.control.calls().empty());
}

TEST(NodeRpc, StageWritesTheSpecTheKeyAndAsksUp)
{
	RpcRig rig;
	const grpc::Status status = rig.stage(rig.stageRequest(VolumeId));
	ASSERT_TRUE(status.ok()) << describe(status);
	const std::string name = csi::volumeNameFor(VolumeId);
	EXPECT_EQ(rig.control.calls(), std::vector<std::string>{ "up " + name });

	const VolumeSpec spec = specOf(rig, VolumeId);
	EXPECT_EQ(spec.name, name);
	EXPECT_EQ(spec.image.pool, "replicapool");
	EXPECT_EQ(spec.cluster.clientId, "kube");
	EXPECT_EQ(spec.cluster.keyfile, rig.keyPath(VolumeId));
	EXPECT_EQ(spec.cluster.monitors,
		  (std::vector<std::string>{ "192.0.2.1:6789", "192.0.2.2:6789" }));
	EXPECT_EQ(spec.staging.path, rig.stagingPath(VolumeId));
	EXPECT_TRUE(spec.publish.empty());
	EXPECT_NE(readText(rig.specPath(VolumeId)).find(VolumeId), std::string::npos)
		<< "the spec names the CSI volume it is for";

	/* The key: only in its own file, readable by its owner alone. */
	EXPECT_EQ(readText(rig.keyPath(VolumeId)), std::string(RpcRig::Key) + "\n");
	struct stat st {
	};
	ASSERT_EQ(stat(rig.keyPath(VolumeId).c_str(), &st), 0);
	EXPECT_EQ(st.st_mode & 07777, 0600U);
	ASSERT_EQ(stat((rig.runtimeDir() + "/csi").c_str(), &st), 0);
	EXPECT_EQ(st.st_mode & 07777, 0700U);
	for (const auto &entry : std::filesystem::recursive_directory_iterator(rig.runtimeDir())) {
		if (!entry.is_regular_file() || entry.path() == rig.keyPath(VolumeId))
			continue;
		EXPECT_EQ(readText(entry.path()).find(RpcRig::Key), std::string::npos)
			<< entry.path();
	}
}

TEST(NodeRpc, EveryCallIsIdempotent)
{
	RpcRig rig;
	const std::string staging = rig.stagingPath(VolumeId);
	const std::string target = rig.targetPath(VolumeId, "pod-a");
	ASSERT_TRUE(rig.stage(rig.stageRequest(VolumeId)).ok());
	const std::string specText = readText(rig.specPath(VolumeId));
	ASSERT_TRUE(rig.stage(rig.stageRequest(VolumeId)).ok());
	EXPECT_EQ(readText(rig.specPath(VolumeId)), specText);

	for (int i = 0; i < 2; i++) {
		const grpc::Status status = rig.publish(rig.publishRequest(VolumeId, target));
		ASSERT_TRUE(status.ok()) << describe(status);
	}
	EXPECT_EQ(specOf(rig, VolumeId).publish.size(), 1U);
	/* A stage repeated while published keeps the target. */
	ASSERT_TRUE(rig.stage(rig.stageRequest(VolumeId)).ok());
	EXPECT_EQ(specOf(rig, VolumeId).publish.size(), 1U);

	std::filesystem::create_directories(target);
	for (int i = 0; i < 2; i++) {
		const grpc::Status status = rig.unpublish(VolumeId, target);
		ASSERT_TRUE(status.ok()) << describe(status);
	}
	EXPECT_TRUE(specOf(rig, VolumeId).publish.empty());
	EXPECT_FALSE(exists(target)) << "the SP removes the target it was given";

	for (int i = 0; i < 2; i++) {
		const grpc::Status status = rig.unstage(VolumeId, staging);
		ASSERT_TRUE(status.ok()) << describe(status);
	}
	EXPECT_FALSE(exists(rig.specPath(VolumeId)));
	EXPECT_FALSE(exists(rig.keyPath(VolumeId)));
	EXPECT_TRUE(std::filesystem::is_empty(rig.runtimeDir() + "/csi"));
	const std::string name = csi::volumeNameFor(VolumeId);
	EXPECT_EQ(rig.control.calls(),
		  (std::vector<std::string>{ "up " + name, "up " + name, "up " + name, "up " + name,
					     "up " + name, "up " + name, "down " + name }));
}

TEST(NodeRpc, PublishToTwoTargetsReadOnlyAndIncompatibleRepeat)
{
	RpcRig rig;
	ASSERT_TRUE(rig.stage(rig.stageRequest(VolumeId)).ok());
	const std::string a = rig.targetPath(VolumeId, "pod-a");
	const std::string b = rig.targetPath(VolumeId, "pod-b");
	ASSERT_TRUE(rig.publish(rig.publishRequest(VolumeId, a)).ok());
	v1::NodePublishVolumeRequest readOnly = rig.publishRequest(VolumeId, b);
	readOnly.set_readonly(true);
	readOnly.mutable_volume_capability()->mutable_mount()->add_mount_flags("nosuid");
	readOnly.mutable_volume_capability()->mutable_mount()->add_mount_flags("discard");
	ASSERT_TRUE(rig.publish(readOnly).ok());

	const VolumeSpec spec = specOf(rig, VolumeId);
	ASSERT_EQ(spec.publish.size(), 2U);
	EXPECT_EQ(spec.publish[0].path, a);
	EXPECT_FALSE(spec.publish[0].readOnly);
	EXPECT_EQ(spec.publish[1].path, b);
	EXPECT_TRUE(spec.publish[1].readOnly);
	EXPECT_EQ(spec.publish[1].options, std::vector<std::string>{ "nosuid" })
		<< "a bind takes only VFS flags";

	/* The same target asked for read-write now: incompatible. */
	const grpc::Status status = rig.publish(rig.publishRequest(VolumeId, b));
	EXPECT_EQ(status.error_code(), Code::ALREADY_EXISTS) << describe(status);

	/* Block publish of a filesystem volume, and from another staging path. */
	EXPECT_EQ(rig.publish(rig.publishRequest(VolumeId, a, true)).error_code(),
		  Code::FAILED_PRECONDITION);
	v1::NodePublishVolumeRequest moved = rig.publishRequest(VolumeId, a);
	moved.set_staging_target_path("/var/lib/kubelet/elsewhere");
	EXPECT_EQ(rig.publish(moved).error_code(), Code::FAILED_PRECONDITION);
}

TEST(NodeRpc, StageWithAnotherCapabilityIsAlreadyExists)
{
	RpcRig rig;
	ASSERT_TRUE(rig.stage(rig.stageRequest(VolumeId)).ok());
	v1::NodeStageVolumeRequest xfs = rig.stageRequest(VolumeId);
	xfs.mutable_volume_capability()->mutable_mount()->set_fs_type("xfs");
	EXPECT_EQ(rig.stage(xfs).error_code(), Code::ALREADY_EXISTS);
	v1::NodeStageVolumeRequest readOnly = rig.stageRequest(VolumeId);
	readOnly.mutable_volume_capability()->mutable_access_mode()->set_mode(
		v1::VolumeCapability::AccessMode::MULTI_NODE_READER_ONLY);
	EXPECT_EQ(rig.stage(readOnly).error_code(), Code::ALREADY_EXISTS);
	EXPECT_EQ(specOf(rig, VolumeId).filesystem->type, FsType::Ext4) << "the staged spec stays";
}

TEST(NodeRpc, BlockVolumeStagesToAFileInsideTheStagingDirectory)
{
	RpcRig rig;
	ASSERT_TRUE(rig.stage(rig.stageRequest(VolumeId, true)).ok());
	const VolumeSpec spec = specOf(rig, VolumeId);
	EXPECT_EQ(spec.mode, VolumeMode::Block);
	EXPECT_EQ(spec.staging.path, rig.stagingPath(VolumeId) + "/rbd-volume.block");
	const std::string target = rig.targetPath(VolumeId, "pod-a");
	ASSERT_TRUE(rig.publish(rig.publishRequest(VolumeId, target, true)).ok());
	EXPECT_EQ(specOf(rig, VolumeId).publish.at(0).path, target);
	EXPECT_EQ(rig.publish(rig.publishRequest(VolumeId, target, false)).error_code(),
		  Code::FAILED_PRECONDITION);
}

TEST(NodeRpc, FailedStageLeavesNothingBehind)
{
	RpcRig rig;
	rig.control.failNext("up", Error{ Errc::Io, "map replicapool/img: no such image", 0 });
	const grpc::Status status = rig.stage(rig.stageRequest(VolumeId));
	EXPECT_EQ(status.error_code(), Code::INTERNAL) << describe(status);
	EXPECT_NE(status.error_message().find("no such image"), std::string::npos);
	const std::string name = csi::volumeNameFor(VolumeId);
	EXPECT_EQ(rig.control.calls(), (std::vector<std::string>{ "up " + name, "down " + name }));
	EXPECT_FALSE(exists(rig.specPath(VolumeId)));
	EXPECT_FALSE(exists(rig.keyPath(VolumeId)));
}

TEST(NodeRpc, StageStillRunningKeepsItsFilesForTheRetry)
{
	RpcRig rig;
	rig.control.failNext("up", Error{ Errc::Timeout, "no reply within 100 s", 0 });
	const grpc::Status status = rig.stage(rig.stageRequest(VolumeId));
	EXPECT_EQ(status.error_code(), Code::DEADLINE_EXCEEDED) << describe(status);
	EXPECT_TRUE(exists(rig.specPath(VolumeId)));
	EXPECT_TRUE(exists(rig.keyPath(VolumeId)));
	EXPECT_TRUE(rig.stage(rig.stageRequest(VolumeId)).ok()) << "the retry finds it";
}

TEST(NodeRpc, DaemonErrorsMapToCsiCodes)
{
	RpcRig rig;
	ASSERT_TRUE(rig.stage(rig.stageRequest(VolumeId)).ok());
	const std::string target = rig.targetPath(VolumeId, "pod-a");
	const std::vector<std::pair<Error, Code>> cases = {
		{ Error{ Errc::Conflict, "a mount not made by rbd-volume", 0 },
		  Code::FAILED_PRECONDITION },
		{ Error{ Errc::InvalidArgument, "spec invalid", 0 }, Code::INVALID_ARGUMENT },
		{ Error{ Errc::Busy, "in use", 0 }, Code::ABORTED },
		{ Error{ Errc::Unreachable, "rbd-volumed cannot be reached", 0 },
		  Code::UNAVAILABLE },
	};
	for (const auto &[error, code] : cases) {
		rig.control.failNext("up", error);
		const grpc::Status status = rig.publish(rig.publishRequest(VolumeId, target));
		EXPECT_EQ(status.error_code(), code) << error.message << ": " << describe(status);
		EXPECT_TRUE(specOf(rig, VolumeId).publish.empty())
			<< "a target that failed for good is taken out again";
	}
}

TEST(NodeRpc, CallsOnOneVolumeAreServedOneAtATime)
{
	RpcRig rig;
	rig.control.setDelay(std::chrono::milliseconds(300));
	const std::string other = "0001-0009-rook-ceph-0000000000000002-other";
	std::vector<std::future<grpc::Status>> calls;
	calls.reserve(4);
	for (int i = 0; i < 3; i++)
		calls.push_back(std::async(std::launch::async,
					   [&] { return rig.stage(rig.stageRequest(VolumeId)); }));
	calls.push_back(
		std::async(std::launch::async, [&] { return rig.stage(rig.stageRequest(other)); }));
	for (auto &call : calls) {
		const grpc::Status status = call.get();
		EXPECT_TRUE(status.ok()) << describe(status);
	}
	EXPECT_EQ(rig.control.maxOnOneVolume(), 1);
	EXPECT_EQ(rig.control.maxOverall(), 2) << "different volumes run in parallel";
}

TEST(NodeRpc, ABusyVolumeAbortsWhenTheDeadlineIsNear)
{
	RpcRig rig;
	rig.control.setDelay(std::chrono::milliseconds(3000));
	auto first = std::async(std::launch::async,
				[&] { return rig.stage(rig.stageRequest(VolumeId)); });
	std::this_thread::sleep_for(std::chrono::milliseconds(500));
	/* Twelve seconds: less than the margin kept for the answer, so no waiting at all. */
	const grpc::Status second = rig.stage(rig.stageRequest(VolumeId), 12);
	EXPECT_EQ(second.error_code(), Code::ABORTED) << describe(second);
	EXPECT_TRUE(first.get().ok());
}

TEST(NodeRpc, VolumeStatsAndCondition)
{
	RpcRig rig;
	ASSERT_TRUE(rig.stage(rig.stageRequest(VolumeId)).ok());
	const std::string target = rig.targetPath(VolumeId, "pod-a");
	ASSERT_TRUE(rig.publish(rig.publishRequest(VolumeId, target)).ok());
	std::filesystem::create_directories(target);
	const std::string name = csi::volumeNameFor(VolumeId);
	rig.control.setState(name, publishedState(bus::Phase::Up, {}));

	v1::NodeGetVolumeStatsRequest request;
	request.set_volume_id(VolumeId);
	request.set_volume_path(target);
	v1::NodeGetVolumeStatsResponse healthy;
	const grpc::Status status =
		rig.node().NodeGetVolumeStats(RpcRig::context().get(), request, &healthy);
	ASSERT_TRUE(status.ok()) << describe(status);
	ASSERT_EQ(healthy.usage_size(), 2);
	EXPECT_EQ(healthy.usage(0).unit(), v1::VolumeUsage::BYTES);
	EXPECT_GT(healthy.usage(0).total(), 0);
	EXPECT_EQ(healthy.usage(1).unit(), v1::VolumeUsage::INODES);
	EXPECT_FALSE(healthy.volume_condition().abnormal());

	rig.control.setState(name,
			     publishedState(bus::Phase::Degraded,
					    { { "MapperLost", "rbd-fuse@x is not running" } }));
	v1::NodeGetVolumeStatsResponse sick;
	ASSERT_TRUE(rig.node().NodeGetVolumeStats(RpcRig::context().get(), request, &sick).ok());
	EXPECT_TRUE(sick.volume_condition().abnormal());
	EXPECT_NE(sick.volume_condition().message().find("MapperLost"), std::string::npos)
		<< sick.volume_condition().message();

	request.set_volume_path(rig.targetPath(VolumeId, "pod-z"));
	v1::NodeGetVolumeStatsResponse elsewhere;
	EXPECT_EQ(rig.node()
			  .NodeGetVolumeStats(RpcRig::context().get(), request, &elsewhere)
			  .error_code(),
		  Code::NOT_FOUND);
}

TEST(NodeRpc, ExpandAsksForAPassAndNeedsADevice)
{
	RpcRig rig;
	ASSERT_TRUE(rig.stage(rig.stageRequest(VolumeId)).ok());
	v1::NodeExpandVolumeRequest request;
	request.set_volume_id(VolumeId);
	request.set_volume_path(rig.stagingPath(VolumeId));
	v1::NodeExpandVolumeResponse response;
	const grpc::Status status =
		rig.node().NodeExpandVolume(RpcRig::context().get(), request, &response);
	EXPECT_EQ(status.error_code(), Code::FAILED_PRECONDITION) << describe(status);
	EXPECT_EQ(rig.control.calls().back(), "reconcile " + csi::volumeNameFor(VolumeId));
}

TEST(NodeRpc, ANameHeldByAnotherVolumeIdIsNeverActedOn)
{
	RpcRig rig;
	ASSERT_TRUE(rig.stage(rig.stageRequest(VolumeId)).ok());
	const std::string target = rig.targetPath(VolumeId, "pod-a");
	ASSERT_TRUE(rig.publish(rig.publishRequest(VolumeId, target)).ok());
	/* As if another ID hashed to the same name and staged first. */
	const std::string record =
		rig.runtimeDir() + "/csi/" + csi::volumeNameFor(VolumeId) + ".id";
	std::ofstream(record) << "some-other-volume\n";
	const size_t calls = rig.control.calls().size();

	EXPECT_EQ(rig.publish(rig.publishRequest(VolumeId, rig.targetPath(VolumeId, "pod-b")))
			  .error_code(),
		  Code::NOT_FOUND);
	v1::NodeGetVolumeStatsRequest stats;
	stats.set_volume_id(VolumeId);
	stats.set_volume_path(target);
	v1::NodeGetVolumeStatsResponse statsResponse;
	EXPECT_EQ(rig.node()
			  .NodeGetVolumeStats(RpcRig::context().get(), stats, &statsResponse)
			  .error_code(),
		  Code::NOT_FOUND);
	v1::NodeExpandVolumeRequest expand;
	expand.set_volume_id(VolumeId);
	expand.set_volume_path(target);
	v1::NodeExpandVolumeResponse expandResponse;
	EXPECT_EQ(rig.node()
			  .NodeExpandVolume(RpcRig::context().get(), expand, &expandResponse)
			  .error_code(),
		  Code::NOT_FOUND);
	EXPECT_EQ(rig.unstage(VolumeId, rig.stagingPath(VolumeId)).error_code(), Code::NOT_FOUND);
	EXPECT_EQ(rig.control.calls().size(), calls) << "the other volume's was never touched";
	EXPECT_TRUE(exists(rig.specPath(VolumeId)));
	EXPECT_EQ(specOf(rig, VolumeId).publish.size(), 1U);
}

TEST(NodeRpc, CapabilitiesAndInfo)
{
	RpcRig rig({ "--topology", "topology.rbd.volume.csi/zone=z1", "--max-volumes", "64" });
	v1::NodeGetCapabilitiesResponse capabilities;
	ASSERT_TRUE(
		rig.node().NodeGetCapabilities(RpcRig::context().get(), {}, &capabilities).ok());
	std::vector<int> types;
	for (const auto &capability : capabilities.capabilities())
		types.push_back(capability.rpc().type());
	using Rpc = v1::NodeServiceCapability::RPC;
	EXPECT_EQ(types, (std::vector<int>{ Rpc::STAGE_UNSTAGE_VOLUME, Rpc::GET_VOLUME_STATS,
					    Rpc::EXPAND_VOLUME, Rpc::VOLUME_CONDITION,
					    Rpc::SINGLE_NODE_MULTI_WRITER }));

	v1::NodeGetInfoResponse info;
	ASSERT_TRUE(rig.node().NodeGetInfo(RpcRig::context().get(), {}, &info).ok());
	EXPECT_EQ(info.node_id(), "node-1");
	EXPECT_EQ(info.max_volumes_per_node(), 64);
	EXPECT_EQ(info.accessible_topology().segments().at("topology.rbd.volume.csi/zone"), "z1");

	v1::GetPluginInfoResponse plugin;
	ASSERT_TRUE(rig.identity().GetPluginInfo(RpcRig::context().get(), {}, &plugin).ok());
	EXPECT_EQ(plugin.name(), "rbd.volume.csi");
	EXPECT_FALSE(plugin.vendor_version().empty());
	v1::GetPluginCapabilitiesResponse pluginCapabilities;
	ASSERT_TRUE(rig.identity()
			    .GetPluginCapabilities(RpcRig::context().get(), {}, &pluginCapabilities)
			    .ok());
	ASSERT_EQ(pluginCapabilities.capabilities_size(), 2);
	EXPECT_EQ(pluginCapabilities.capabilities(0).service().type(),
		  v1::PluginCapability::Service::VOLUME_ACCESSIBILITY_CONSTRAINTS);
	EXPECT_EQ(pluginCapabilities.capabilities(1).volume_expansion().type(),
		  v1::PluginCapability::VolumeExpansion::ONLINE);
}

TEST(NodeRpc, ProbeSaysWhetherTheDaemonAnswers)
{
	RpcRig rig;
	v1::ProbeResponse ready;
	ASSERT_TRUE(rig.identity().Probe(RpcRig::context().get(), {}, &ready).ok());
	EXPECT_TRUE(ready.ready().value());
	rig.control.setReachable(false);
	v1::ProbeResponse down;
	ASSERT_TRUE(rig.identity().Probe(RpcRig::context().get(), {}, &down).ok());
	ASSERT_TRUE(down.has_ready());
	EXPECT_FALSE(down.ready().value());
}

} /* namespace */

} /* namespace rbdvolume::testing */
