/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The real engine on the real kernel: real adapters, loop "images", specs from TOML. */
#pragma once

#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "engine/reconcile.hpp"
#include "host/blkid_block_probe.hpp"
#include "host/crypt_devices.hpp"
#include "host/fs_tools.hpp"
#include "host/libmount_mounter.hpp"
#include "host/ownership_files.hpp"
#include "host/proc_mount_table.hpp"
#include "loop_images.hpp"

namespace rbdvolume::testing {

/* Everything a Host needs, built fresh (as a restarted daemon would). */
struct RealHost {
	explicit RealHost(const std::string &dir, ToolConfig tools = {});

	ProcMountTable table;
	LibmountMounter mounter;
	BlkidBlockProbe probe;
	LoopImages images;
	PosixCommandRunner runner;
	ToolFilesystems formatter;
	OwnershipFiles records;
	GivenPassphrases given;
	HostCryptDevices crypt{ images, given };
	Host host;
};

class EngineOnLoop : public ::testing::Test
{
protected:
	void SetUp() override;
	void TearDown() override;

	/* A spec named `name` from TOML; "@DIR@" in the text becomes the test's directory. */
	VolumeSpec spec(const std::string &name, std::string toml);
	/* The usual volume: an ext4 image created if missing, two targets. */
	VolumeSpec simpleSpec(const std::string &name, const std::string &extra = {});

	PassOutcome plan(const VolumeSpec &spec, Intent intent);
	PassOutcome pass(const VolumeSpec &spec, Intent intent);
	/* Passes until the plan is empty; fails the test after `limit` passes or on an error. */
	int converge(const VolumeSpec &spec, Intent intent, int limit = 3);
	/* Restarts: fresh adapters over the same host, as after a daemon restart. */
	void restart(ToolConfig tools = {});

	std::string dir_;
	std::unique_ptr<RealHost> real_;
};

/* The visible mount on a path, or nullopt. */
std::optional<MountEntry> mountAt(const std::string &path);

} /* namespace rbdvolume::testing */
