/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "daemon/real_host.hpp"

#include "common/paths.hpp"

namespace rbdvolume::daemon {

namespace {

DriverTools driverTools(const DaemonConfig &config)
{
	DriverTools tools;
	tools.rbd = config.rbd;
	tools.rbdNbd = config.rbdNbd;
	tools.systemctl = config.systemctl;
	tools.mapTimeout = config.mapTimeout;
	tools.unmapTimeout = config.unmapTimeout;
	return tools;
}

ToolConfig toolConfig(const DaemonConfig &config)
{
	ToolConfig tools;
	tools.mkfsExt4 = config.mkfsExt4;
	tools.mkfsXfs = config.mkfsXfs;
	tools.e2fsck = config.e2fsck;
	tools.resize2fs = config.resize2fs;
	tools.xfsGrowfs = config.xfsGrowfs;
	tools.mkfsTimeout = config.mkfsTimeout;
	tools.fsckTimeout = config.fsckTimeout;
	tools.growTimeout = config.growTimeout;
	tools.deviceTimeout = config.deviceTimeout;
	return tools;
}

CephTimeouts cephTimeouts(const DaemonConfig &config)
{
	using std::chrono::duration_cast;
	using std::chrono::seconds;
	return CephTimeouts{ duration_cast<seconds>(config.cephConnect),
			     duration_cast<seconds>(config.cephOperation) };
}

} /* namespace */

RealHost::RealHost(const DaemonConfig &config)
	: units_(runner_, config.systemctl, config.unitTimeout),
	  krbd_(runner_, driverTools(config), SystemRoots{}),
	  nbd_(runner_, units_, driverTools(config), SystemRoots{}),
	  fuse_(units_, FuseDriverConfig{ std::string(paths::RuntimeDir) + "/fuse",
					  config.unitTimeout, config.deviceTimeout }),
	  mappers_(krbd_, nbd_, fuse_, SystemRoots{}), mounter_(config.deviceTimeout),
	  probe_(config.deviceTimeout), cluster_(cephTimeouts(config)),
	  formatter_(runner_, toolConfig(config)),
	  records_(std::string(paths::OwnershipDir)), host_{ table_,   mounter_, probe_,
							     mappers_, cluster_, formatter_,
							     records_ }
{
}

} /* namespace rbdvolume::daemon */
