/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* kubelet's plugin registration over a real unix socket, a generated stub as kubelet. */
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <unistd.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <gtest/gtest.h>

#include "common/errno_text.hpp"
#include "common/unique_fd.hpp"
#include "csi/registration_server.hpp"
#include "temp_dir.hpp"

#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>

namespace rbdvolume::csi {

namespace {

using pluginregistration::Registration;

/* A fresh directory under TMPDIR, removed with everything in it. */
using ScratchDir = rbdvolume::testing::TempDir;

bool isSocket(const std::string &path)
{
	struct stat st {
	};
	return lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
}

/* A socket bound at `path`, listening if asked. The file outlives the fd. */
UniqueFd bindSocket(const std::string &path, bool listening)
{
	UniqueFd fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
	sockaddr_un addr{};
	addr.sun_family = AF_UNIX;
	std::memcpy(&addr.sun_path[0], path.c_str(), path.size() + 1);
	EXPECT_EQ(bind(fd.get(), reinterpret_cast<const sockaddr *>(&addr), sizeof(addr)), 0)
		<< errnoText(errno);
	if (listening) {
		EXPECT_EQ(listen(fd.get(), 1), 0);
	}
	return fd;
}

std::unique_ptr<Registration::Stub> dial(const std::string &path)
{
	return Registration::NewStub(
		grpc::CreateChannel("unix:" + path, grpc::InsecureChannelCredentials()));
}

void setDeadline(grpc::ClientContext &context)
{
	context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
}

RegistrationInfo sampleInfo()
{
	return { "rbd.volume.csi", "unix:///var/lib/kubelet/plugins/rbd.volume.csi/csi.sock" };
}

TEST(Registration, SocketIsNamedAfterTheDriver)
{
	EXPECT_EQ(registrationSocketPath("/var/lib/kubelet/plugins_registry", "rbd.volume.csi"),
		  "/var/lib/kubelet/plugins_registry/rbd.volume.csi-reg.sock");
	EXPECT_EQ(registrationSocketPath("/tmp/reg/", "x"), "/tmp/reg/x-reg.sock");
	EXPECT_EQ(KubeletRegistrationDir, "/var/lib/kubelet/plugins_registry");
}

TEST(Registration, GetInfoNamesTheCsiSocket)
{
	const ScratchDir scratch;
	ASSERT_FALSE(scratch.path().empty());
	const std::string dir = scratch.path() + "/plugins_registry"; /* made by start() */
	auto server = RegistrationServer::start(dir, sampleInfo());
	ASSERT_TRUE(server) << server.error().message;
	EXPECT_EQ((*server)->socketPath(), dir + "/rbd.volume.csi-reg.sock");
	EXPECT_TRUE(isSocket((*server)->socketPath()));

	grpc::ClientContext context;
	setDeadline(context);
	pluginregistration::PluginInfo info;
	const grpc::Status status =
		dial((*server)->socketPath())
			->GetInfo(&context, pluginregistration::InfoRequest(), &info);
	ASSERT_TRUE(status.ok()) << status.error_message();
	EXPECT_EQ(info.type(), "CSIPlugin");
	EXPECT_EQ(info.name(), "rbd.volume.csi");
	EXPECT_EQ(info.endpoint(), "/var/lib/kubelet/plugins/rbd.volume.csi/csi.sock");
	ASSERT_EQ(info.supported_versions_size(), 1);
	EXPECT_EQ(info.supported_versions(0), "1.0.0");
}

TEST(Registration, RemembersAndLogsWhatKubeletSays)
{
	const ScratchDir scratch;
	auto server = RegistrationServer::start(scratch.path(), sampleInfo());
	ASSERT_TRUE(server) << server.error().message;
	EXPECT_FALSE((*server)->service().outcome());
	const auto stub = dial((*server)->socketPath());

	const auto notify = [&stub](bool registered, const std::string &error) {
		grpc::ClientContext context;
		setDeadline(context);
		pluginregistration::RegistrationStatus request;
		request.set_plugin_registered(registered);
		request.set_error(error);
		pluginregistration::RegistrationStatusResponse reply;
		::testing::internal::CaptureStderr();
		const grpc::Status status =
			stub->NotifyRegistrationStatus(&context, request, &reply);
		std::string log = ::testing::internal::GetCapturedStderr();
		EXPECT_TRUE(status.ok()) << status.error_message();
		return log;
	};

	const std::string refused = notify(false, "driver name rbd.volume.csi is taken");
	EXPECT_EQ(refused, "<3>rbd.volume.csi: kubelet refused the registration: "
			   "driver name rbd.volume.csi is taken\n");
	auto outcome = (*server)->service().outcome();
	ASSERT_TRUE(outcome);
	EXPECT_FALSE(outcome->registered);
	EXPECT_EQ(outcome->error, "driver name rbd.volume.csi is taken");

	EXPECT_EQ(notify(true, ""), "<6>rbd.volume.csi: registered with kubelet\n");
	outcome = (*server)->service().outcome();
	ASSERT_TRUE(outcome);
	EXPECT_TRUE(outcome->registered);
	EXPECT_EQ(outcome->error, "");
}

TEST(Registration, ReplacesAStaleSocket)
{
	const ScratchDir scratch;
	const std::string path = registrationSocketPath(scratch.path(), "rbd.volume.csi");
	bindSocket(path, false); /* closed at once: nobody listens, the file stays */
	ASSERT_TRUE(isSocket(path));

	auto server = RegistrationServer::start(scratch.path(), sampleInfo());
	ASSERT_TRUE(server) << server.error().message;
	grpc::ClientContext context;
	setDeadline(context);
	pluginregistration::PluginInfo info;
	const grpc::Status status =
		dial(path)->GetInfo(&context, pluginregistration::InfoRequest(), &info);
	ASSERT_TRUE(status.ok()) << status.error_message();
	EXPECT_EQ(info.name(), "rbd.volume.csi");
}

TEST(Registration, RefusesAFileThatIsNoSocket)
{
	const ScratchDir scratch;
	const std::string path = registrationSocketPath(scratch.path(), "rbd.volume.csi");
	std::ofstream(path) << "not a socket\n";

	auto server = RegistrationServer::start(scratch.path(), sampleInfo());
	ASSERT_FALSE(server);
	EXPECT_EQ(server.error().code, Errc::Conflict);
	EXPECT_NE(server.error().message.find("not a socket"), std::string::npos)
		<< server.error().message;
	std::ifstream kept(path);
	std::string line;
	std::getline(kept, line);
	EXPECT_EQ(line, "not a socket");
}

TEST(Registration, RefusesASocketInUse)
{
	const ScratchDir scratch;
	const std::string path = registrationSocketPath(scratch.path(), "rbd.volume.csi");
	const UniqueFd listener = bindSocket(path, true);

	auto server = RegistrationServer::start(scratch.path(), sampleInfo());
	ASSERT_FALSE(server);
	EXPECT_EQ(server.error().code, Errc::Conflict);
	EXPECT_TRUE(isSocket(path));
}

TEST(Registration, ShutdownRemovesTheSocket)
{
	const ScratchDir scratch;
	auto server = RegistrationServer::start(scratch.path(), sampleInfo());
	ASSERT_TRUE(server) << server.error().message;
	const std::string path = (*server)->socketPath();
	ASSERT_TRUE(isSocket(path));
	(*server)->shutdown();
	EXPECT_FALSE(std::filesystem::exists(path));
	(*server)->shutdown(); /* again: nothing left to do */
	server->reset();       /* the destructor after shutdown() */

	/* ...and the next start finds the place free. */
	auto again = RegistrationServer::start(scratch.path(), sampleInfo());
	ASSERT_TRUE(again) << again.error().message;
}

TEST(Registration, RefusesAPathTooLongForASocket)
{
	const std::string dir = "/tmp/" + std::string(sizeof(sockaddr_un::sun_path), 'd');
	const Result<void> prepared = prepareSocket(registrationSocketPath(dir, "x"));
	ASSERT_FALSE(prepared);
	EXPECT_EQ(prepared.error().code, Errc::InvalidArgument);
	EXPECT_FALSE(std::filesystem::exists(dir));
}

} /* namespace */

} /* namespace rbdvolume::csi */
