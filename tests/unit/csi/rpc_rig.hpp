/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rbd-volume-csi's services on a real unix socket in a temporary directory,
 * a gRPC client built from the project's proto, and a fake VolumeControl in
 * place of rbd-volumed that records what it was asked.
 */
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "csi.grpc.pb.h"
#include "csi/identity_service.hpp"
#include "csi/node_service.hpp"
#include "csi/volume_control.hpp"
#include "read_text.hpp"
#include "temp_dir.hpp"

#include <grpcpp/grpcpp.h>

namespace rbdvolume::testing {

class FakeVolumeControl final : public csi::VolumeControl
{
public:
	Result<void> up(const std::string &name, std::chrono::seconds timeout) override;
	/* Recorded as "up-with-passphrase NAME"; the passphrase is kept for passphraseOf(). */
	Result<void> upWithPassphrase(const std::string &name, const Secret &passphrase,
				      std::chrono::seconds timeout) override;
	Result<void> down(const std::string &name, std::chrono::seconds timeout) override;
	Result<void> reconcile(const std::string &name, std::chrono::seconds timeout) override;
	Result<std::optional<csi::VolumeState>> state(const std::string &name) override;
	Result<void> ping() override;

	/* "up NAME", "down NAME", "reconcile NAME", in order. */
	std::vector<std::string> calls() const;
	/* What the last upWithPassphrase of `name` brought; "" when none did. */
	std::string passphraseOf(const std::string &name) const;
	/* The next call of `verb` fails with `error`. */
	void failNext(const std::string &verb, Error error);
	/* Every up/down/reconcile takes this long. */
	void setDelay(std::chrono::milliseconds delay) { delay_ = delay; }
	void setState(const std::string &name, std::optional<csi::VolumeState> state);
	void setReachable(bool reachable) { reachable_ = reachable; }
	/* The most calls that ran at once on one volume, and on all volumes. */
	int maxOnOneVolume() const { return maxOnOne_; }
	int maxOverall() const { return maxOverall_; }

private:
	Result<void> record(const std::string &verb, const std::string &name);

	mutable std::mutex mutex_;
	std::vector<std::string> calls_;
	std::map<std::string, std::string> passphrases_;
	std::map<std::string, Error> failures_;
	std::map<std::string, std::optional<csi::VolumeState>> states_;
	std::map<std::string, int> running_;
	int runningOverall_ = 0;
	std::atomic<int> maxOnOne_ = 0;
	std::atomic<int> maxOverall_ = 0;
	std::atomic<std::chrono::milliseconds> delay_{ std::chrono::milliseconds(0) };
	std::atomic<bool> reachable_ = true;
};

class RpcRig
{
public:
	/* `extraArgs` are rbd-volume-csi flags on top of the rig's own. */
	explicit RpcRig(std::vector<std::string> extraArgs = {});
	~RpcRig();
	RpcRig(const RpcRig &) = delete;
	RpcRig &operator=(const RpcRig &) = delete;
	RpcRig(RpcRig &&) = delete;
	RpcRig &operator=(RpcRig &&) = delete;

	::csi::v1::Node::Stub &node() { return *node_; }
	::csi::v1::Identity::Stub &identity() { return *identity_; }

	/* A client context with a deadline `seconds` from now. */
	static std::unique_ptr<grpc::ClientContext> context(int seconds = 30);

	/* A complete NodeStageVolume request for `volumeId`, staged under the rig's directory. */
	::csi::v1::NodeStageVolumeRequest stageRequest(const std::string &volumeId,
						       bool block = false) const;
	::csi::v1::NodePublishVolumeRequest publishRequest(const std::string &volumeId,
							   const std::string &target,
							   bool block = false) const;

	grpc::Status stage(const ::csi::v1::NodeStageVolumeRequest &request, int seconds = 30);
	grpc::Status unstage(const std::string &volumeId, const std::string &stagingPath);
	grpc::Status publish(const ::csi::v1::NodePublishVolumeRequest &request);
	grpc::Status unpublish(const std::string &volumeId, const std::string &target);

	std::string stagingPath(const std::string &volumeId) const;
	std::string targetPath(const std::string &volumeId, const std::string &pod) const;
	std::string runtimeDir() const { return dir_.path() + "/run"; }
	std::string specPath(const std::string &volumeId) const;
	std::string keyPath(const std::string &volumeId) const;

	FakeVolumeControl control;
	static constexpr const char *Key = "AQBsecretsecretsecretsecretsecret000==";

private:
	TempDir dir_;
	std::unique_ptr<csi::NodeService> nodeService_;
	std::unique_ptr<csi::IdentityService> identityService_;
	std::unique_ptr<grpc::Server> server_;
	std::unique_ptr<::csi::v1::Node::Stub> node_;
	std::unique_ptr<::csi::v1::Identity::Stub> identity_;
};

} /* namespace rbdvolume::testing */
