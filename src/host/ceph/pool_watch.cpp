/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/ceph/pool_watch.hpp"

#include <vector>

#include "host/ceph/connection_cache.hpp"
#include "host/ceph/pool_fullness.hpp"

namespace rbdvolume {

PoolWatch::PoolWatch(Clock::duration forget) : forget_(forget)
{
}

std::string PoolWatch::look(const ClusterSpec &cluster, const std::string &pool)
{
	const std::lock_guard lock(mutex_);
	auto [it, added] = pools_.try_emplace(Key{ identityKey(cluster), pool });
	if (added)
		it->second.cluster = cluster;
	it->second.looked = Clock::now();
	return it->second.full;
}

bool PoolWatch::watching()
{
	const std::lock_guard lock(mutex_);
	return !pools_.empty();
}

bool PoolWatch::refresh(const Ask &ask)
{
	/* One question per cluster identity, whatever the number of its pools. */
	std::map<std::string, ClusterSpec> clusters;
	{
		const std::lock_guard lock(mutex_);
		const Clock::time_point stale = Clock::now() - forget_;
		std::erase_if(pools_,
			      [&](const auto &entry) { return entry.second.looked < stale; });
		for (const auto &[key, pool] : pools_)
			clusters.try_emplace(key.first, pool.cluster);
	}
	bool changed = false;
	for (const auto &[identity, cluster] : clusters) {
		const Result<std::string> answer = ask(cluster);
		if (!answer)
			continue;
		const std::map<std::string, std::string> full = fullPools(*answer);
		const std::lock_guard lock(mutex_);
		for (auto &[key, pool] : pools_) {
			if (key.first != identity)
				continue;
			const auto found = full.find(key.second);
			std::string now = found == full.end() ? std::string() : found->second;
			changed = changed || now != pool.full;
			pool.full = std::move(now);
		}
	}
	return changed;
}

} /* namespace rbdvolume */
