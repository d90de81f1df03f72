/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One volume's rbd-nbd settings: written by the NbdMapper, read by the helper
 * that rbd-nbd@NAME.service runs, so the unit needs nothing but the name.
 */
#pragma once

#include <string>
#include <vector>

#include "common/result.hpp"
#include "config/tool_config.hpp"
#include "config/volume_spec.hpp"
#include "engine/ports.hpp"

namespace rbdvolume {

/* ceph-csi's choice: long enough for a restart or an upgrade of rbd-nbd, not forever. */
constexpr unsigned DefaultReattachTimeout = 300;

struct NbdVolumeConfig {
	std::string rbdNbd = "/usr/bin/rbd-nbd";
	std::string image; /* pool/[namespace/]image[@snapshot] */
	std::string cookie;
	ClusterSpec cluster;
	bool readOnly = false;
	bool exclusive = false;
	unsigned reattachTimeout = DefaultReattachTimeout; /* seconds */
	unsigned ioTimeout = 0;				   /* 0: the kernel never aborts I/O */
	std::vector<std::string> options; /* the spec's other nbd options: "name" or "name=value" */

	bool operator==(const NbdVolumeConfig &) const = default;
};

/* The backend cookie the kernel keeps for the volume's device: "rbd-volume.NAME.HASH". */
std::string nbdCookie(const MapRequest &request);

std::string nbdConfigPath(const std::string &directory, const std::string &volume);

NbdVolumeConfig nbdConfigFor(const MapRequest &request, const DriverTools &tools);

/* "key=value" lines; InvalidArgument when a value holds a newline. */
Result<std::string> formatNbdConfig(const NbdVolumeConfig &config);
/* Strict: an unknown key or a missing image, cookie or rbd-nbd is an error. */
Result<NbdVolumeConfig> parseNbdConfig(const std::string &text, const std::string &path);

} /* namespace rbdvolume */
