/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/drivers/tools/cluster_args.hpp"

#include <string_view>

namespace rbdvolume {

namespace {

constexpr std::string_view CephDefaultConf = "/etc/ceph/ceph.conf";

} /* namespace */

/*
 * Both tools pass these to Ceph's own argument parser, which takes them
 * before or after the command. A key would show in every `ps`, so the spec
 * only names files holding it. Ceph's default conf is left to Ceph's own
 * search, which tolerates its absence: a host that names its monitors needs
 * no conf file. Any other conf is passed, and must then exist.
 */
void appendClusterArgs(std::vector<std::string> &argv, const ClusterSpec &cluster)
{
	if (!cluster.clientId.empty()) {
		argv.emplace_back("--id");
		argv.push_back(cluster.clientId);
	}
	if (!cluster.keyring.empty()) {
		argv.emplace_back("--keyring");
		argv.push_back(cluster.keyring);
	} else if (!cluster.keyfile.empty()) {
		argv.emplace_back("--keyfile");
		argv.push_back(cluster.keyfile);
	}
	if (!cluster.conf.empty() && cluster.conf != CephDefaultConf) {
		argv.emplace_back("-c");
		argv.push_back(cluster.conf);
	}
	if (!cluster.monitors.empty()) {
		std::string monitors;
		for (const std::string &monitor : cluster.monitors)
			monitors += (monitors.empty() ? "" : ",") + monitor;
		argv.emplace_back("-m");
		argv.push_back(monitors);
	}
}

} /* namespace rbdvolume */
