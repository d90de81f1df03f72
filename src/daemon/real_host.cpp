/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "daemon/real_host.hpp"

namespace rbdvolume::daemon {

namespace {

CephTimeouts cephTimeouts(const DaemonConfig &config)
{
	using std::chrono::duration_cast;
	using std::chrono::seconds;
	return CephTimeouts{ duration_cast<seconds>(config.cephConnect),
			     duration_cast<seconds>(config.cephOperation) };
}

} /* namespace */

RealHost::RealHost(const DaemonConfig &config)
	: cluster_(cephTimeouts(config)), adapters_(config, cluster_)
{
}

} /* namespace rbdvolume::daemon */
