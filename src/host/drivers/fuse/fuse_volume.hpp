/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the fuse driver keeps per volume under its runtime directory
 * (/run/rbd-volume/fuse): NAME.conf says which image and how to reach it (for
 * the helper that runs rbd-fuse, and for discovery); NAME/ is the private
 * 0700 FUSE mount point where rbd-fuse shows the image as one file;
 * NAME.pid is rbd-fuse's pid; NAME.loop the loop device attached over it.
 */
#pragma once

#include <string>
#include <vector>

#include "common/result.hpp"
#include "config/volume_spec.hpp"
#include "engine/ports.hpp"

namespace rbdvolume {

struct FuseVolume {
	std::string pool;
	std::string radosNamespace;
	std::string image;
	std::string conf;
	std::string clientId;
	std::string keyring;
	std::string keyfile;
	std::string monitors; /* comma-separated; "" uses the conf's */

	static FuseVolume of(const MapRequest &request);
	bool operator==(const FuseVolume &) const = default;
};

Result<std::string> formatFuseVolume(const FuseVolume &volume);
Result<FuseVolume> parseFuseVolume(const std::string &text, const std::string &path);

struct FusePaths {
	std::string runtimeDir; /* /run/rbd-volume/fuse */

	std::string config(const std::string &volume) const
	{
		return runtimeDir + "/" + volume + ".conf";
	}
	/* Which loop device the fuse driver attached, and the file it holds ("DEVICE DEV INO"). */
	std::string loopRecord(const std::string &volume) const
	{
		return runtimeDir + "/" + volume + ".loop";
	}
	/* The pid of the volume's rbd-fuse, written by the helper before it execs it. */
	std::string pidFile(const std::string &volume) const
	{
		return runtimeDir + "/" + volume + ".pid";
	}
	std::string mountPoint(const std::string &volume) const
	{
		return runtimeDir + "/" + volume;
	}
	std::string imageFile(const std::string &volume, const std::string &image) const
	{
		return mountPoint(volume) + "/" + image;
	}
};

/*
 * rbd-fuse's command line and environment for a volume: foreground, one
 * image, the client identity through CEPH_ARGS (rbd-fuse has no --id).
 */
std::vector<std::string> rbdFuseArgv(const std::string &rbdFuse, const FuseVolume &volume,
				     const std::string &mountPoint);
std::vector<std::string> rbdFuseEnv(const FuseVolume &volume);

} /* namespace rbdvolume */
