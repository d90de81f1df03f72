/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rpc_rig.hpp"

#include <algorithm>
#include <filesystem>
#include <thread>

#include "csi/volume_names.hpp"

namespace rbdvolume::testing {

namespace v1 = ::csi::v1;

Result<void> FakeVolumeControl::record(const std::string &verb, const std::string &name)
{
	std::optional<Error> failure;
	{
		const std::lock_guard lock(mutex_);
		calls_.push_back(verb + " " + name);
		if (const auto found = failures_.find(verb); found != failures_.end()) {
			failure = found->second;
			failures_.erase(found);
		}
		const int one = ++running_[name];
		const int all = ++runningOverall_;
		maxOnOne_ = std::max(maxOnOne_.load(), one);
		maxOverall_ = std::max(maxOverall_.load(), all);
	}
	std::this_thread::sleep_for(delay_.load());
	{
		const std::lock_guard lock(mutex_);
		--running_[name];
		--runningOverall_;
	}
	if (failure)
		return tl::make_unexpected(*failure);
	return {};
}

Result<void> FakeVolumeControl::up(const std::string &name, std::chrono::seconds /*timeout*/)
{
	return record("up", name);
}

Result<void> FakeVolumeControl::upWithPassphrase(const std::string &name, const Secret &passphrase,
						 std::chrono::seconds /*timeout*/)
{
	{
		const std::lock_guard lock(mutex_);
		passphrases_[name] = std::string(passphrase.view());
	}
	return record("up-with-passphrase", name);
}

std::string FakeVolumeControl::passphraseOf(const std::string &name) const
{
	const std::lock_guard lock(mutex_);
	const auto found = passphrases_.find(name);
	return found == passphrases_.end() ? std::string() : found->second;
}

Result<void> FakeVolumeControl::down(const std::string &name, std::chrono::seconds /*timeout*/)
{
	return record("down", name);
}

Result<void> FakeVolumeControl::reconcile(const std::string &name, std::chrono::seconds /*timeout*/)
{
	return record("reconcile", name);
}

Result<std::optional<csi::VolumeState>> FakeVolumeControl::state(const std::string &name)
{
	const std::lock_guard lock(mutex_);
	if (!reachable_)
		return fail(Errc::Unreachable, "rbd-volumed cannot be reached");
	const auto found = states_.find(name);
	if (found == states_.end())
		return std::optional<csi::VolumeState>{};
	return found->second;
}

Result<void> FakeVolumeControl::ping()
{
	if (!reachable_)
		return fail(Errc::Unreachable, "rbd-volumed cannot be reached");
	return {};
}

std::vector<std::string> FakeVolumeControl::calls() const
{
	const std::lock_guard lock(mutex_);
	return calls_;
}

void FakeVolumeControl::failNext(const std::string &verb, Error error)
{
	const std::lock_guard lock(mutex_);
	failures_[verb] = std::move(error);
}

void FakeVolumeControl::setState(const std::string &name, std::optional<csi::VolumeState> state)
{
	const std::lock_guard lock(mutex_);
	states_[name] = std::move(state);
}

RpcRig::RpcRig(std::vector<std::string> extraArgs)
{
	dir_.write("clusters.toml", "[[cluster]]\nid = \"ceph-a\"\nmonitors = [\"192.0.2.1:6789\", "
				    "\"192.0.2.2:6789\"]\n");
	std::vector<std::string> args = { "--endpoint",		dir_.path() + "/csi.sock",
					  "--cluster-map",	dir_.path() + "/clusters.toml",
					  "--runtime-dir",	runtimeDir(),
					  "--node-id",		"node-1",
					  "--registration-dir", "" };
	args.insert(args.end(), extraArgs.begin(), extraArgs.end());
	auto settings = csi::parseShimSettings(args);
	if (!settings)
		throw std::runtime_error(settings.error().message);
	identityService_ = std::make_unique<csi::IdentityService>(
		settings->driverName, !settings->topology.empty(), control);
	nodeService_ = std::make_unique<csi::NodeService>(*settings, control);
	grpc::ServerBuilder builder;
	builder.AddListeningPort("unix:" + settings->endpoint, grpc::InsecureServerCredentials());
	builder.RegisterService(identityService_.get());
	builder.RegisterService(nodeService_.get());
	server_ = builder.BuildAndStart();
	if (!server_)
		throw std::runtime_error("the gRPC server did not start on " + settings->endpoint);
	auto channel = grpc::CreateChannel("unix:" + settings->endpoint,
					   grpc::InsecureChannelCredentials());
	node_ = v1::Node::NewStub(channel);
	identity_ = v1::Identity::NewStub(channel);
}

RpcRig::~RpcRig()
{
	server_->Shutdown();
}

std::unique_ptr<grpc::ClientContext> RpcRig::context(int seconds)
{
	auto context = std::make_unique<grpc::ClientContext>();
	context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(seconds));
	return context;
}

std::string RpcRig::stagingPath(const std::string &volumeId) const
{
	return dir_.path() + "/kubelet/staging/" + csi::volumeNameFor(volumeId) + "/globalmount";
}

std::string RpcRig::targetPath(const std::string &volumeId, const std::string &pod) const
{
	return dir_.path() + "/kubelet/pods/" + pod + "/volumes/" + csi::volumeNameFor(volumeId) +
	       "/mount";
}

std::string RpcRig::specPath(const std::string &volumeId) const
{
	return runtimeDir() + "/volumes/" + csi::volumeNameFor(volumeId) + ".toml";
}

std::string RpcRig::keyPath(const std::string &volumeId) const
{
	return runtimeDir() + "/csi/" + csi::volumeNameFor(volumeId) + ".key";
}

namespace {

/* What a single-node writer asks for: a raw block device, or an ext4 mount. */
void setWriterCapability(v1::VolumeCapability &capability, bool block)
{
	if (block)
		capability.mutable_block();
	else
		capability.mutable_mount()->set_fs_type("ext4");
	capability.mutable_access_mode()->set_mode(
		v1::VolumeCapability::AccessMode::SINGLE_NODE_WRITER);
}

} /* namespace */

v1::NodeStageVolumeRequest RpcRig::stageRequest(const std::string &volumeId, bool block) const
{
	v1::NodeStageVolumeRequest request;
	request.set_volume_id(volumeId);
	request.set_staging_target_path(stagingPath(volumeId));
	setWriterCapability(*request.mutable_volume_capability(), block);
	(*request.mutable_secrets())["userID"] = "kube";
	(*request.mutable_secrets())["userKey"] = Key;
	auto &context = *request.mutable_volume_context();
	context["clusterID"] = "ceph-a";
	context["pool"] = "replicapool";
	context["imageName"] = "csi-vol-" + csi::volumeNameFor(volumeId).substr(4);
	context["journalPool"] = "replicapool";
	context["csi.storage.k8s.io/pv/name"] = "pvc-1";
	return request;
}

v1::NodePublishVolumeRequest RpcRig::publishRequest(const std::string &volumeId,
						    const std::string &target, bool block) const
{
	v1::NodePublishVolumeRequest request;
	request.set_volume_id(volumeId);
	request.set_staging_target_path(stagingPath(volumeId));
	request.set_target_path(target);
	setWriterCapability(*request.mutable_volume_capability(), block);
	return request;
}

grpc::Status RpcRig::stage(const v1::NodeStageVolumeRequest &request, int seconds)
{
	v1::NodeStageVolumeResponse response;
	return node_->NodeStageVolume(context(seconds).get(), request, &response);
}

grpc::Status RpcRig::unstage(const std::string &volumeId, const std::string &stagingPath)
{
	v1::NodeUnstageVolumeRequest request;
	request.set_volume_id(volumeId);
	request.set_staging_target_path(stagingPath);
	v1::NodeUnstageVolumeResponse response;
	return node_->NodeUnstageVolume(context().get(), request, &response);
}

grpc::Status RpcRig::publish(const v1::NodePublishVolumeRequest &request)
{
	v1::NodePublishVolumeResponse response;
	return node_->NodePublishVolume(context().get(), request, &response);
}

grpc::Status RpcRig::unpublish(const std::string &volumeId, const std::string &target)
{
	v1::NodeUnpublishVolumeRequest request;
	request.set_volume_id(volumeId);
	request.set_target_path(target);
	v1::NodeUnpublishVolumeResponse response;
	return node_->NodeUnpublishVolume(context().get(), request, &response);
}

} /* namespace rbdvolume::testing */
