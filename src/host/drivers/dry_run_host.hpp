/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * DryRunHost: a Host that observes this machine for real and refuses every
 * change, for `rbd-volumectl plan`. The refusals are a guard: planning never
 * executes, and if it ever tried, nothing would happen.
 */
#pragma once

#include <string>

#include "engine/ports.hpp"
#include "host/blkid_block_probe.hpp"
#include "host/bus_units.hpp"
#include "host/command_runner.hpp"
#include "host/crypt_devices.hpp"
#include "host/drivers/fuse/fuse_mapper.hpp"
#include "host/drivers/nbd/nbd_mapper.hpp"
#include "host/mapping_discovery.hpp"
#include "host/ownership_files.hpp"
#include "host/proc_mount_table.hpp"

namespace rbdvolume {

/* Lists this machine's LUKS mappings; refuses every change. */
class DryRunCrypt : public CryptDevices
{
public:
	explicit DryRunCrypt(std::string sysfs) : sysfs_(std::move(sysfs)) {}

	Result<std::vector<CryptMapping>> opened() override { return listCryptMappings(sysfs_); }
	Result<std::string> formatHeader(const CryptRequest &request,
					 const std::string &device) override;
	Result<std::string> open(const CryptRequest &request, const std::string &device) override;
	Result<Change> close(const std::string &volume) override;
	Result<Change> resize(const std::string &volume) override;

private:
	std::string sysfs_;
};

class DryRunHost : private Mounter,
		   private Mapper,
		   private Images,
		   private Filesystems,
		   private OwnershipStore,
		   private UnitControl,
		   private CommandRunner
{
public:
	DryRunHost(std::string ownershipDir, SystemRoots roots);

	Host &host() { return host_; }

private:
	Result<Change> mount(const MountRequest &request) override;
	Result<Change> bind(const MountRequest &request) override;
	Result<Change> unmount(const std::string &target) override;
	Result<Change> detach(const std::string &target) override;
	std::optional<std::string> pathProblem(const std::string &path,
					       MountPointKind kind) override;
	bool mountPointLeft(const std::string &path) override;
	Result<std::vector<MappedImage>> list() override;
	Result<std::string> map(const MapRequest &request) override;
	Result<Change> unmap(const MapRequest &request, const std::string &device) override;
	Result<std::vector<std::string>> orphans() override;
	Result<Change> stopOrphan(const MapRequest &request) override;
	/* A dry run never asks a mapper's server. */
	Result<Change> followImageSize(const MapRequest & /*request*/) override
	{
		return Change::Unchanged;
	}
	Result<ImageChange> ensureImage(const ImageRequest &request) override;
	Result<void> checkSoleWriter(const ImageRequest &request) override;
	Result<bool> readsZeroes(const ImageRequest &request) override;
	Result<std::optional<std::string>> metadata(const ImageRequest &request,
						    const std::string &key) override;
	Result<void> setMetadata(const ImageRequest &request, const std::string &key,
				 const std::string &value) override;
	/* A plan is made from the host alone: nothing is known of the pool. */
	std::string poolFull(const ImageRequest & /*request*/) override { return {}; }
	Result<KernelMapFacts> kernelMapFacts(const ImageRequest &request) override;
	Result<std::string> format(const std::string &device, const FilesystemSpec &fs,
				   DeviceContents contents) override;
	Result<std::string> check(const std::string &device, const FilesystemSpec &fs) override;
	Result<Change> grow(const std::string &device, const std::string &mountPoint,
			    const FilesystemSpec &fs) override;
	Result<Ownership> load(const std::string &volume) override;
	Result<void> save(const std::string &volume, const Ownership &record) override;
	Result<void> start(const std::string &templateName, const std::string &instance) override;
	Result<void> stop(const std::string &templateName, const std::string &instance) override;
	Result<void> reload(const std::string &templateName, const std::string &instance) override;
	/* Read-only: systemd is asked, as the daemon would ask it. */
	Result<std::string> activeState(const std::string &templateName,
					const std::string &instance) override;
	Result<std::string> result(const std::string &templateName,
				   const std::string &instance) override;
	/* The drivers' own commands are refused. */
	Result<CommandOutput> run(const Command &command) override;

	ProcMountTable table_;
	BlkidBlockProbe probe_;
	OwnershipFiles records_;
	SystemRoots roots_;
	DryRunCrypt crypt_{ roots_.sysfs };
	FuseMapper fuse_; /* lists the fuse driver's loops; its unit calls are refused */
	NbdMapper nbd_;	  /* lists nbd devices, served or not; its commands are refused */
	/* Read as the daemon reads them; over the system bus when not root. */
	BusUnits states_ = BusUnits::forThisUser(BusUnits::StateTimeout);
	Host host_;
};

} /* namespace rbdvolume */
