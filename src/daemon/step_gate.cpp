/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "daemon/step_gate.hpp"

namespace rbdvolume::daemon {

void StepGate::enter()
{
	std::unique_lock lock(mutex_);
	opened_.wait(lock, [this] { return !closed_; });
	inside_++;
}

void StepGate::leave()
{
	const std::lock_guard lock(mutex_);
	inside_--;
}

bool StepGate::closeWhenIdle()
{
	const std::lock_guard lock(mutex_);
	if (inside_ == 0)
		closed_ = true;
	return closed_;
}

void StepGate::open()
{
	{
		const std::lock_guard lock(mutex_);
		closed_ = false;
	}
	opened_.notify_all();
}

} /* namespace rbdvolume::daemon */
