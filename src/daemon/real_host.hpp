/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* RealHost: the engine's ports over this machine, the cluster's through librbd. */
#pragma once

#include "config/daemon_config.hpp"
#include "host/ceph/librbd_cluster.hpp"
#include "host/drivers/host_adapters.hpp"

namespace rbdvolume::daemon {

class RealHost
{
public:
	explicit RealHost(const DaemonConfig &config);

	Host &host() { return adapters_.host(); }
	GivenPassphrases &passphrases() { return adapters_.passphrases(); }
	IoStallWatch &stalls() { return adapters_.stalls(); }
	LibrbdCluster &cluster() { return cluster_; }
	std::vector<NbdRequestBound> boundNbdRequests() { return adapters_.boundNbdRequests(); }

private:
	LibrbdCluster cluster_; /* before the adapters, which hold a reference to it */
	HostAdapters adapters_;
};

} /* namespace rbdvolume::daemon */
