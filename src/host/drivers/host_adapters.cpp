/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/drivers/host_adapters.hpp"

#include "common/paths.hpp"

namespace rbdvolume {

DriverTools driverToolsOf(const DaemonConfig &config)
{
	DriverTools tools;
	tools.rbd = config.rbd;
	tools.rbdNbd = config.rbdNbd;
	tools.systemctl = config.systemctl;
	tools.mapTimeout = config.mapTimeout;
	tools.unmapTimeout = config.unmapTimeout;
	return tools;
}

ToolConfig toolConfigOf(const DaemonConfig &config)
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

HostAdapters::HostAdapters(const DaemonConfig &config, Cluster &cluster)
	: units_(runner_, config.systemctl, config.unitTimeout),
	  krbd_(runner_, driverToolsOf(config), SystemRoots{}),
	  nbd_(runner_, units_, driverToolsOf(config), SystemRoots{}),
	  fuse_(units_, FuseDriverConfig{ std::string(paths::RuntimeDir) + "/fuse",
					  config.unitTimeout, config.deviceTimeout }),
	  mappers_(krbd_, nbd_, fuse_, SystemRoots{}), mounter_(config.deviceTimeout),
	  probe_(config.deviceTimeout), formatter_(runner_, toolConfigOf(config)),
	  records_(std::string(paths::OwnershipDir)), host_{ table_,  mounter_,	  probe_,  mappers_,
							     cluster, formatter_, records_ }
{
}

} /* namespace rbdvolume */
