/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* WorkerPool: jobs on workers, completions on the loop's thread only, the eventfd, shutdown. */
#include "daemon/worker_pool.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <poll.h>
#include <thread>

#include <gtest/gtest.h>

namespace rbdvolume::testing {

namespace {

using daemon::WorkerPool;
using std::chrono::milliseconds;

constexpr milliseconds Patience{ 10000 };

std::unique_ptr<WorkerPool> makePool(unsigned threads)
{
	auto pool = WorkerPool::create(threads);
	EXPECT_TRUE(pool) << (pool ? "" : pool.error().message);
	return pool ? std::move(*pool) : nullptr;
}

bool readable(int fd, milliseconds timeout)
{
	pollfd poller{ fd, POLLIN, 0 };
	return ::poll(&poller, 1, static_cast<int>(timeout.count())) == 1 &&
	       (poller.revents & POLLIN) != 0;
}

/* A flag one thread sets and another waits for, with a deadline. */
class Latch
{
public:
	/* Notifies under the lock: a waiter that returns may destroy the latch at once. */
	void open()
	{
		const std::lock_guard lock(mutex_);
		open_ = true;
		changed_.notify_all();
	}
	bool wait(milliseconds timeout = Patience)
	{
		std::unique_lock lock(mutex_);
		return changed_.wait_for(lock, timeout, [this] { return open_; });
	}

private:
	std::mutex mutex_;
	std::condition_variable changed_;
	bool open_ = false;
};

/* In each test what the jobs touch is declared before the pool, so the pool's
 * destructor joins its workers before those objects go out of scope. */
TEST(WorkerPool, JobsRunOnWorkers)
{
	std::thread::id ranOn;
	Latch done;
	auto pool = makePool(2);
	ASSERT_NE(pool, nullptr);
	pool->submit([&] {
		ranOn = std::this_thread::get_id();
		done.open();
	});
	ASSERT_TRUE(done.wait());
	EXPECT_NE(ranOn, std::this_thread::get_id());
}

TEST(WorkerPool, WorkersRunJobsInParallel)
{
	constexpr unsigned Threads = 3;
	std::mutex mutex;
	std::condition_variable arrived;
	unsigned present = 0;
	unsigned metAll = 0;
	unsigned finished = 0;
	auto pool = makePool(Threads);
	ASSERT_NE(pool, nullptr);
	for (unsigned i = 0; i < Threads; i++) {
		pool->submit([&] {
			std::unique_lock lock(mutex);
			present++;
			arrived.notify_all();
			/* Only when all jobs run at once do they all meet here. */
			if (arrived.wait_for(lock, Patience, [&] { return present == Threads; }))
				metAll++;
			finished++;
			arrived.notify_all();
		});
	}
	std::unique_lock lock(mutex);
	ASSERT_TRUE(arrived.wait_for(lock, 2 * Patience, [&] { return finished == Threads; }));
	EXPECT_EQ(metAll, Threads);
}

TEST(WorkerPool, AReadRunsWhileEveryEpisodeWorkerIsHeld)
{
	Latch release;
	Latch readDone;
	auto created = WorkerPool::create(2, 1);
	ASSERT_TRUE(created) << created.error().message;
	WorkerPool &pool = **created;
	for (int i = 0; i < 3; i++) /* two held, one queued behind them */
		pool.submit([&] { release.wait(); });
	pool.submit([&] { readDone.open(); }, WorkerPool::Lane::Read);
	EXPECT_TRUE(readDone.wait());
	release.open();
}

TEST(WorkerPool, ALaneWithoutThreadsIsRefused)
{
	EXPECT_FALSE(WorkerPool::create(0, 1));
	EXPECT_FALSE(WorkerPool::create(1, 0));
}

TEST(WorkerPool, CompletionsRunOnlyFromRunCompletions)
{
	std::atomic<bool> completed{ false };
	std::thread::id completedOn;
	Latch posted;
	auto pool = makePool(1);
	ASSERT_NE(pool, nullptr);
	EXPECT_FALSE(readable(pool->fd(), milliseconds(0)));

	pool->submit([&] {
		pool->post([&] {
			completedOn = std::this_thread::get_id();
			completed = true;
		});
		pool->post([] {});
		posted.open();
	});
	ASSERT_TRUE(posted.wait());
	ASSERT_TRUE(readable(pool->fd(), Patience));
	std::this_thread::sleep_for(milliseconds(20));
	EXPECT_FALSE(completed) << "a completion ran outside runCompletions()";

	pool->runCompletions();
	EXPECT_TRUE(completed);
	EXPECT_EQ(completedOn, std::this_thread::get_id());
	EXPECT_FALSE(readable(pool->fd(), milliseconds(0))) << "drained, the eventfd is quiet";

	/* Nothing waiting: a spurious call does nothing. */
	pool->runCompletions();
	EXPECT_FALSE(readable(pool->fd(), milliseconds(0)));
}

TEST(WorkerPool, EveryJobsCompletionArrives)
{
	constexpr unsigned Jobs = 50;
	unsigned completions = 0; /* only touched on this thread */
	auto pool = makePool(4);
	ASSERT_NE(pool, nullptr);
	for (unsigned i = 0; i < Jobs; i++)
		pool->submit([&] { pool->post([&] { completions++; }); });
	const auto deadline = std::chrono::steady_clock::now() + Patience;
	while (completions < Jobs && std::chrono::steady_clock::now() < deadline) {
		if (readable(pool->fd(), milliseconds(100)))
			pool->runCompletions();
	}
	EXPECT_EQ(completions, Jobs);
}

TEST(WorkerPool, DestructorWaitsForRunningJobsAndDropsQueuedOnes)
{
	Latch started;
	std::atomic<bool> finished{ false };
	std::atomic<bool> queuedRan{ false };
	auto pool = makePool(1);
	ASSERT_NE(pool, nullptr);
	pool->submit([&] {
		started.open();
		std::this_thread::sleep_for(milliseconds(100));
		finished = true;
	});
	pool->submit([&] { queuedRan = true; });
	ASSERT_TRUE(started.wait());
	pool.reset();
	EXPECT_TRUE(finished) << "the destructor returned while a job ran";
	EXPECT_FALSE(queuedRan) << "a job still queued ran during shutdown";
}

} /* namespace */

} /* namespace rbdvolume::testing */
