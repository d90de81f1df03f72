/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * WorkerPool: the threads that run the slow work so the event loop never
 * blocks, in two lanes. Episodes (reconcile passes: map, mkfs, mount) mostly
 * wait on the cluster, PID 1 and the disk, so their lane has many threads;
 * its size is also what bounds the maps (cluster connections being opened)
 * at once. Reads (surveys, plans) have a lane of their own, so a host's view
 * never queues behind fifty episodes, or behind stuck ones. Finished work
 * comes back as completions that the loop runs: their eventfd turns readable.
 */
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "common/result.hpp"
#include "common/unique_fd.hpp"

namespace rbdvolume::daemon {

class WorkerPool
{
public:
	using Task = std::function<void()>;
	enum class Lane { Episode, Read };

	/* `episodes` threads in the episode lane, `reads` in the read lane; each >= 1. */
	static Result<std::unique_ptr<WorkerPool>> create(unsigned episodes, unsigned reads = 1);
	/* Waits for the running jobs; jobs still queued are dropped. */
	~WorkerPool();
	WorkerPool(const WorkerPool &) = delete;
	WorkerPool &operator=(const WorkerPool &) = delete;
	WorkerPool(WorkerPool &&) = delete;
	WorkerPool &operator=(WorkerPool &&) = delete;

	/* Runs `job` on a worker of `lane`; called on the loop. */
	void submit(Task job, Lane lane = Lane::Episode);
	/* Queues `completion` for the loop; called on a worker. */
	void post(Task completion);
	/* Jobs running now (none queued counted): read on the loop. */
	bool busy();
	/* Readable while completions wait; the loop then calls runCompletions(). */
	int fd() const { return event_.get(); }
	void runCompletions();

private:
	struct Queue {
		std::condition_variable wake;
		std::deque<Task> jobs;
	};

	explicit WorkerPool(UniqueFd event) : event_(std::move(event)) {}
	Queue &queueOf(Lane lane) { return lane == Lane::Episode ? episodes_ : reads_; }
	void work(Queue &queue);

	UniqueFd event_;
	std::mutex mutex_;
	Queue episodes_;
	Queue reads_;
	std::vector<Task> completions_;
	bool stopping_ = false;
	unsigned running_ = 0;
	std::vector<std::thread> threads_;
};

} /* namespace rbdvolume::daemon */
