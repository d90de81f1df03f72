/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/drivers/host_adapters.hpp"

#include <chrono>

#include <sys/utsname.h>

#include "common/paths.hpp"

namespace rbdvolume {

namespace {

/* The tools as configured, with what the running kernel's krbd can do. */
DriverTools krbdToolsOf(DriverTools tools)
{
	utsname host{};
	tools.krbdAbortOnFull = uname(&host) == 0 && krbdKnowsAbortOnFull(host.release);
	return tools;
}

} /* namespace */

HostAdapters::HostAdapters(const DaemonConfig &config, Images &images)
	: units_(config.unitTimeout),
	  krbd_(runner_, krbdToolsOf(config.driverTools), SystemRoots{}, &images),
	  nbd_(runner_, units_, config.driverTools, SystemRoots{}),
	  fuse_(units_, FuseDriverConfig{ std::string(paths::RuntimeDir) + "/fuse",
					  config.unitTimeout, config.tools.deviceTimeout }),
	  stalls_(SystemRoots{}, config.ioStall),
	  mappers_(krbd_, nbd_, fuse_, SystemRoots{}, &stalls_),
	  mounter_(config.tools.deviceTimeout), probe_(config.tools.deviceTimeout),
	  filesystems_(runner_, config.tools), records_(std::string(paths::OwnershipDir)),
	  crypt_(images, passphrases_), host_{ table_, mounter_,     probe_,   mappers_,
					       images, filesystems_, records_, crypt_ },
	  shutdownIoSeconds_(static_cast<uint64_t>(
		  std::chrono::ceil<std::chrono::seconds>(config.shutdownIo).count()))
{
}

} /* namespace rbdvolume */
