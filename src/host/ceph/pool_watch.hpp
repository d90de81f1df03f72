/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * PoolWatch: which watched pools the monitors flag full, as last heard.
 * Nothing tells a client that its pool filled up: a krbd write fails with
 * ENOSPC, an rbd-nbd or rbd-fuse one waits, and the volume would still look
 * up. So the pools of mapped read-write volumes are asked about now and
 * then (refresh, on a worker), and a look is answered from what was heard,
 * never waiting on the cluster.
 */
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "common/result.hpp"
#include "config/volume_spec.hpp"

namespace rbdvolume {

class PoolWatch
{
public:
	using Clock = std::chrono::steady_clock;
	/* The monitors' `osd pool ls detail` for one cluster identity. */
	using Ask = std::function<Result<std::string>(const ClusterSpec &)>;

	/* A pool not looked at for `forget` is no longer asked about. */
	explicit PoolWatch(Clock::duration forget = std::chrono::minutes(5));

	/*
	 * Why writes to POOL fail or wait ("the pool 'rbd' is full: its quota of
	 * 64 MiB is reached"); "" when they do not, or nothing was heard yet.
	 * From now on the pool is watched.
	 */
	std::string look(const ClusterSpec &cluster, const std::string &pool);
	/* Whether any pool is watched. */
	bool watching();
	/*
	 * Asks each watched cluster once, through `ask`, called without the
	 * lock held; an answer that does not come leaves what was heard. True
	 * when a pool turned full or stopped being full.
	 */
	bool refresh(const Ask &ask);

private:
	struct Pool {
		ClusterSpec cluster;
		std::string full; /* why it is full, "" when it is not */
		Clock::time_point looked;
	};
	using Key = std::pair<std::string, std::string>; /* cluster identity, pool */

	Clock::duration forget_;
	std::mutex mutex_;
	std::map<Key, Pool> pools_;
};

} /* namespace rbdvolume */
