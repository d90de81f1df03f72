/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * kubelet's plugin registration, served by the shim itself: kubelet watches
 * its plugin registry directory, finds <driver>-reg.sock there, asks it who
 * the plugin is (GetInfo) and says whether it took it (NotifyRegistrationStatus).
 * What node-driver-registrar does in a pod, without the pod.
 */
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "pluginregistration.grpc.pb.h"

namespace grpc {
class Server;
} /* namespace grpc */

namespace rbdvolume::csi {

/* kubelet's default plugin registry directory. */
inline constexpr std::string_view KubeletRegistrationDir = "/var/lib/kubelet/plugins_registry";

/* What the shim tells kubelet about itself. */
struct RegistrationInfo {
	std::string driverName;	 /* the CSI driver name, as GetPluginInfo gives it */
	std::string csiEndpoint; /* the CSI socket kubelet dials: a path ("unix://" is dropped) */
};

/* kubelet's word on the registration. */
struct RegistrationOutcome {
	bool registered = false;
	std::string error; /* why kubelet refused; "" when registered */
};

/* "<dir>/<driverName>-reg.sock", the name kubelet expects. */
std::string registrationSocketPath(std::string_view dir, std::string_view driverName);

/*
 * Makes the socket's directory if missing, and removes a stale socket at
 * `path`. Refuses (Conflict) anything else there: a file that is no socket
 * is left alone, and so is a socket someone still listens on.
 */
Result<void> prepareSocket(const std::string &path);

/* The pluginregistration.Registration service; thread-safe. */
class RegistrationService final : public pluginregistration::Registration::Service
{
public:
	explicit RegistrationService(RegistrationInfo info);

	grpc::Status GetInfo(grpc::ServerContext *context,
			     const pluginregistration::InfoRequest *request,
			     pluginregistration::PluginInfo *reply) override;
	grpc::Status
	NotifyRegistrationStatus(grpc::ServerContext *context,
				 const pluginregistration::RegistrationStatus *request,
				 pluginregistration::RegistrationStatusResponse *reply) override;

	/* What kubelet said last; nothing before it said anything. */
	std::optional<RegistrationOutcome> outcome() const;

private:
	RegistrationInfo info_;
	mutable std::mutex mutex_;
	std::optional<RegistrationOutcome> outcome_;
};

/*
 * The service on its own gRPC server and socket. start() prepares the
 * socket and listens; shutdown() (or the destructor) stops serving and
 * removes the socket.
 */
class RegistrationServer
{
public:
	/* Listens on registrationSocketPath(dir, info.driverName). */
	static Result<std::unique_ptr<RegistrationServer>> start(std::string_view dir,
								 RegistrationInfo info);
	~RegistrationServer();
	RegistrationServer(const RegistrationServer &) = delete;
	RegistrationServer &operator=(const RegistrationServer &) = delete;
	RegistrationServer(RegistrationServer &&) = delete;
	RegistrationServer &operator=(RegistrationServer &&) = delete;

	/* Waits at most a second for calls in flight; idempotent. */
	void shutdown();

	const std::string &socketPath() const { return path_; }
	const RegistrationService &service() const { return *service_; }

private:
	RegistrationServer(std::string path, RegistrationInfo info);

	std::string path_;
	std::unique_ptr<RegistrationService> service_;
	std::unique_ptr<grpc::Server> server_;
};

} /* namespace rbdvolume::csi */
