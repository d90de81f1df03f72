/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "csi/registration_server.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <unistd.h>
#include <utility>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "common/errno_text.hpp"
#include "common/unique_fd.hpp"
#include "journal/log.hpp"

#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>

namespace rbdvolume::csi {

namespace {

/* The CSI spec versions kubelet may pick from; node-driver-registrar says the same. */
constexpr const char *SupportedVersion = "1.0.0";

std::string withoutUnixScheme(std::string endpoint)
{
	constexpr std::string_view Scheme = "unix://";
	if (endpoint.starts_with(Scheme))
		endpoint.erase(0, Scheme.size());
	return endpoint;
}

/* True when something accepts connections on the socket at `path`. */
bool socketIsListening(const std::string &path)
{
	const UniqueFd fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
	if (!fd.valid())
		return false;
	sockaddr_un addr{};
	addr.sun_family = AF_UNIX;
	std::memcpy(&addr.sun_path[0], path.c_str(), path.size() + 1);
	/* A full backlog (EAGAIN) still means a listener. */
	return connect(fd.get(), reinterpret_cast<const sockaddr *>(&addr), sizeof(addr)) == 0 ||
	       errno == EAGAIN;
}

Result<void> makeParentDirectory(const std::string &path)
{
	const std::filesystem::path parent = std::filesystem::path(path).parent_path();
	if (parent.empty())
		return {};
	std::error_code ec;
	std::filesystem::create_directories(parent, ec);
	if (ec)
		return fail(Errc::Io, "cannot create " + parent.string() + ": " + ec.message(),
			    ec.value());
	return {};
}

} /* namespace */

std::string registrationSocketPath(std::string_view dir, std::string_view driverName)
{
	std::string path(dir);
	if (!path.empty() && !path.ends_with('/'))
		path += '/';
	path += driverName;
	path += "-reg.sock";
	return path;
}

Result<void> prepareSocket(const std::string &path)
{
	if (path.empty() || path.size() >= sizeof(sockaddr_un::sun_path))
		return fail(Errc::InvalidArgument,
			    "'" + path + "' cannot be a unix socket path (empty or too long)");
	if (Result<void> made = makeParentDirectory(path); !made)
		return made;
	struct stat st {
	};
	if (lstat(path.c_str(), &st) != 0) {
		if (errno == ENOENT)
			return {};
		return failErrno("cannot inspect " + path, errno);
	}
	if (!S_ISSOCK(st.st_mode))
		return fail(Errc::Conflict,
			    path + " exists and is not a socket; refusing to remove it");
	if (socketIsListening(path))
		return fail(Errc::Conflict, path + " is in use: another process listens on it");
	if (unlink(path.c_str()) != 0 && errno != ENOENT)
		return failErrno("cannot remove stale socket " + path, errno);
	return {};
}

RegistrationService::RegistrationService(RegistrationInfo info) : info_(std::move(info))
{
	info_.csiEndpoint = withoutUnixScheme(std::move(info_.csiEndpoint));
}

grpc::Status RegistrationService::GetInfo(grpc::ServerContext * /*context*/,
					  const pluginregistration::InfoRequest * /*request*/,
					  pluginregistration::PluginInfo *reply)
{
	reply->set_type("CSIPlugin");
	reply->set_name(info_.driverName);
	reply->set_endpoint(info_.csiEndpoint);
	reply->add_supported_versions(SupportedVersion);
	return grpc::Status::OK;
}

grpc::Status RegistrationService::NotifyRegistrationStatus(
	grpc::ServerContext * /*context*/, const pluginregistration::RegistrationStatus *request,
	pluginregistration::RegistrationStatusResponse * /*reply*/)
{
	RegistrationOutcome outcome{ request->plugin_registered(), request->error() };
	if (outcome.registered)
		log::info(info_.driverName + ": registered with kubelet");
	else
		log::error(info_.driverName + ": kubelet refused the registration: " +
			   (outcome.error.empty() ? "(no reason given)" : outcome.error));
	const std::scoped_lock lock(mutex_);
	outcome_ = std::move(outcome);
	return grpc::Status::OK;
}

std::optional<RegistrationOutcome> RegistrationService::outcome() const
{
	const std::scoped_lock lock(mutex_);
	return outcome_;
}

RegistrationServer::RegistrationServer(std::string path, RegistrationInfo info)
	: path_(std::move(path)), service_(std::make_unique<RegistrationService>(std::move(info)))
{
}

Result<std::unique_ptr<RegistrationServer>> RegistrationServer::start(std::string_view dir,
								      RegistrationInfo info)
{
	std::string path = registrationSocketPath(dir, info.driverName);
	if (Result<void> prepared = prepareSocket(path); !prepared)
		return tl::make_unexpected(prepared.error());
	std::unique_ptr<RegistrationServer> self(
		new RegistrationServer(std::move(path), std::move(info)));
	grpc::ServerBuilder builder;
	builder.AddListeningPort("unix:" + self->path_, grpc::InsecureServerCredentials());
	builder.RegisterService(self->service_.get());
	self->server_ = builder.BuildAndStart();
	if (!self->server_)
		return fail(Errc::Io, "cannot listen on " + self->path_);
	return self;
}

RegistrationServer::~RegistrationServer()
{
	shutdown();
}

void RegistrationServer::shutdown()
{
	if (!server_)
		return;
	server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
	server_->Wait();
	server_.reset();
	/* gRPC removes the socket file itself; this is for a gRPC that does not. */
	struct stat st {
	};
	if (lstat(path_.c_str(), &st) == 0 && S_ISSOCK(st.st_mode))
		unlink(path_.c_str());
}

} /* namespace rbdvolume::csi */
