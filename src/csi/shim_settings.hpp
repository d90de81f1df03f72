/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rbd-volume-csi's command line: every setting, its default, and its checks. */
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/paths.hpp"
#include "common/result.hpp"
#include "config/volume_spec.hpp"
#include "journal/levels.hpp"

namespace rbdvolume::csi {

struct ShimSettings {
	std::string endpoint = "/var/lib/kubelet/plugins/rbd.volume.csi/csi.sock";
	std::string driverName = "rbd.volume.csi";
	std::string nodeId; /* default: the host name */
	std::string clusterMap = "/etc/rbd-volume/csi-clusters.toml";
	/* ceph-csi's KMS config, read when a volume names an encryptionKMSID. */
	std::string kmsConfig = "/etc/ceph-csi-encryption-kms-config/config.json";
	std::string registrationDir = "/var/lib/kubelet/plugins_registry"; /* "": no registration */
	std::optional<Driver> forcedDriver;
	std::map<std::string, std::string> topology;
	int64_t maxVolumes = 0;			/* 0: no limit advertised */
	log::Level logLevel = log::Level::Info; /* info, or debug */
	std::string runtimeDir{ paths::RuntimeDir };
	/* The longest one call waits for the daemon: inside kubelet's 2-minute deadline. */
	std::chrono::seconds maxWait{ 100 };
	bool help = false;
	bool version = false;
};

/* The settings `args` (argv without the program name) ask for; an Error says which and why. */
Result<ShimSettings> parseShimSettings(const std::vector<std::string> &args);

/* Why `name` is not a valid CSI driver name (nothing when it is). */
std::optional<std::string> driverNameProblem(const std::string &name);

extern const char *const ShimUsage;

} /* namespace rbdvolume::csi */
