/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* RealHost: the engine's ports over this machine, set up from the daemon's config. */
#pragma once

#include "engine/ports.hpp"
#include "host/blkid_block_probe.hpp"
#include "host/ceph/librbd_cluster.hpp"
#include "host/command_runner.hpp"
#include "host/drivers/krbd_mapper.hpp"
#include "host/drivers/mapper_set.hpp"
#include "host/drivers/nbd_mapper.hpp"
#include "host/fs_tools.hpp"
#include "host/fuse_mapper.hpp"
#include "host/libmount_mount_table.hpp"
#include "host/libmount_mounter.hpp"
#include "host/ownership_files.hpp"
#include "host/unit_control.hpp"
#include "spec/daemon_config.hpp"

namespace rbdvolume::daemon {

class RealHost
{
public:
	explicit RealHost(const DaemonConfig &config);

	Host &host() { return host_; }

private:
	PosixCommandRunner runner_;
	SystemctlUnits units_;
	KrbdMapper krbd_;
	NbdMapper nbd_;
	FuseMapper fuse_;
	MapperSet mappers_;
	LibmountMountTable table_;
	LibmountMounter mounter_;
	BlkidBlockProbe probe_;
	LibrbdCluster cluster_;
	ToolFormatter formatter_;
	OwnershipFiles records_;
	Host host_;
};

} /* namespace rbdvolume::daemon */
