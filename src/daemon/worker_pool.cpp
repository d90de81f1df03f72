/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "daemon/worker_pool.hpp"

#include <cerrno>
#include <cstdint>

#include <sys/eventfd.h>

#include "common/errno_text.hpp"

namespace rbdvolume::daemon {

Result<std::unique_ptr<WorkerPool>> WorkerPool::create(unsigned episodes, unsigned reads)
{
	if (episodes == 0 || reads == 0)
		return fail(Errc::InvalidArgument, "a worker lane needs at least one thread");
	UniqueFd event(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
	if (!event.valid())
		return failErrno("cannot create an eventfd", errno);
	std::unique_ptr<WorkerPool> pool(new WorkerPool(std::move(event)));
	for (unsigned i = 0; i < episodes + reads; i++) {
		Queue &queue = pool->queueOf(i < episodes ? Lane::Episode : Lane::Read);
		pool->threads_.emplace_back([raw = pool.get(), &queue] { raw->work(queue); });
	}
	return pool;
}

WorkerPool::~WorkerPool()
{
	{
		const std::lock_guard lock(mutex_);
		stopping_ = true;
		episodes_.jobs.clear();
		reads_.jobs.clear();
	}
	episodes_.wake.notify_all();
	reads_.wake.notify_all();
	for (std::thread &thread : threads_)
		thread.join();
}

void WorkerPool::submit(Task job, Lane lane)
{
	Queue &queue = queueOf(lane);
	{
		const std::lock_guard lock(mutex_);
		queue.jobs.push_back(std::move(job));
	}
	queue.wake.notify_one();
}

void WorkerPool::post(Task completion)
{
	{
		const std::lock_guard lock(mutex_);
		completions_.push_back(std::move(completion));
	}
	const uint64_t one = 1;
	/* EAGAIN only when the counter is full: it is readable then anyway. */
	(void)!write(event_.get(), &one, sizeof one);
}

void WorkerPool::runCompletions()
{
	uint64_t count = 0;
	(void)!read(event_.get(), &count, sizeof count);
	std::vector<Task> ready;
	{
		const std::lock_guard lock(mutex_);
		ready.swap(completions_);
	}
	for (Task &completion : ready)
		completion();
}

void WorkerPool::work(Queue &queue)
{
	std::unique_lock lock(mutex_);
	for (;;) {
		queue.wake.wait(lock, [this, &queue] { return stopping_ || !queue.jobs.empty(); });
		if (stopping_)
			return;
		Task job = std::move(queue.jobs.front());
		queue.jobs.pop_front();
		running_++;
		lock.unlock();
		job();
		lock.lock();
		running_--;
	}
}

bool WorkerPool::busy()
{
	const std::lock_guard lock(mutex_);
	return running_ != 0;
}

} /* namespace rbdvolume::daemon */
