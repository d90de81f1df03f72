/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "csi/volume_locks.hpp"

namespace rbdvolume::csi {

VolumeLocks::Held::~Held()
{
	if (locks_ != nullptr)
		locks_->release(name_);
}

VolumeLocks::Held::Held(Held &&other) noexcept
	: locks_(std::exchange(other.locks_, nullptr)), name_(std::move(other.name_))
{
}

VolumeLocks::Held VolumeLocks::acquire(const std::string &name,
				       std::chrono::steady_clock::time_point until)
{
	std::unique_lock lock(mutex_);
	if (!released_.wait_until(lock, until, [&] { return !held_.contains(name); }))
		return {};
	held_.insert(name);
	return { this, name };
}

void VolumeLocks::release(const std::string &name)
{
	{
		const std::lock_guard lock(mutex_);
		held_.erase(name);
	}
	released_.notify_all();
}

} /* namespace rbdvolume::csi */
