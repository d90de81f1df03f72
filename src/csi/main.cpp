/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rbd-volume-csi: CSI Identity and Node on a unix socket for kubelet, and
 * kubelet's plugin registration beside it. SIGTERM or SIGINT stops both;
 * calls in flight get a few seconds to answer (the daemon finishes the work).
 */
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <pthread.h>
#include <string>
#include <thread>
#include <vector>

#include <sys/prctl.h>

#include <systemd/sd-daemon.h>

#include "csi/bus_volume_control.hpp"
#include "csi/cluster_map_load.hpp"
#include "csi/identity_service.hpp"
#include "csi/node_service.hpp"
#include "csi/registration_server.hpp"
#include "csi/shim_settings.hpp"
#include "journal/log.hpp"

#include <grpcpp/grpcpp.h>

namespace {

namespace shim = rbdvolume::csi;
using rbdvolume::Diagnostic;
using rbdvolume::csi::ClusterMapOutcome;

constexpr int ExitUsage = 2;
/* sysexits' EX_CONFIG, as rbd-volumed: systemd does not restart on it in a loop. */
constexpr int ExitConfig = 78;

/* The CSI socket's directory exists, and no stale socket blocks the listen. */
bool prepareEndpoint(const std::string &path)
{
	std::error_code ec;
	std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
	if (auto ready = shim::prepareSocket(path); !ready) {
		rbdvolume::log::error(path + ": " + ready.error().message);
		return false;
	}
	return true;
}

void checkClusterMap(const std::string &path)
{
	const ClusterMapOutcome map = shim::loadClusterMap(path);
	for (const Diagnostic &problem : map.diagnostics)
		rbdvolume::log::warning(problem.format() +
					" (NodeStageVolume fails until it is fixed)");
	if (map.ok())
		rbdvolume::log::info("cluster map " + path + ": " +
				     std::to_string(map.map.clusters.size()) + " cluster(s)");
}

int serve(const shim::ShimSettings &settings)
{
	checkClusterMap(settings.clusterMap);
	if (!prepareEndpoint(settings.endpoint))
		return ExitConfig;

	auto control = shim::BusVolumeControl::start();
	if (!control) {
		rbdvolume::log::error(control.error().message);
		return ExitConfig;
	}
	shim::IdentityService identity(settings.driverName, !settings.topology.empty(), **control);
	shim::NodeService node(settings, **control);
	grpc::ServerBuilder builder;
	builder.AddListeningPort("unix:" + settings.endpoint, grpc::InsecureServerCredentials());
	builder.RegisterService(&identity);
	builder.RegisterService(&node);
	const std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
	if (!server) {
		rbdvolume::log::error("cannot listen on " + settings.endpoint);
		return ExitConfig;
	}

	std::unique_ptr<shim::RegistrationServer> registration;
	if (!settings.registrationDir.empty()) {
		auto started = shim::RegistrationServer::start(
			settings.registrationDir, { settings.driverName, settings.endpoint });
		if (!started) {
			rbdvolume::log::error("kubelet registration: " + started.error().message);
			server->Shutdown();
			return ExitConfig;
		}
		registration = std::move(*started);
	}

	rbdvolume::log::info(
		std::string("rbd-volume-csi ") + RBDV_VERSION + ": " + settings.driverName +
		" on " + settings.endpoint + ", node " + settings.nodeId +
		(registration ? ", registration at " + registration->socketPath() : ""));
	(void)sd_notify(0, "READY=1");

	/* Signals were blocked in main(): this thread takes them, the gRPC threads never do. */
	std::thread stopper([&server, &registration] {
		sigset_t stop;
		sigemptyset(&stop);
		sigaddset(&stop, SIGTERM);
		sigaddset(&stop, SIGINT);
		int signal = 0;
		sigwait(&stop, &signal);
		(void)sd_notify(0, "STOPPING=1");
		rbdvolume::log::info("stopping on signal " + std::to_string(signal));
		/* kubelet sees the plugin go before its CSI socket does. */
		if (registration)
			registration->shutdown();
		server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
	});
	server->Wait();
	stopper.join();
	std::error_code ec;
	std::filesystem::remove(settings.endpoint, ec);
	return 0;
}

} /* namespace */

int main(int argc, char **argv)
{
	/* Encryption passphrases pass through this process: no core dump may write them out. */
	(void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	auto settings = shim::parseShimSettings(std::vector<std::string>(argv + 1, argv + argc));
	if (!settings) {
		std::fprintf(stderr, "rbd-volume-csi: %s\n%s", settings.error().message.c_str(),
			     shim::ShimUsage);
		return ExitUsage;
	}
	if (settings->help) {
		std::fputs(shim::ShimUsage, stdout);
		return 0;
	}
	if (settings->version) {
		std::printf("rbd-volume-csi %s\n", RBDV_VERSION);
		return 0;
	}
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	pthread_sigmask(SIG_BLOCK, &stop, nullptr);
	rbdvolume::log::setLevel(settings->logLevel);
	return serve(*settings);
}
