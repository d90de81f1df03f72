/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * HostAdapters: the engine's ports over this machine, set up from the daemon
 * config: what rbd-volumed runs on, and what rbd-volumectl takes a volume
 * down with when the daemon is not running. The Ceph adapter is given: the
 * daemon's talks to the cluster; a teardown needs none.
 */
#pragma once

#include "config/daemon_config.hpp"
#include "engine/ports.hpp"
#include "host/blkid_block_probe.hpp"
#include "host/bus_units.hpp"
#include "host/command_runner.hpp"
#include "host/crypt_devices.hpp"
#include "host/drivers/fuse/fuse_mapper.hpp"
#include "host/drivers/krbd/krbd_mapper.hpp"
#include "host/drivers/mapper_set.hpp"
#include "host/drivers/nbd/nbd_mapper.hpp"
#include "host/fs_tools.hpp"
#include "host/libmount_mounter.hpp"
#include "host/ownership_files.hpp"
#include "host/proc_mount_table.hpp"
#include "host/unit_control.hpp"

namespace rbdvolume {

class HostAdapters
{
public:
	HostAdapters(const DaemonConfig &config, Images &images);
	HostAdapters(const HostAdapters &) = delete;
	HostAdapters &operator=(const HostAdapters &) = delete;
	HostAdapters(HostAdapters &&) = delete;
	HostAdapters &operator=(HostAdapters &&) = delete;
	~HostAdapters() = default;

	Host &host() { return host_; }
	/* Which mapped devices' requests get no answer; the mapper's view asks it. */
	IoStallWatch &stalls() { return stalls_; }
	/* The host shuts down: the nbd devices fail what got no answer for shutdown-io. */
	std::vector<NbdRequestBound> boundNbdRequests()
	{
		return nbd_.boundRequests(shutdownIoSeconds_);
	}
	/* What up requests bring for volumes with given-at-up. */
	GivenPassphrases &passphrases() { return passphrases_; }

private:
	PosixCommandRunner runner_;
	BusUnits units_;
	KrbdMapper krbd_;
	NbdMapper nbd_;
	FuseMapper fuse_;
	IoStallWatch stalls_;
	MapperSet mappers_;
	ProcMountTable table_;
	LibmountMounter mounter_;
	BlkidBlockProbe probe_;
	ToolFilesystems filesystems_;
	OwnershipFiles records_;
	GivenPassphrases passphrases_;
	HostCryptDevices crypt_;
	Host host_;
	uint64_t shutdownIoSeconds_;
};

} /* namespace rbdvolume */
