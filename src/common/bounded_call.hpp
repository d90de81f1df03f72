/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * boundedCall(): a call that may block in the kernel on a device whose
 * server is gone or stopped (a read through a dead nbd connection, a stat
 * on a stopped FUSE mount, an unmount that writes back to a stuck device),
 * made so that only its caller waits, and only so long. Such a thread
 * cannot be stopped: past the limit it is left to finish on its own and the
 * caller gets Errc::Timeout. While it stays stuck, a call with the same key
 * fails at once rather than leave one more thread behind.
 */
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "common/result.hpp"

namespace rbdvolume {

namespace bounded {

/* Keys with a call that did not come back: one thread per stuck device at most. */
bool isStuck(const std::string &key);
void markStuck(const std::string &key);
void clearStuck(const std::string &key);

std::string secondsText(std::chrono::milliseconds limit);

} /* namespace bounded */

/*
 * Runs `work` on a thread of its own; its result when it is back within
 * `limit`. `work` must own everything it uses (capture by value): it may
 * outlive the caller. `what` names the call in the error ("probing /dev/nbd0").
 */
template<typename T>
Result<T> boundedCall(const std::string &key, std::chrono::milliseconds limit,
		      const std::string &what, std::function<Result<T>()> work)
{
	if (bounded::isStuck(key))
		return fail(Errc::Timeout,
			    what + ": an earlier call on it has not come back (its device or "
				   "server does not answer)",
			    ETIMEDOUT);
	struct State {
		std::mutex mutex;
		std::condition_variable done;
		std::optional<Result<T>> result;
		bool abandoned = false;
	};
	auto state = std::make_shared<State>();
	try {
		std::thread([state, key, work = std::move(work)] {
			Result<T> result = work();
			const std::lock_guard<std::mutex> held(state->mutex);
			state->result.emplace(std::move(result));
			if (state->abandoned)
				bounded::clearStuck(key);
			state->done.notify_all();
		}).detach();
	} catch (const std::system_error &error) {
		return fail(Errc::Io, what + ": cannot start a thread: " + error.what());
	}
	std::unique_lock<std::mutex> held(state->mutex);
	if (!state->done.wait_for(held, limit, [&] { return state->result.has_value(); })) {
		state->abandoned = true;
		bounded::markStuck(key);
		return fail(Errc::Timeout,
			    what + " did not come back within " + bounded::secondsText(limit) +
				    " (its device or server does not answer)",
			    ETIMEDOUT);
	}
	return std::move(*state->result);
}

} /* namespace rbdvolume */
