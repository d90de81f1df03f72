/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * WorkerPool: a few threads that run the slow work (reconcile passes, which
 * run mkfs, map, mount) so the event loop never blocks. Finished work comes
 * back as completions that the loop runs: their eventfd turns readable.
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

	static Result<std::unique_ptr<WorkerPool>> create(unsigned threads);
	/* Waits for the running jobs; jobs still queued are dropped. */
	~WorkerPool();
	WorkerPool(const WorkerPool &) = delete;
	WorkerPool &operator=(const WorkerPool &) = delete;
	WorkerPool(WorkerPool &&) = delete;
	WorkerPool &operator=(WorkerPool &&) = delete;

	/* Runs `job` on a worker; called on the loop. */
	void submit(Task job);
	/* Queues `completion` for the loop; called on a worker. */
	void post(Task completion);
	/* Readable while completions wait; the loop then calls runCompletions(). */
	int fd() const { return event_.get(); }
	void runCompletions();

private:
	explicit WorkerPool(UniqueFd event) : event_(std::move(event)) {}
	void work();

	UniqueFd event_;
	std::mutex mutex_;
	std::condition_variable wake_;
	std::deque<Task> jobs_;
	std::vector<Task> completions_;
	bool stopping_ = false;
	std::vector<std::thread> threads_;
};

} /* namespace rbdvolume::daemon */
