/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * IoStallWatch: which mapped devices have requests nobody answers. The
 * kernel counts, per block device, the requests completed and those in
 * flight (/sys/block/NAME/stat). A device with requests in flight and none
 * completed for `after` is stalled: what serves it (the cluster, through
 * krbd, rbd-nbd or rbd-fuse) does not answer. Only sysfs is read, never the
 * device, so a look cannot itself wait on the stall it reports.
 *
 * Shared by the surveys on the workers (look) and the event loop's periodic
 * check (changed): every call takes the lock.
 */
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "host/system_roots.hpp"

namespace rbdvolume {

struct IoInstant {
	std::chrono::steady_clock::time_point steady;
	std::chrono::system_clock::time_point wall;
};

class IoStallWatch
{
public:
	using Clock = std::function<IoInstant()>;

	IoStallWatch(SystemRoots roots, std::chrono::milliseconds after, Clock clock = now);

	/*
	 * Why DEVICE's requests get no answer ("" when they do, or when its
	 * counters cannot be read): "no answer from the cluster since 10:02:03
	 * (requests wait on /dev/rbd0)". The verdict is remembered for changed().
	 */
	std::string look(const std::string &device);
	/* Forgets every device but these (the ones mapped now). */
	void keepOnly(const std::vector<std::string> &devices);
	/* Whether a device looked at went from flowing to stalled or back since its last look. */
	bool changed();
	/* Whether any device is watched: something is mapped. */
	bool watching();

	static IoInstant now();

private:
	struct Progress {
		uint64_t completed = 0;
		IoInstant since;      /* the last completion seen, or the first look */
		bool stalled = false; /* as the last look() reported it */
	};
	/* Reads the counters and moves `since` on; false when they cannot be read. */
	bool sample(const std::string &device, Progress &progress, bool &waiting);
	bool stalledNow(const Progress &progress, bool waiting) const;

	SystemRoots roots_;
	std::chrono::milliseconds after_;
	Clock clock_;
	std::mutex mutex_;
	std::map<std::string, Progress> devices_;
};

} /* namespace rbdvolume */
