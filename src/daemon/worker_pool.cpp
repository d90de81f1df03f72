/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "daemon/worker_pool.hpp"

#include <cerrno>
#include <cstdint>

#include <sys/eventfd.h>

#include "common/errno_text.hpp"

namespace rbdvolume::daemon {

Result<std::unique_ptr<WorkerPool>> WorkerPool::create(unsigned threads)
{
	UniqueFd event(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
	if (!event.valid())
		return fail(Errc::Io, "cannot create an eventfd: " + errnoText(errno), errno);
	std::unique_ptr<WorkerPool> pool(new WorkerPool(std::move(event)));
	for (unsigned i = 0; i < threads; i++)
		pool->threads_.emplace_back([raw = pool.get()] { raw->work(); });
	return pool;
}

WorkerPool::~WorkerPool()
{
	{
		const std::lock_guard lock(mutex_);
		stopping_ = true;
		jobs_.clear();
	}
	wake_.notify_all();
	for (std::thread &thread : threads_)
		thread.join();
}

void WorkerPool::submit(Task job)
{
	{
		const std::lock_guard lock(mutex_);
		jobs_.push_back(std::move(job));
	}
	wake_.notify_one();
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

void WorkerPool::work()
{
	std::unique_lock lock(mutex_);
	for (;;) {
		wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
		if (stopping_)
			return;
		Task job = std::move(jobs_.front());
		jobs_.pop_front();
		lock.unlock();
		job();
		lock.lock();
	}
}

} /* namespace rbdvolume::daemon */
